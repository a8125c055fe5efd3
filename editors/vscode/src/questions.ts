// codex's questions (docs/protocol.md, "Questions"): an MCP server's form or link (elicitation) and
// the agent's own questions (userInput), which the chat view asks inline since the extension
// declares experimental.hermes.asksQuestions, and a permissions approval's access in words. The
// answers the page sends are checked here against the questions before hermes.approve carries
// them; what a person types is never kept, and an error never repeats it (a secret stays unseen).
// No vscode import.

import { Actions, type Approval, type ApproveArgs, type Decision, type Permissions, type Question, type QuestionOption } from './protocol';

/** asksQuestions says whether an approval asks questions the extension asks itself (elicitation, userInput). */
export function asksQuestions(a: Pick<Approval, 'kind'>): boolean {
	return a.kind === 'elicitation' || a.kind === 'userInput';
}

/** The most questions, options and characters the view keeps of what codex or an MCP server asks. */
const maxQuestions = 50;
const maxOptions = 100;
const maxShort = 200;
const maxLong = 4000;

function cut(s: unknown, max: number): string {
	const t = typeof s === 'string' ? s : '';
	return t.length > max ? t.slice(0, max) + '…' : t;
}

/** Asked is what the chat view shows of a question approval: who asks, what, and the questions. */
export interface Asked {
	/** Who asks: `MCP server "name"`, or Hermes (the agent). */
	asker: string;
	message: string;
	/** The page an elicitation asks the person to visit, shown as text (nothing opens it). */
	url: string;
	/** The MCP tool codex asks to run, when the elicitation is its approval of a tool call. */
	tool: string;
	questions: Question[];
}

/** asked bounds what an elicitation or userInput approval asks, for the view. */
export function asked(a: Approval): Asked {
	const questions = (a.questions ?? []).slice(0, maxQuestions).map((q): Question => ({
		...q,
		id: cut(q.id, maxShort),
		header: cut(q.header, maxShort),
		text: cut(q.text, maxLong),
		options: (q.options ?? [])
			.slice(0, maxOptions)
			.map((o): QuestionOption => ({ value: cut(o.value, maxLong), label: cut(o.label, maxShort), description: cut(o.description, maxShort) })),
		default: q.secret ? [] : (q.default ?? []).slice(0, maxOptions).map((d) => cut(d, maxLong)),
	}));
	const server = cut(a.server, maxShort);
	return {
		asker: a.kind === 'elicitation' ? `MCP server "${server || '?'}"` : 'Hermes',
		message: cut(a.message, maxLong),
		url: cut(a.url, maxLong),
		tool: cut(a.tool, maxShort),
		questions,
	};
}

/** options are the answers a question offers: its own, or Yes and No for a boolean without any. */
export function options(q: Question): QuestionOption[] {
	if (q.options?.length) {
		return q.options;
	}
	return q.type === 'boolean'
		? [
				{ value: 'true', label: 'Yes' },
				{ value: 'false', label: 'No' },
			]
		: [];
}

/** submitTitle is the title of the button that answers: Submit a form, Done for a link, Accept for a form without fields. */
export function submitTitle(a: Pick<Asked, 'url' | 'questions'>): string {
	if (a.url) {
		return Actions.done;
	}
	return a.questions.length > 0 ? 'Submit' : Actions.accept;
}

/** Answers are hermes.approve's answers: by question id, an option's value or the text typed. */
export type Answers = Record<string, string[]>;

/** Checked is the outcome of checking the answers: what to send, or what is wrong, by question id. */
export type Checked = { ok: true; answers: Answers } | { ok: false; errors: Record<string, string> };

const numberRe = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const integerRe = /^[-+]?\d+$/;

/**
 * checkAnswers checks the answers the page sent against the questions (docs/protocol.md): a required
 * question is answered, a number parses, a choice takes one of its options unless it accepts other
 * text; answers to questions not asked are dropped, and empty ones left out. An error says what is
 * wrong in words, never the answer itself.
 */
export function checkAnswers(questions: readonly Question[], given: Answers): Checked {
	// No prototype: a question id such as __proto__ is a key like any other.
	const answers = Object.create(null) as Answers;
	const errors = Object.create(null) as Record<string, string>;
	for (const q of questions) {
		const own = Object.prototype.hasOwnProperty.call(given, q.id) ? given[q.id] : [];
		const values = (own ?? []).filter((v) => v.trim() !== '');
		const error = checkOne(q, values);
		if (error) {
			errors[q.id] = error;
		} else if (values.length > 0) {
			answers[q.id] = q.type === 'number' || q.type === 'integer' ? values.map((v) => v.trim()) : values;
		}
	}
	return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, answers };
}

function checkOne(q: Question, values: string[]): string | undefined {
	if (values.length === 0) {
		return q.required ? 'An answer is needed.' : undefined;
	}
	if (q.type !== 'multiChoice' && values.length > 1) {
		return 'Give one answer.';
	}
	const offered = new Set(options(q).map((o) => o.value));
	switch (q.type) {
		case 'number':
			return numberRe.test(values[0].trim()) ? undefined : 'Give a number, like 3 or 2.5.';
		case 'integer':
			return integerRe.test(values[0].trim()) ? undefined : 'Give a whole number, like 3.';
		case 'boolean':
			return offered.has(values[0]) ? undefined : 'Pick Yes or No.';
		case 'choice':
		case 'multiChoice':
			return q.other || values.every((v) => offered.has(v)) ? undefined : 'Pick one of the options.';
		default:
			return undefined;
	}
}

/** Reply is what the page's buttons ask for: a decision and, to answer, the answers. */
export interface Reply {
	decision: string;
	answers?: Answers;
}

/**
 * approveArgs is hermes.approve's arguments for a reply to a question approval: Decline is deny, Stop
 * turn stop (neither sends answers), and answering is once with the checked answers (a link or a
 * form without fields takes none). Errors come back by question id, for the page to show.
 */
export function approveArgs(id: string, a: Pick<Asked, 'questions'>, reply: Reply): { args: ApproveArgs } | { errors: Record<string, string> } {
	if (reply.decision === 'deny' || reply.decision === 'stop') {
		return { args: { approvalId: id, decision: reply.decision } };
	}
	if (reply.decision !== 'once') {
		return { errors: { '': `Unknown decision ${JSON.stringify(cut(reply.decision, 20))}.` } };
	}
	const checked = checkAnswers(a.questions, reply.answers ?? {});
	if (!checked.ok) {
		return { errors: checked.errors };
	}
	const args: ApproveArgs = { approvalId: id, decision: 'once' };
	if (Object.keys(checked.answers).length > 0) {
		args.answers = checked.answers;
	}
	return { args };
}

/**
 * outcome says how a question approval ended, for the view: answered (with the answers that are not
 * secret, by the options' labels; done for a page, accepted for a form without fields) or declined;
 * who decided when it was not the person.
 */
export function outcome(a: Pick<Asked, 'questions' | 'url'>, resolved: Pick<Approval, 'decision' | 'decidedBy' | 'answers'>): string {
	const d: Decision | undefined = resolved.decision;
	const yes = a.questions.length > 0 ? 'answered' : a.url ? 'done' : 'accepted';
	let words = d === 'once' || d === 'session' ? yes : d === 'stop' ? 'declined, turn stopped' : 'declined';
	if (resolved.decidedBy && resolved.decidedBy !== 'user') {
		words += ` (${cut(resolved.decidedBy, 20)})`;
	}
	const shown: string[] = [];
	for (const q of a.questions) {
		const values = resolved.answers?.[q.id];
		if (q.secret || !values?.length || (d !== 'once' && d !== 'session')) {
			continue;
		}
		const labels = values.map((v) => options(q).find((o) => o.value === v)?.label ?? v);
		shown.push(`${q.header || q.text}: ${cut(labels.join(', '), maxShort)}`);
	}
	return shown.length > 0 ? `${words} · ${shown.join(' · ')}` : words;
}

/**
 * permissionsWords says a permissions approval's access in words: network access, and read or write
 * access to each path ("read and write" where both are asked).
 */
export function permissionsWords(p: Permissions | undefined): string[] {
	if (!p) {
		return [];
	}
	const out: string[] = [];
	if (p.network) {
		out.push('network access');
	}
	const read = (p.read ?? []).map((x) => cut(x, maxShort));
	const write = (p.write ?? []).map((x) => cut(x, maxShort));
	const both = read.filter((x) => write.includes(x));
	if (both.length > 0) {
		out.push(`read and write ${both.join(', ')}`);
	}
	const readOnly = read.filter((x) => !both.includes(x));
	if (readOnly.length > 0) {
		out.push(`read ${readOnly.join(', ')}`);
	}
	const writeOnly = write.filter((x) => !both.includes(x));
	if (writeOnly.length > 0) {
		out.push(`write ${writeOnly.join(', ')}`);
	}
	return out;
}
