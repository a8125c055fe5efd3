package lsptest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Initialize sends initialize, then initialized, as the profile's editor does: its clientInfo and
// capabilities, the process id, rootUri and rootPath of the first folder, and (when the profile
// advertises workspace folders) every folder as workspaceFolders. folders are paths, made absolute.
// initOptions is sent as initializationOptions (nil sends none). The server's textDocumentSync
// decides from then on which document notifications the editor sends.
func (e *Editor) Initialize(ctx context.Context, folders []string, initOptions any) (*protocol.InitializeResult, error) {
	abs := make([]string, len(folders))
	for i, f := range folders {
		a, err := filepath.Abs(f)
		if err != nil {
			return nil, fmt.Errorf("initialize: folder %q: %w", f, err)
		}
		abs[i] = a
	}
	params := &protocol.InitializeParams{
		ProcessID:             int32(os.Getpid()),
		ClientInfo:            e.profile.ClientInfo,
		Locale:                "en",
		InitializationOptions: initOptions,
		Capabilities:          e.profile.Capabilities,
		Trace:                 protocol.TraceOff,
	}
	if len(abs) > 0 {
		params.RootURI = uri.File(abs[0])
		params.RootPath = abs[0]
	}
	if e.profile.supportsWorkspaceFolders() {
		params.WorkspaceFolders = workspaceFolders(abs)
	}
	var sent any = params
	if e.profile.InlayHintRefresh || e.profile.EditMetadata {
		withNewer, err := withNewerCapabilities(params, e.profile.InlayHintRefresh, e.profile.EditMetadata)
		if err != nil {
			return nil, err
		}
		sent = withNewer
	}
	var raw json.RawMessage
	if err := e.Call(ctx, protocol.MethodInitialize, sent, &raw); err != nil {
		return nil, err
	}
	var res protocol.InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("initialize: decoding the result %s: %w", raw, err)
	}
	so, err := parseSync(raw)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.folders = abs
	e.sync = so
	e.mu.Unlock()
	if err := e.Notify(ctx, protocol.MethodInitialized, &protocol.InitializedParams{}); err != nil {
		return nil, err
	}
	return &res, nil
}

// Shutdown sends shutdown and waits for the answer.
func (e *Editor) Shutdown(ctx context.Context) error {
	return e.Call(ctx, protocol.MethodShutdown, nil, nil)
}

// Exit sends exit. The server is expected to close the connection then: wait on Done.
func (e *Editor) Exit(ctx context.Context) error {
	return e.Notify(ctx, protocol.MethodExit, nil)
}

// ExecuteCommand sends workspace/executeCommand and returns the answer's result as sent. An error
// answer comes back as a *ResponseError; cancelling ctx sends $/cancelRequest (see Call).
func (e *Editor) ExecuteCommand(ctx context.Context, command string, args ...any) (json.RawMessage, error) {
	return e.executeCommand(ctx, &protocol.ExecuteCommandParams{Command: command, Arguments: args})
}

// ExecuteCommandWithToken is ExecuteCommand with token as the workDoneToken: the server may
// report progress on it without creating it (see Progress and CancelProgress).
func (e *Editor) ExecuteCommandWithToken(ctx context.Context, command string, token protocol.ProgressToken, args ...any) (json.RawMessage, error) {
	e.mu.Lock()
	e.state.acceptedTokens[token] = true
	e.mu.Unlock()
	params := &protocol.ExecuteCommandParams{Command: command, Arguments: args}
	params.WorkDoneToken = &token
	return e.executeCommand(ctx, params)
}

// executeCommand sends workspace/executeCommand.
func (e *Editor) executeCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := e.Call(ctx, protocol.MethodWorkspaceExecuteCommand, params, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// CodeActions sends textDocument/codeAction for the file at path and returns the actions. A bare
// Command in the answer comes back as a CodeAction with only Title and Command set.
func (e *Editor) CodeActions(ctx context.Context, path string, rng protocol.Range, diags []protocol.Diagnostic) ([]protocol.CodeAction, error) {
	if diags == nil {
		diags = []protocol.Diagnostic{} // the protocol requires the array
	}
	params := &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)},
		Range:        rng,
		Context:      protocol.CodeActionContext{Diagnostics: diags},
	}
	var raws []json.RawMessage
	if err := e.Call(ctx, protocol.MethodTextDocumentCodeAction, params, &raws); err != nil {
		return nil, err
	}
	actions := make([]protocol.CodeAction, 0, len(raws))
	for _, raw := range raws {
		var probe struct {
			Command json.RawMessage `json:"command"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, fmt.Errorf("%s: decoding %s: %w", protocol.MethodTextDocumentCodeAction, raw, err)
		}
		if len(probe.Command) > 0 && probe.Command[0] == '"' {
			var cmd protocol.Command
			if err := json.Unmarshal(raw, &cmd); err != nil {
				return nil, fmt.Errorf("%s: decoding the command %s: %w", protocol.MethodTextDocumentCodeAction, raw, err)
			}
			actions = append(actions, protocol.CodeAction{Title: cmd.Title, Command: &cmd})
			continue
		}
		var a protocol.CodeAction
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s: decoding the action %s: %w", protocol.MethodTextDocumentCodeAction, raw, err)
		}
		actions = append(actions, a)
	}
	return actions, nil
}

// ChangeConfiguration sends workspace/didChangeConfiguration with settings (null when nil, as
// editors that expect the server to pull with workspace/configuration do).
func (e *Editor) ChangeConfiguration(ctx context.Context, settings any) error {
	return e.Notify(ctx, protocol.MethodWorkspaceDidChangeConfiguration, &struct {
		Settings any `json:"settings"`
	}{settings})
}

// AddFolder adds a workspace folder and sends workspace/didChangeWorkspaceFolders. It fails when
// the profile does not advertise workspace folders, or the folder is there already.
func (e *Editor) AddFolder(ctx context.Context, path string) error {
	return e.changeFolder(ctx, path, true)
}

// RemoveFolder removes a workspace folder and sends workspace/didChangeWorkspaceFolders. It fails
// when the profile does not advertise workspace folders, or the folder is not there.
func (e *Editor) RemoveFolder(ctx context.Context, path string) error {
	return e.changeFolder(ctx, path, false)
}

// changeFolder adds or removes a workspace folder.
func (e *Editor) changeFolder(ctx context.Context, path string, add bool) error {
	method := protocol.MethodWorkspaceDidChangeWorkspaceFolders
	if !e.profile.supportsWorkspaceFolders() {
		return fmt.Errorf("%s: profile %s does not advertise workspace folders", method, e.profile.Name)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	ev := protocol.WorkspaceFoldersChangeEvent{Added: []protocol.WorkspaceFolder{}, Removed: []protocol.WorkspaceFolder{}}
	e.mu.Lock()
	i := slices.Index(e.folders, abs)
	switch {
	case add && i >= 0:
		e.mu.Unlock()
		return fmt.Errorf("%s: %s is a workspace folder already", method, abs)
	case !add && i < 0:
		e.mu.Unlock()
		return fmt.Errorf("%s: %s is not a workspace folder", method, abs)
	case add:
		e.folders = append(e.folders, abs)
		ev.Added = workspaceFolders([]string{abs})
	default:
		e.folders = slices.Delete(slices.Clone(e.folders), i, i+1)
		ev.Removed = workspaceFolders([]string{abs})
	}
	e.mu.Unlock()
	return e.Notify(ctx, method, &protocol.DidChangeWorkspaceFoldersParams{Event: ev})
}

// Folders returns the workspace folders, as absolute paths.
func (e *Editor) Folders() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.folders)
}

// workspaceFoldersLocked is the answer to workspace/workspaceFolders: null without folders.
func (e *Editor) workspaceFoldersLocked() any {
	if len(e.folders) == 0 {
		return nil
	}
	return workspaceFolders(e.folders)
}

// workspaceFolders turns paths into workspace folders named by their base name, as editors do.
func workspaceFolders(paths []string) []protocol.WorkspaceFolder {
	out := make([]protocol.WorkspaceFolder, len(paths))
	for i, p := range paths {
		out[i] = protocol.WorkspaceFolder{URI: string(uri.File(p)), Name: filepath.Base(p)}
	}
	return out
}

// CancelProgress sends window/workDoneProgress/cancel for token, as an editor does when the user
// clicks the cancel button of a progress. Like the user, it needs the button: it fails unless the
// token's progress has begun with cancellable set and has not ended, and when the profile never
// sends the notification (Helix2501, Eglot). Send it with Notify to bypass the checks.
func (e *Editor) CancelProgress(ctx context.Context, token protocol.ProgressToken) error {
	method := protocol.MethodWorkDoneProgressCancel
	if e.profile.NoProgressCancel {
		return fmt.Errorf("%s: profile %s never sends it", method, e.profile.Name)
	}
	e.mu.Lock()
	evs := e.state.Progress[token]
	e.mu.Unlock()
	switch {
	case len(evs) == 0 || evs[0].Kind != protocol.WorkDoneProgressKindBegin:
		return fmt.Errorf("%s: progress %q has not begun", method, token)
	case !evs[0].Cancellable:
		return fmt.Errorf("%s: progress %q is not cancellable", method, token)
	case evs[len(evs)-1].Kind == protocol.WorkDoneProgressKindEnd:
		return fmt.Errorf("%s: progress %q has ended", method, token)
	}
	return e.Notify(ctx, protocol.MethodWorkDoneProgressCancel, &protocol.WorkDoneProgressCancelParams{Token: token})
}

// methodInlayHintRefresh is LSP 3.17's workspace/inlayHint/refresh.
const methodInlayHintRefresh = "workspace/inlayHint/refresh"

// withNewerCapabilities is params as JSON with the capabilities of LSP versions newer than
// protocol v0.12.0 knows: workspace.inlayHint.refreshSupport (3.17) when inlay is set,
// workspace.workspaceEdit.metadataSupport (3.18) when metadata is set.
func withNewerCapabilities(params *protocol.InitializeParams, inlay, metadata bool) (map[string]any, error) {
	data, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	caps, _ := m["capabilities"].(map[string]any)
	if caps == nil {
		caps = map[string]any{}
		m["capabilities"] = caps
	}
	ws, _ := caps["workspace"].(map[string]any)
	if ws == nil {
		ws = map[string]any{}
		caps["workspace"] = ws
	}
	if inlay {
		ws["inlayHint"] = map[string]any{"refreshSupport": true}
	}
	if metadata {
		we, _ := ws["workspaceEdit"].(map[string]any)
		if we == nil {
			we = map[string]any{}
			ws["workspaceEdit"] = we
		}
		we["metadataSupport"] = true
	}
	return m, nil
}
