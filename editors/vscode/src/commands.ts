// The extension's command ids and palette titles. No vscode import.
//
// vscode-languageclient registers the server's command ids (`hermes.ask`, `hermes.cancel`, …, from
// its executeCommandProvider) as VS Code commands itself, so the extension's own ids must differ:
// they live under `hermes-vscode.` and call the server's commands through workspace/executeCommand.

export const Command = {
	ask: 'hermes-vscode.ask',
	askSelection: 'hermes-vscode.askSelection',
	stop: 'hermes-vscode.stop',
	newThread: 'hermes-vscode.newThread',
	compact: 'hermes-vscode.compact',
	showTranscript: 'hermes-vscode.showTranscript',
	toggleYolo: 'hermes-vscode.toggleYolo',
	status: 'hermes-vscode.status',
	restart: 'hermes-vscode.restart',
	undoTurn: 'hermes-vscode.undoTurn',
	review: 'hermes-vscode.review',
	dismissFindings: 'hermes-vscode.dismissFindings',
	openChat: 'hermes-vscode.openChat',
	answerApproval: 'hermes-vscode.answerApproval',
	signIn: 'hermes-vscode.signIn',
	installCodex: 'hermes-vscode.installCodex',
	threads: 'hermes-vscode.threads',
	model: 'hermes-vscode.model',
	nextChange: 'hermes-vscode.nextChange',
	previousChange: 'hermes-vscode.previousChange',
	keepChange: 'hermes-vscode.keepChange',
	revertChange: 'hermes-vscode.revertChange',
	showChanges: 'hermes-vscode.showChanges',
	keepFile: 'hermes-vscode.keepFile',
	revertFile: 'hermes-vscode.revertFile',
} as const;

/** The palette titles ("Hermes: " + title), as package.json contributes them. */
export const Titles: Record<keyof typeof Command, string> = {
	ask: 'Ask…',
	askSelection: 'Ask About Selection',
	stop: 'Stop Turn',
	newThread: 'New Thread',
	compact: 'Compact',
	showTranscript: 'Show Transcript',
	toggleYolo: 'Toggle Auto-approve',
	status: 'Show Status',
	restart: 'Restart Server',
	undoTurn: 'Undo Last Turn',
	review: 'Review Changes',
	dismissFindings: 'Dismiss Review Findings',
	openChat: 'Open Chat',
	answerApproval: 'Answer Approval…',
	signIn: 'Sign In',
	installCodex: 'Install Codex',
	threads: 'Threads…',
	model: 'Model…',
	nextChange: 'Next Change',
	previousChange: 'Previous Change',
	keepChange: 'Keep Change',
	revertChange: 'Revert Change',
	showChanges: 'Show Agent Changes',
	keepFile: 'Keep Changes in File',
	revertFile: 'Revert Changes in File',
};
