package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/agenthost/acpagent"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
	"github.com/hermes-lsp/hermes-lsp/lsp/gate"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// initializeParams is what the server reads of initialize, decoded leniently: editors differ in
// what they send (null processId, rootPath without rootUri, no workspaceFolders).
type initializeParams struct {
	ClientInfo *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	RootPath              string                      `json:"rootPath"`
	RootURI               string                      `json:"rootUri"`
	InitializationOptions json.RawMessage             `json:"initializationOptions"`
	Capabilities          protocol.ClientCapabilities `json:"capabilities"`
	WorkspaceFolders      []protocol.WorkspaceFolder  `json:"workspaceFolders"`
	WorkDoneToken         *protocol.ProgressToken     `json:"workDoneToken"`

	// inlayHintRefresh is workspace.inlayHint.refreshSupport and editMetadata
	// workspace.workspaceEdit.metadataSupport, which protocol v0.12.0's ClientCapabilities lacks;
	// decoded apart (decodeInitialize).
	inlayHintRefresh bool
	editMetadata     bool
}

// decodeInitialize decodes initialize's params, with what protocol v0.12.0 cannot hold.
func decodeInitialize(raw []byte, p *initializeParams) error {
	if err := json.Unmarshal(raw, p); err != nil {
		return err
	}
	var extra struct {
		Capabilities struct {
			Workspace struct {
				InlayHint struct {
					RefreshSupport bool `json:"refreshSupport"`
				} `json:"inlayHint"`
				WorkspaceEdit struct {
					MetadataSupport bool `json:"metadataSupport"`
				} `json:"workspaceEdit"`
			} `json:"workspace"`
		} `json:"capabilities"`
	}
	_ = json.Unmarshal(raw, &extra) // the same JSON: a type mismatch here was refused above or is ignorable
	p.inlayHintRefresh = extra.Capabilities.Workspace.InlayHint.RefreshSupport
	p.editMetadata = extra.Capabilities.Workspace.WorkspaceEdit.MetadataSupport
	return nil
}

// readCaps reads what the editor can do from its initialize params.
func readCaps(p *initializeParams) editor.Caps {
	c := editor.Caps{}
	if p.ClientInfo != nil {
		c.Name = p.ClientInfo.Name
	}
	if w := p.Capabilities.Window; w != nil {
		c.WorkDoneProgress = w.WorkDoneProgress
		c.ShowMessage = w.ShowMessage != nil
		c.ActionProps = w.ShowMessage != nil && w.ShowMessage.MessageActionItem != nil && w.ShowMessage.MessageActionItem.AdditionalPropertiesSupport
		c.ShowDocument = w.ShowDocument != nil && w.ShowDocument.Support
	}
	if ws := p.Capabilities.Workspace; ws != nil {
		c.ApplyEdit = ws.ApplyEdit
		c.WorkspaceFolders = ws.WorkspaceFolders
		c.Configuration = ws.Configuration
		if ws.WorkspaceEdit != nil {
			c.ResourceOps = ws.WorkspaceEdit.ResourceOperations
		}
	}
	if td := p.Capabilities.TextDocument; td != nil && td.Hover != nil && len(td.Hover.ContentFormat) > 0 {
		c.PlainHover = !slices.Contains(td.Hover.ContentFormat, protocol.Markdown)
	}
	c.ReloadsBuffers = isVSCode(c.Name) || experimentalFlag(p.Capabilities.Experimental, "reloadsBuffers")
	c.SavesUndoEdits = experimentalFlag(p.Capabilities.Experimental, "savesUndoEdits")
	c.ReloadByHand = strings.EqualFold(c.Name, "helix")
	c.InlayHintRefresh = p.inlayHintRefresh
	c.ShowsTurns = experimentalFlag(p.Capabilities.Experimental, "showsTurns")
	c.EditMetadata = p.editMetadata
	c.Emacs = c.Name == "emacs" || experimentalFlag(p.Capabilities.Experimental, "emacs")
	c.AsksQuestions = experimentalFlag(p.Capabilities.Experimental, "asksQuestions")
	c.ThreadPicker = isVSCode(c.Name) || experimentalFlag(p.Capabilities.Experimental, "threadPicker")
	c.PlainMessages = !isVSCode(c.Name)
	c.ShowsResults = c.ThreadPicker || experimentalFlag(p.Capabilities.Experimental, "showsResults")
	return c
}

// isVSCode reports whether the client is VS Code or one of its builds (code-server, VSCodium),
// which reload a clean editor whose file changed on disk.
func isVSCode(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "visual studio code") || strings.Contains(n, "code-server") || strings.Contains(n, "vscodium")
}

// experimentalFlag reads experimental.hermes.<key> of the client's capabilities: true only when it
// is the JSON true.
func experimentalFlag(experimental any, key string) bool {
	m, _ := experimental.(map[string]any)
	h, _ := m["hermes"].(map[string]any)
	v, _ := h[key].(bool)
	return v
}

func (s *Server) initialize(ctx context.Context, p *initializeParams) (any, error) {
	folders, err := workspace.FoldersFromInitialize(p.WorkspaceFolders, p.RootURI, p.RootPath)
	if err != nil {
		s.log.Warn("workspace folders", "err", err)
	}
	st := settings.Default()
	var warn []string
	if len(p.InitializationOptions) > 0 && string(p.InitializationOptions) != "null" {
		st, warn, err = settings.ParseWithMinTurn(gate.WithoutToken(p.InitializationOptions), st, minTurnTimeoutSeconds(s.opts))
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "hermes settings in initializationOptions: %v", err)
		}
	}
	for _, w := range warn {
		s.log.Warn(w)
	}
	caps := readCaps(p)
	if !st.OpenTranscriptSet() {
		// Helix opens a shown document in the current view whatever takeFocus says: the transcript
		// would replace the user's file after every turn.
		st.OpenTranscript = caps.ShowDocument && !strings.EqualFold(caps.Name, "helix")
	}

	host, err := agenthost.New(s.hostConfig(st))
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "hermes settings: %v", err)
	}

	s.editor.SetCaps(caps)
	s.settings.Store(&st)
	s.host.Store(host)
	for _, f := range folders {
		if err := s.folders.Add(f); err != nil {
			s.log.Warn("ignored a workspace folder", "folder", f.Path, "err", err)
		}
	}
	s.conn.move(stateInitialized)
	s.log.Info("initialized", "client", caps.Name, "folders", len(folders), "progress", caps.WorkDoneProgress,
		"showMessageRequest", caps.ShowMessage, "showDocument", caps.ShowDocument)

	commands := make([]string, 0, len(commandNames))
	for _, c := range commandNames {
		commands = append(commands, st.CommandPrefix+c)
	}
	version := s.opts.Version
	if version == "" {
		version = "dev"
	}
	return initializeResult(commands, version), nil
}

// initialized fetches the configuration the editor keeps (when it can tell) and prewarms codex.
func (s *Server) initialized() {
	refresh := s.editor.Caps().InlayHintRefresh
	if refresh {
		s.goAsync("inlay hint refresh", s.lines.RefreshLoop)
	}
	s.goAsync("edited documents", s.edits.Run)
	s.goAsync("memory", s.turns.releaseLoop)
	if s.host.Load() != nil {
		s.goAsync("review findings", func(ctx context.Context) { s.reviews.LoadSaved(ctx, s.folders.List()) })
		s.goAsync("changes under review", func(ctx context.Context) { s.changes.LoadSaved(ctx, s.folders.List()) })
	}
	s.goAsync("initialized", func(ctx context.Context) {
		canAsk := s.editor.Caps().Configuration
		if canAsk {
			s.pullConfiguration(ctx)
		}
		for _, w := range s.opts.Warnings {
			s.editor.ShowMessage(ctx, protocol.MessageTypeWarning, "Hermes: "+w)
		}
		s.approvals.WarnAuto(ctx)
		prewarm := s.settings.Load().Prewarm
		host := s.host.Load()
		if prewarm && host != nil {
			if err := host.Prewarm(ctx); err != nil {
				s.editor.ShowMessage(ctx, protocol.MessageTypeError, "Hermes could not start codex: "+err.Error())
				return
			}
			// Each folder's thread too, so that the first prompt is one turn/start.
			for _, f := range s.folders.List() {
				if sess, err := host.Session(f.Path); err == nil {
					if err := sess.Warm(ctx); err != nil {
						s.log.Info("could not load the folder's thread ahead", "folder", f.Path, "err", err)
					} else {
						s.log.Info("loaded the folder's thread ahead", "folder", f.Path)
					}
				}
			}
		}
	})
}

// didChangeFolders adds and removes workspace folders; a removed folder's turn is interrupted.
func (s *Server) didChangeFolders(p protocol.DidChangeWorkspaceFoldersParams) {
	for _, f := range p.Event.Removed {
		path, err := workspace.PathFromURI(f.URI)
		if err != nil {
			continue
		}
		s.folders.Remove(path)
		h := s.host.Load()
		if h != nil {
			s.goAsync("remove folder", func(ctx context.Context) { h.RemoveSession(ctx, path) })
		}
	}
	for _, f := range p.Event.Added {
		path, err := workspace.PathFromURI(f.URI)
		if err != nil {
			s.log.Warn("ignored a workspace folder", "uri", f.URI, "err", err)
			continue
		}
		if err := s.folders.Add(workspace.Folder{URI: f.URI, Path: path, Name: f.Name}); err != nil {
			s.log.Warn("ignored a workspace folder", "uri", f.URI, "err", err)
		}
	}
	if len(p.Event.Added) > 0 {
		s.goAsync("auto-approve warning", s.approvals.WarnAuto)
	}
}

// hostConfig turns settings into the agent host's configuration.
func (s *Server) hostConfig(st settings.Settings) agenthost.Config {
	cfg := st.HostConfig()
	if s.opts.Agent.Kind != "" {
		cfg.Agent = s.opts.Agent
	}
	if s.opts.CodexPath != "" {
		cfg.CodexPath = s.opts.CodexPath
	}
	if cfg.Yolo {
		cfg.YoloSource = agenthost.SourceConfig
	}
	if s.opts.Yolo {
		cfg.Yolo, cfg.YoloSource = true, s.opts.YoloSource
		if cfg.YoloSource == "" {
			cfg.YoloSource = agenthost.SourceFlag
		}
	}
	cfg.Approver = s.approvals
	cfg.Logger = s.log
	cfg.ClientVersion = s.opts.Version
	cfg.StartCodex = s.opts.StartCodex
	cfg.StartAgent = s.opts.StartAgent
	if cfg.StartAgent == nil {
		cfg.StartAgent = s.startACPAgent
	}
	cfg.OnCodexStarted = s.codexStarted
	return cfg
}

// startACPAgent runs an ACP agent (agent.kind "acp"): what it reads of a file the editor has open
// is the editor's text, unsaved edits included.
func (s *Server) startACPAgent(ctx context.Context, a agenthost.AgentConfig, opts codex.Options) (agenthost.Agent, error) {
	if a.Kind != agenthost.AgentACP {
		return nil, fmt.Errorf("agent.kind %q: this hermes-lsp cannot run such an agent", a.Kind)
	}
	return acpagent.Start(ctx, a, opts, acpagent.Editor{Buffer: func(path string) (string, bool) {
		return s.docs.Text(workspace.URIFromPath(path))
	}})
}

func errorf(code jsonrpc2.Code, format string, args ...any) error {
	return jsonrpc2.NewError(code, fmt.Sprintf(format, args...))
}
