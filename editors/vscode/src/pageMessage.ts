// The messages the chat view's page (media/chat.js) posts to the extension, read as hostile: the
// page shows what the model and MCP servers write. No vscode import.

import type { Answers } from './questions';

/** PageMessage is what the page's script (media/chat.js) posts to the extension. */
export interface PageMessage {
	type: string;
	text?: string;
	id?: string;
	decision?: string;
	key?: number;
	/** A question approval's answers, by question id. */
	answers?: Answers;
}

/** The most answers (questions, values of one, characters of one) a page's message may carry. */
const maxAnswers = 200;
const maxAnswerChars = 64 * 1024;

/**
 * pageMessage reads a message from the page: its string fields, its numeric key and its answers (an
 * object of lists of strings, bounded), nothing else.
 */
export function pageMessage(m: unknown): PageMessage {
	const o = typeof m === 'object' && m !== null ? (m as Record<string, unknown>) : {};
	const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
	const key = typeof o.key === 'number' && Number.isSafeInteger(o.key) ? o.key : undefined;
	const msg: PageMessage = { type: str(o.type) ?? '', text: str(o.text), id: str(o.id), decision: str(o.decision), key };
	if (typeof o.answers === 'object' && o.answers !== null && !Array.isArray(o.answers)) {
		// No prototype: an id such as __proto__ is a key like any other.
		const answers = Object.create(null) as Answers;
		for (const [id, values] of Object.entries(o.answers as Record<string, unknown>).slice(0, maxAnswers)) {
			if (Array.isArray(values)) {
				answers[id] = values.filter((v): v is string => typeof v === 'string' && v.length <= maxAnswerChars).slice(0, maxAnswers);
			}
		}
		msg.answers = answers;
	}
	return msg;
}
