import assert from 'node:assert/strict';
import { test } from 'node:test';

import { editedDocuments } from '../src/edits';

const edit = { range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } }, newText: 'x\n' };

test('editedDocuments: the documents whose text an edit changes, once each, not the files it creates or deletes', () => {
	assert.deepEqual(editedDocuments(undefined), []);
	assert.deepEqual(editedDocuments({ changes: { 'file:///w/a.txt': [edit] } }), ['file:///w/a.txt']);
	// The shape of hermes.undoTurn's edits: a versioned text edit, or a file to delete or create first.
	assert.deepEqual(
		editedDocuments({
			documentChanges: [
				{ textDocument: { uri: 'file:///w/hello.txt', version: 3 }, edits: [edit] },
				{ kind: 'delete', uri: 'file:///w/new.txt', options: { ignoreIfNotExists: true } },
				{ kind: 'create', uri: 'file:///w/gone.txt', options: { ignoreIfExists: true } },
				{ textDocument: { uri: 'file:///w/gone.txt', version: null }, edits: [edit] },
				{ textDocument: { uri: 'file:///w/hello.txt', version: 3 }, edits: [edit] },
			],
		}),
		['file:///w/hello.txt', 'file:///w/gone.txt'],
	);
});
