import assert from 'node:assert/strict';
import { test } from 'node:test';

import { approvalDialog, withAccess } from '../src/approvals';
import { announcement, renderItems } from '../src/chatHtml';
import { Chat } from '../src/chatModel';
import { pageMessage } from '../src/pageMessage';
import type { Approval, Question, TurnEventParams } from '../src/protocol';
import { approveArgs, checkAnswers, permissionsWords } from '../src/questions';
import { approvalWords, decisionWords, TurnRenderer } from '../src/turns';

function ev(kind: string, fields: Record<string, unknown> = {}): TurnEventParams {
	return { folder: '/w', threadId: 'th1', turnId: 't1', event: { kind, time: '', ...fields } } as unknown as TurnEventParams;
}

function approval(fields: Partial<Approval>): Approval {
	return { approvalId: 'a1', kind: 'exec', folder: '/w', threadId: 'th1', turnId: 't1', itemId: 'i1', summary: '', asked: '', ...fields };
}

const SECRET = 'hunter2-s3cret';

/** plain is a value as JSON carries it (the answers have no prototype). */
function plain(v: unknown): unknown {
	return JSON.parse(JSON.stringify(v));
}

/** The form of an MCP server: a choice with Other, a multiChoice, a boolean, a number, a secret. */
const form: Question[] = [
	{
		id: 'db',
		header: 'Database',
		text: 'Which database?',
		type: 'choice',
		options: [
			{ value: 'pg', label: 'Postgres', description: 'the usual one' },
			{ value: 'my', label: 'MySQL' },
		],
		other: true,
		required: true,
		default: ['pg'],
	},
	{
		id: 'envs',
		text: 'Where?',
		type: 'multiChoice',
		options: [
			{ value: 'dev', label: 'Dev' },
			{ value: 'prod', label: 'Prod' },
		],
	},
	{ id: 'ok', text: 'Migrate now?', type: 'boolean' },
	{ id: 'n', text: 'How many replicas?', type: 'integer' },
	{ id: 'token', text: 'Your API token', type: 'text', secret: true, required: true, default: ['should-not-show'] },
];

const elicitation = approval({ kind: 'elicitation', server: 'db-tools', message: 'Set up the <database>', summary: 'db-tools asks', questions: form });

test('an MCP server form is asked inline: who asks, each question as a field, Decline first, a password field for the secret', () => {
	const c = new Chat();
	c.apply(ev('turnStarted', { text: 'set up the db' }));
	assert.equal(c.apply(ev('approvalWaiting', { approval: elicitation })), true);
	assert.equal(c.apply(ev('approvalWaiting', { approval: elicitation })), false, 'a second event for the same approval adds nothing');
	assert.deepEqual(
		c.items.map((i) => i.kind),
		['you', 'question'],
	);
	const html = renderItems(c.items);
	assert.match(html, /MCP server &quot;db-tools&quot; asks/);
	assert.match(html, /Set up the &lt;database&gt;/, 'the message is text, escaped');
	assert.match(html, /<legend>Database<\/legend>/);
	assert.match(html, /<input type="radio" name="q2-0" value="pg" checked> Postgres <span class="q-desc">the usual one<\/span>/);
	assert.match(html, /<input type="radio" name="q2-0" data-other> Other:<\/label><input class="other-text" type="text"/);
	assert.match(html, /<input type="checkbox" name="q2-1" value="prod"> Prod/);
	assert.match(html, /<input type="radio" name="q2-2" value="true"> Yes/);
	assert.match(html, /<input type="radio" name="q2-2" value="false"> No/);
	assert.match(html, /data-qid="n" data-type="integer">.*<input class="answer" type="text" inputmode="numeric"/);
	assert.match(html, /data-qid="token" data-type="text">.*<input class="answer" type="password" autocomplete="off"/);
	assert.doesNotMatch(html, /should-not-show/, "a secret field's default is never shown");
	const buttons = [...html.matchAll(/<button data-reply="(\w+)">([^<]*)<\/button>/g)].map((m) => `${m[1]}:${m[2]}`);
	assert.deepEqual(buttons, ['deny:Decline', 'once:Submit', 'stop:Stop turn']);
	assert.match(announcement(c.items[1]), /^MCP server "db-tools" asks: Set up the <database>/);
});

test("the agent's questions: Hermes asks; a form without fields is accepted, a link is shown as text with Done", () => {
	const c = new Chat();
	c.apply(
		ev('approvalWaiting', {
			approval: approval({
				approvalId: 'u1',
				kind: 'userInput',
				questions: [{ id: 'q', text: 'Go on?', type: 'choice', options: [{ value: 'y', label: 'Yes' }] }],
			}),
		}),
	);
	c.apply(ev('approvalWaiting', { approval: approval({ approvalId: 'e1', kind: 'elicitation', server: 's', message: 'Confirm', tool: 'drop_table' }) }));
	c.apply(
		ev('approvalWaiting', {
			approval: approval({ approvalId: 'e2', kind: 'elicitation', server: 's', message: 'Sign in', url: 'https://evil.example/?q=x' }),
		}),
	);
	const [user, empty, link] = c.items.map((i) => renderItems([i]));
	assert.match(user, /Hermes asks/);
	assert.match(user, /data-reply="once">Submit</);
	assert.match(empty, /MCP server &quot;s&quot; asks to run its tool &quot;drop_table&quot;/);
	assert.match(empty, /data-reply="once">Accept</);
	assert.match(link, /data-reply="deny">Decline<\/button> <button data-reply="once">Done<\/button> <button data-reply="stop">Stop turn/);
	assert.match(link, /<pre><code>https:\/\/evil\.example\/\?q=x<\/code><\/pre>/);
	assert.doesNotMatch(link, /<a |href=|<img|<iframe/i, 'nothing in the view loads or opens the link');
	c.apply(ev('approvalResolved', { approval: { approvalId: 'e1', decision: 'once', decidedBy: 'user' } }));
	c.apply(ev('approvalResolved', { approval: { approvalId: 'e2', decision: 'once', decidedBy: 'user' } }));
	assert.match(renderItems(c.items), /<span class="decided">accepted<\/span>.*<span class="decided">done<\/span>/s);
});

test('a question shows answered or declined once resolved, with no field left and never the secret', () => {
	const c = new Chat();
	c.apply(ev('approvalWaiting', { approval: elicitation }));
	const waiting = renderItems(c.items);
	// The server never sends a secret's answer; were one to come, the view still leaves it out.
	c.apply(ev('approvalResolved', { approval: { ...elicitation, decision: 'once', decidedBy: 'user', answers: { db: ['my'], token: [SECRET], n: ['3'] } } }));
	const html = renderItems(c.items);
	assert.notEqual(html, waiting);
	assert.match(html, /answered · Database: MySQL · How many replicas\?: 3/);
	assert.doesNotMatch(html, /<input|<button/);
	assert.ok(!JSON.stringify(c.items).includes(SECRET), 'the chat model keeps no secret');
	assert.ok(!html.includes(SECRET));
	assert.equal(c.question('a1'), undefined, 'an answered question takes no more answers');

	const d = new Chat();
	d.apply(ev('approvalWaiting', { approval: elicitation }));
	d.apply(ev('approvalResolved', { approval: { ...elicitation, decision: 'deny', decidedBy: 'timeout' } }));
	assert.match(renderItems(d.items), /<span class="decided">declined \(timeout\)<\/span>/);
	const s = new Chat();
	s.apply(ev('approvalWaiting', { approval: elicitation }));
	s.apply(ev('approvalResolved', { approval: { ...elicitation, decision: 'stop', decidedBy: 'user' } }));
	assert.match(renderItems(s.items), /declined, turn stopped/);
});

test('answers are checked against the questions; an error says what is wrong, never the answer', () => {
	const given = {
		db: ['my'],
		envs: ['dev', 'prod'],
		ok: ['true'],
		n: [' 3 '],
		token: [SECRET],
		stray: ['x'],
		...(JSON.parse('{"__proto__": ["y"]}') as object),
	};
	assert.deepEqual(plain(checkAnswers(form, given)), { ok: true, answers: { db: ['my'], envs: ['dev', 'prod'], ok: ['true'], n: ['3'], token: [SECRET] } });
	assert.deepEqual(
		plain(checkAnswers(form, { db: ['Oracle'], token: [SECRET] })),
		{ ok: true, answers: { db: ['Oracle'], token: [SECRET] } },
		'Other takes any text',
	);
	const bad = checkAnswers(form, { db: ['pg', 'my'], envs: ['staging'], ok: ['maybe'], n: ['2.5'], token: ['  '] });
	assert.equal(bad.ok, false);
	assert.deepEqual(!bad.ok && plain(bad.errors), {
		db: 'Give one answer.',
		envs: 'Pick one of the options.',
		ok: 'Pick Yes or No.',
		n: 'Give a whole number, like 3.',
		token: 'An answer is needed.',
	});
	const number: Question[] = [{ id: 'x', text: 'x', type: 'number', secret: true }];
	const wrong = checkAnswers(number, { x: [SECRET] });
	assert.deepEqual(!wrong.ok && plain(wrong.errors), { x: 'Give a number, like 3 or 2.5.' });
	assert.ok(!JSON.stringify(wrong).includes(SECRET));
	assert.equal(checkAnswers(number, { x: ['-1.5e3'] }).ok, true);
});

test("hermes.approve's arguments: Decline and Stop turn send no answers, Submit sends the checked ones", () => {
	const asked = { questions: form };
	assert.deepEqual(approveArgs('a1', asked, { decision: 'deny', answers: { token: [SECRET] } }), { args: { approvalId: 'a1', decision: 'deny' } });
	assert.deepEqual(approveArgs('a1', asked, { decision: 'stop' }), { args: { approvalId: 'a1', decision: 'stop' } });
	const once = approveArgs('a1', asked, { decision: 'once', answers: { db: ['pg'], envs: [], token: [SECRET] } });
	assert.deepEqual(plain(once), { args: { approvalId: 'a1', decision: 'once', answers: { db: ['pg'], token: [SECRET] } } });
	assert.deepEqual(
		approveArgs('u1', { questions: [] }, { decision: 'once' }),
		{ args: { approvalId: 'u1', decision: 'once' } },
		'a link or an empty form: no answers',
	);
	const missing = approveArgs('a1', asked, { decision: 'once', answers: { db: ['pg'] } });
	assert.ok('errors' in missing && missing.errors.token === 'An answer is needed.');
	assert.ok('errors' in approveArgs('a1', asked, { decision: 'session' }));
});

test("the page's answers are read as hostile: lists of strings only, bounded", () => {
	// As the page's JSON would carry it: __proto__ an own key.
	const answers = JSON.parse('{"db": ["pg", 3, null], "n": "x", "__proto__": ["z"]}') as Record<string, unknown>;
	answers.big = ['a'.repeat(70 * 1024)];
	const m = pageMessage({ type: 'answer', id: 'a1', decision: 'once', answers });
	assert.equal(m.type, 'answer');
	assert.equal(Object.getPrototypeOf(m.answers), null, 'an id __proto__ is a key, not a prototype');
	assert.deepEqual(Object.entries(m.answers ?? {}), [
		['db', ['pg']],
		['__proto__', ['z']],
		['big', []],
	]);
	assert.equal(pageMessage({ type: 'answer', answers: ['x'] }).answers, undefined);
	assert.equal(pageMessage(null).type, '');
});

test('a permissions approval says the access it asks for: inline, in the dialog and in the Hermes view', () => {
	const a = approval({
		approvalId: 'p1',
		kind: 'permissions',
		summary: 'more access',
		permissions: { network: true, read: ['/etc/ssl', '/home/u/.cache'], write: ['/home/u/.cache', '/tmp/out'] },
	});
	assert.deepEqual(permissionsWords(a.permissions), ['network access', 'read and write /home/u/.cache', 'read /etc/ssl', 'write /tmp/out']);
	const c = new Chat();
	c.apply(ev('approvalWaiting', { approval: a }));
	assert.match(renderItems(c.items), /⏸ Hermes wants network access; read and write \/home\/u\/\.cache; read \/etc\/ssl; write \/tmp\/out <button/);
	assert.match(renderItems(c.items), /data-decision="deny">Deny<\/button> <button data-approval="p1" data-decision="once">Allow once/);

	const actions = ['Deny', 'Allow once', 'Allow for session', 'Stop turn'].map((title) => ({ title }));
	const vague = withAccess(approvalDialog('Hermes wants more access (approval p1)', actions), a);
	assert.equal(vague.detail, 'Asks for: network access; read and write /home/u/.cache; read /etc/ssl; write /tmp/out');
	const said = approvalDialog('Hermes wants network access, read /etc/ssl and /home/u/.cache, write /home/u/.cache and /tmp/out (approval p1)', actions);
	assert.deepEqual(withAccess(said, a), said, 'a prompt that names it all is left as it is');
	assert.deepEqual(withAccess(said, approval({ kind: 'exec' })), said);

	assert.equal(approvalWords(a), 'Hermes wants network access, read and write /home/u/.cache, read /etc/ssl, write /tmp/out');
	const r = new TurnRenderer();
	assert.match(r.render(ev('approvalWaiting', { approval: a })), /⚠ approval p1: Hermes wants network access/);
	assert.equal(decisionWords({ ...a, decision: 'once' }), 'allowed once');
});

test('the Hermes view says who asks what, and answered or declined, never the answers', () => {
	const r = new TurnRenderer();
	const text = r.render(ev('approvalWaiting', { approval: elicitation }));
	assert.match(text, /⚠ approval a1: MCP server "db-tools" asks: Set up the <database> · Which database\? · .* \(answer in the chat view\)/);
	const done = r.render(
		ev('approvalResolved', { approval: { ...elicitation, decision: 'once', decidedBy: 'user', answers: { db: ['pg'], token: [SECRET] } } }),
	);
	assert.match(done, /✔ approval a1: answered/);
	assert.ok(!done.includes(SECRET) && !done.includes('pg'));
	assert.equal(decisionWords({ ...elicitation, decision: 'deny', decidedBy: 'timeout' }), 'declined (timeout)');
});
