package lsptest

import (
	"encoding/json"

	"go.lsp.dev/protocol"
)

// Answer says how an editor answers one kind of server->client request.
type Answer int

const (
	// AnswerNormal answers the way an editor that supports the request does: see each Profile field
	// for what that is. It is the zero value.
	AnswerNormal Answer = iota
	// AnswerNull answers with a null result.
	AnswerNull
	// AnswerMethodNotFound answers with JSON-RPC error -32601 (method not found).
	AnswerMethodNotFound
	// AnswerInternalError answers with JSON-RPC error -32603 (internal error).
	AnswerInternalError
	// AnswerNever never answers. The request stays pending until the server cancels it with
	// $/cancelRequest (answered with -32800, request cancelled) or the editor closes.
	AnswerNever
)

// String returns the constant's name.
func (a Answer) String() string {
	switch a {
	case AnswerNormal:
		return "AnswerNormal"
	case AnswerNull:
		return "AnswerNull"
	case AnswerMethodNotFound:
		return "AnswerMethodNotFound"
	case AnswerInternalError:
		return "AnswerInternalError"
	case AnswerNever:
		return "AnswerNever"
	}
	return "Answer(?)"
}

// Profile describes an editor: what it advertises in initialize and how it answers the requests a
// server sends it. Whatever the answer, the Editor records every request and notification it
// receives (see State).
//
// The profile variables share their capability pointers: to change a profile, start from
// Clone (p := lsptest.VSCode.Clone()) and modify the copy.
type Profile struct {
	// Name names the profile in errors and summaries.
	Name string
	// ClientInfo is sent in initialize (nil sends none).
	ClientInfo *protocol.ClientInfo
	// Capabilities is what initialize advertises. Capabilities.Workspace.WorkspaceFolders also
	// decides whether initialize sends workspaceFolders and whether AddFolder/RemoveFolder work.
	Capabilities protocol.ClientCapabilities

	// WorkDoneProgressCreate answers window/workDoneProgress/create. Normal: null.
	WorkDoneProgressCreate Answer
	// ShowMessageRequest answers window/showMessageRequest. Normal: the OnShowMessageRequest hook,
	// whose default dismisses the message (null).
	ShowMessageRequest Answer
	// ShowDocument answers window/showDocument. Normal: {"success": true}.
	ShowDocument Answer
	// Configuration answers workspace/configuration. Normal: one value per item, from
	// SetConfiguration (null for sections never set).
	Configuration Answer
	// ApplyEdit answers workspace/applyEdit. Normal: {"applied": true}. The edit is recorded, not
	// applied to the editor's buffers.
	ApplyEdit Answer
	// RegisterCapability answers client/registerCapability and client/unregisterCapability.
	// Normal: null.
	RegisterCapability Answer
	// InlayHintRefresh advertises workspace.inlayHint.refreshSupport (LSP 3.17, which
	// protocol v0.12.0's capabilities cannot hold) and answers workspace/inlayHint/refresh with null.
	InlayHintRefresh bool
	// EditMetadata advertises workspace.workspaceEdit.metadataSupport (LSP 3.18, which protocol
	// v0.12.0's capabilities cannot hold either).
	EditMetadata bool
	// RejectsEditMetadata answers a workspace/applyEdit that has a metadata member with -32603, as
	// eglot 1.9 does (its handler takes label and edit only).
	RejectsEditMetadata bool

	// NoCancelRequest says the editor never sends $/cancelRequest: a Call whose ctx ends gives up
	// without telling the server, and Pending.Cancel fails.
	NoCancelRequest bool
	// NoProgressCancel says the editor never sends window/workDoneProgress/cancel: CancelProgress
	// fails.
	NoProgressCancel bool
}

// Clone returns a deep copy of p, safe to modify.
func (p Profile) Clone() Profile {
	q := p
	if p.ClientInfo != nil {
		ci := *p.ClientInfo
		q.ClientInfo = &ci
	}
	// A JSON round trip is the one deep copy that covers every nested capability type.
	data, err := json.Marshal(p.Capabilities)
	if err != nil {
		panic("lsptest: cloning capabilities: " + err.Error())
	}
	q.Capabilities = protocol.ClientCapabilities{}
	if err := json.Unmarshal(data, &q.Capabilities); err != nil {
		panic("lsptest: cloning capabilities: " + err.Error())
	}
	return q
}

// supportsWorkspaceFolders reports whether the profile advertises workspace folders.
func (p Profile) supportsWorkspaceFolders() bool {
	return p.Capabilities.Workspace != nil && p.Capabilities.Workspace.WorkspaceFolders
}

// additionalPropertiesSupport reports whether the profile sends back the chosen action item of a
// showMessageRequest with every property the server gave it.
func (p Profile) additionalPropertiesSupport() bool {
	w := p.Capabilities.Window
	return w != nil && w.ShowMessage != nil && w.ShowMessage.MessageActionItem != nil &&
		w.ShowMessage.MessageActionItem.AdditionalPropertiesSupport
}

// Editor profiles: what each of these editor versions advertises in initialize and how it answers
// the server's requests (the real editors run under editors/: code-server, headless Neovim, Helix in
// tmux, Emacs in batch). The capabilities are the ones that matter to hermes-lsp (window, workspace,
// text synchronization and code actions), not a full copy of each editor's initialize request.
var (
	// VSCode is VS Code 1.139 with vscode-languageclient 11: it supports everything. showMessageRequest
	// is a toast whose buttons send back the whole action item (additionalPropertiesSupport);
	// dismissing it answers null.
	VSCode = Profile{
		Name:             "VSCode",
		InlayHintRefresh: true,
		EditMetadata:     true,
		ClientInfo:       &protocol.ClientInfo{Name: "Visual Studio Code", Version: "1.139.0"},
		Capabilities: protocol.ClientCapabilities{
			Window: &protocol.WindowClientCapabilities{
				WorkDoneProgress: true,
				ShowMessage: &protocol.ShowMessageRequestClientCapabilities{
					MessageActionItem: &protocol.ShowMessageRequestClientCapabilitiesMessageActionItem{
						AdditionalPropertiesSupport: true,
					},
				},
				ShowDocument: &protocol.ShowDocumentClientCapabilities{Support: true},
			},
			Workspace: &protocol.WorkspaceClientCapabilities{
				ApplyEdit: true,
				WorkspaceEdit: &protocol.WorkspaceClientCapabilitiesWorkspaceEdit{
					DocumentChanges:       true,
					FailureHandling:       "textOnlyTransactional",
					ResourceOperations:    []string{"create", "rename", "delete"},
					NormalizesLineEndings: true,
					ChangeAnnotationSupport: &protocol.WorkspaceClientCapabilitiesWorkspaceEditChangeAnnotationSupport{
						GroupsOnLabel: true,
					},
				},
				DidChangeConfiguration: &protocol.DidChangeConfigurationWorkspaceClientCapabilities{DynamicRegistration: true},
				ExecuteCommand:         &protocol.ExecuteCommandClientCapabilities{DynamicRegistration: true},
				WorkspaceFolders:       true,
				Configuration:          true,
			},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization: &protocol.TextDocumentSyncClientCapabilities{
					DynamicRegistration: true, WillSave: true, WillSaveWaitUntil: true, DidSave: true,
				},
				CodeAction: &protocol.CodeActionClientCapabilities{
					DynamicRegistration: true,
					CodeActionLiteralSupport: &protocol.CodeActionClientCapabilitiesLiteralSupport{
						CodeActionKind: &protocol.CodeActionClientCapabilitiesKind{ValueSet: allCodeActionKinds()},
					},
					IsPreferredSupport:      true,
					DisabledSupport:         true,
					DataSupport:             true,
					ResolveSupport:          &protocol.CodeActionClientCapabilitiesResolveSupport{Properties: []string{"edit"}},
					HonorsChangeAnnotations: true,
				},
			},
		},
	}

	// Neovim07 is Neovim 0.7.2 (Debian bookworm) with its stock handlers: progress and
	// showMessageRequest are supported, window/showDocument is not (answered with -32601).
	// The stock showMessageRequest handler calls inputlist() and blocks forever in a headless
	// editor; the profile dismisses instead: set ShowMessageRequest to AnswerNever to model the hang.
	Neovim07 = Profile{
		Name:       "Neovim07",
		ClientInfo: &protocol.ClientInfo{Name: "Neovim", Version: "0.7.2"},
		Capabilities: protocol.ClientCapabilities{
			Window: &protocol.WindowClientCapabilities{
				WorkDoneProgress: true,
				ShowMessage: &protocol.ShowMessageRequestClientCapabilities{
					MessageActionItem: &protocol.ShowMessageRequestClientCapabilitiesMessageActionItem{
						AdditionalPropertiesSupport: false,
					},
				},
			},
			Workspace: &protocol.WorkspaceClientCapabilities{
				ApplyEdit: true,
				WorkspaceEdit: &protocol.WorkspaceClientCapabilitiesWorkspaceEdit{
					ResourceOperations: []string{"rename", "create", "delete"},
				},
				DidChangeConfiguration: &protocol.DidChangeConfigurationWorkspaceClientCapabilities{DynamicRegistration: false},
				WorkspaceFolders:       true,
				Configuration:          true,
			},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization: &protocol.TextDocumentSyncClientCapabilities{WillSave: true, WillSaveWaitUntil: true, DidSave: true},
				CodeAction: &protocol.CodeActionClientCapabilities{
					CodeActionLiteralSupport: &protocol.CodeActionClientCapabilitiesLiteralSupport{
						CodeActionKind: &protocol.CodeActionClientCapabilitiesKind{ValueSet: allCodeActionKinds()},
					},
					DataSupport:    true,
					ResolveSupport: &protocol.CodeActionClientCapabilitiesResolveSupport{Properties: []string{"edit"}},
				},
			},
		},
		ShowDocument: AnswerMethodNotFound,
	}

	// Helix2501 is Helix 25.01: progress shows as a spinner only, window/showMessageRequest is answered
	// with -32601, window/showDocument works though it is not advertised, and workspace/configuration
	// is answered with null. It never sends $/cancelRequest nor window/workDoneProgress/cancel (it
	// gives up on a request after 20 s without telling the server: model that with a ctx timeout).
	Helix2501 = Profile{
		Name:       "Helix2501",
		ClientInfo: &protocol.ClientInfo{Name: "helix", Version: "25.01"},
		Capabilities: protocol.ClientCapabilities{
			Window: &protocol.WindowClientCapabilities{WorkDoneProgress: true},
			Workspace: &protocol.WorkspaceClientCapabilities{
				ApplyEdit: true,
				WorkspaceEdit: &protocol.WorkspaceClientCapabilitiesWorkspaceEdit{
					DocumentChanges:       true,
					FailureHandling:       "abort",
					ResourceOperations:    []string{"create", "rename", "delete"},
					NormalizesLineEndings: false,
				},
				DidChangeConfiguration: &protocol.DidChangeConfigurationWorkspaceClientCapabilities{DynamicRegistration: false},
				ExecuteCommand:         &protocol.ExecuteCommandClientCapabilities{DynamicRegistration: false},
				WorkspaceFolders:       true,
				Configuration:          true,
			},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				CodeAction: &protocol.CodeActionClientCapabilities{
					CodeActionLiteralSupport: &protocol.CodeActionClientCapabilitiesLiteralSupport{
						CodeActionKind: &protocol.CodeActionClientCapabilitiesKind{ValueSet: allCodeActionKinds()},
					},
					IsPreferredSupport: true,
					DisabledSupport:    true,
					DataSupport:        true,
					ResolveSupport:     &protocol.CodeActionClientCapabilitiesResolveSupport{Properties: []string{"edit", "command"}},
				},
			},
		},
		ShowMessageRequest: AnswerMethodNotFound,
		Configuration:      AnswerNull,
		NoCancelRequest:    true,
		NoProgressCancel:   true,
	}

	// Eglot is Emacs 28 with eglot 1.9 in batch mode: no window capabilities at all, so
	// window/workDoneProgress/create is refused (-32601) and $/progress is ignored (the Editor
	// still records it), and there is no progress to cancel; window/showMessageRequest fails with
	// -32603; window/showDocument answers null. It advertises no workspace folders, so initialize
	// sends rootUri only. Its workspace/applyEdit fails with -32603 on a metadata member.
	Eglot = Profile{
		Name:       "Eglot",
		ClientInfo: nil,
		Capabilities: protocol.ClientCapabilities{
			Workspace: &protocol.WorkspaceClientCapabilities{
				ApplyEdit:     true,
				WorkspaceEdit: &protocol.WorkspaceClientCapabilitiesWorkspaceEdit{DocumentChanges: true},
				Configuration: true,
			},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization: &protocol.TextDocumentSyncClientCapabilities{WillSave: true, WillSaveWaitUntil: true, DidSave: true},
				CodeAction: &protocol.CodeActionClientCapabilities{
					CodeActionLiteralSupport: &protocol.CodeActionClientCapabilitiesLiteralSupport{
						CodeActionKind: &protocol.CodeActionClientCapabilitiesKind{ValueSet: allCodeActionKinds()},
					},
					IsPreferredSupport: true,
				},
			},
		},
		WorkDoneProgressCreate: AnswerMethodNotFound,
		ShowMessageRequest:     AnswerInternalError,
		ShowDocument:           AnswerNull,
		RejectsEditMetadata:    true,
		NoProgressCancel:       true,
	}

	// LspMode8 is Emacs 28 with lsp-mode 8.0 and hermes-lsp.el (editors/emacs), as a person uses
	// it: clientInfo "emacs"; window.workDoneProgress but window.showMessage and
	// window.showDocument null, though it answers window/showMessageRequest (hermes-lsp.el's
	// handler: a choice, or null when dismissed with C-g) and answers window/showDocument with null
	// (an unknown request); no workspaceEdit.metadataSupport. hermes-lsp.el declares
	// experimental.hermes.emacs and reloadsBuffers (it turns on auto-revert in the buffers hermes-lsp
	// serves).
	LspMode8 = Profile{
		Name:       "LspMode8",
		ClientInfo: &protocol.ClientInfo{Name: "emacs", Version: "GNU Emacs 28.2"},
		Capabilities: protocol.ClientCapabilities{
			Window: &protocol.WindowClientCapabilities{WorkDoneProgress: true},
			Workspace: &protocol.WorkspaceClientCapabilities{
				ApplyEdit: true,
				WorkspaceEdit: &protocol.WorkspaceClientCapabilitiesWorkspaceEdit{
					DocumentChanges:    true,
					ResourceOperations: []string{"create", "rename", "delete"},
				},
				ExecuteCommand:   &protocol.ExecuteCommandClientCapabilities{DynamicRegistration: false},
				WorkspaceFolders: true,
				Configuration:    true,
			},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization: &protocol.TextDocumentSyncClientCapabilities{WillSave: true, WillSaveWaitUntil: true, DidSave: true},
				CodeAction: &protocol.CodeActionClientCapabilities{
					DynamicRegistration: true,
					CodeActionLiteralSupport: &protocol.CodeActionClientCapabilitiesLiteralSupport{
						CodeActionKind: &protocol.CodeActionClientCapabilitiesKind{ValueSet: allCodeActionKinds()},
					},
					IsPreferredSupport: true,
					DataSupport:        true,
					ResolveSupport:     &protocol.CodeActionClientCapabilitiesResolveSupport{Properties: []string{"edit", "command"}},
				},
			},
			Experimental: map[string]any{"hermes": map[string]any{"emacs": true, "reloadsBuffers": true}},
		},
		ShowDocument:     AnswerNull,
		NoProgressCancel: true,
	}

	// Eglot19 is Emacs 28 with eglot 1.9 and hermes-lsp.el, as a person uses it: no clientInfo;
	// hermes-lsp.el's server class adds window.workDoneProgress (its progress shows in the mode
	// line) and experimental.hermes.emacs and reloadsBuffers to eglot's own capabilities, and
	// answers window/showMessageRequest (a choice, or null when dismissed with C-g). No
	// window.showMessage, no workspaceEdit.metadataSupport: workspace/applyEdit fails with -32603
	// on a metadata member; window/showDocument is answered null (an unknown request).
	Eglot19 = Profile{
		Name: "Eglot19",
		Capabilities: protocol.ClientCapabilities{
			Window: &protocol.WindowClientCapabilities{WorkDoneProgress: true},
			Workspace: &protocol.WorkspaceClientCapabilities{
				ApplyEdit:        true,
				WorkspaceEdit:    &protocol.WorkspaceClientCapabilitiesWorkspaceEdit{DocumentChanges: true},
				ExecuteCommand:   &protocol.ExecuteCommandClientCapabilities{DynamicRegistration: false},
				WorkspaceFolders: true,
				Configuration:    true,
			},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization: &protocol.TextDocumentSyncClientCapabilities{WillSave: true, WillSaveWaitUntil: true, DidSave: true},
				CodeAction: &protocol.CodeActionClientCapabilities{
					CodeActionLiteralSupport: &protocol.CodeActionClientCapabilitiesLiteralSupport{
						CodeActionKind: &protocol.CodeActionClientCapabilitiesKind{ValueSet: allCodeActionKinds()},
					},
					IsPreferredSupport: true,
				},
			},
			Experimental: map[string]any{"hermes": map[string]any{"emacs": true, "reloadsBuffers": true}},
		},
		ShowDocument:        AnswerNull,
		RejectsEditMetadata: true,
		NoProgressCancel:    true,
	}
)

// allCodeActionKinds is the code action kinds every profile accepts.
func allCodeActionKinds() []protocol.CodeActionKind {
	return []protocol.CodeActionKind{
		protocol.QuickFix, protocol.Refactor, protocol.RefactorExtract, protocol.RefactorInline,
		protocol.RefactorRewrite, protocol.Source, protocol.SourceOrganizeImports,
	}
}
