// The server's workspace/applyEdit requests: which documents an edit changes. No vscode import.

import type { WorkspaceEdit } from 'vscode-languageclient';

/**
 * editedDocuments lists, once each, the URIs of the documents a workspace edit changes the text of
 * (its `changes` and the text edits of its `documentChanges`; not the files it creates, renames or
 * deletes).
 */
export function editedDocuments(edit: WorkspaceEdit | undefined): string[] {
	const out = new Set<string>(Object.keys(edit?.changes ?? {}));
	for (const c of edit?.documentChanges ?? []) {
		if ('textDocument' in c && 'edits' in c) {
			out.add(c.textDocument.uri);
		}
	}
	return [...out];
}
