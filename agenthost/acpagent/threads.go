package acpagent

// This file is the agent's threads: ACP sessions started (session/new), resumed (session/resume,
// else session/load) and listed (session/list), and the models a session offers.

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
)

// StartThread starts a session in the folder p.Cwd, with no MCP servers: the thread's id is the
// session's.
func (a *Agent) StartThread(ctx context.Context, p codex.ThreadStartParams) (*codex.ThreadResult, error) {
	folder, err := folderOf(p.Cwd)
	if err != nil {
		return nil, err
	}
	res, err := a.client.NewSession(ctx, folder, nil)
	if err != nil {
		return nil, fmt.Errorf("session/new: %w", a.explain(err))
	}
	a.addSession(res.SessionID, folder, res.ConfigOptions)
	a.askBeforeActing(ctx, res.SessionID, res.Modes, p.ApprovalPolicy)
	return threadResult(res.SessionID, folder, a.currentModel()), nil
}

// ResumeThread resumes the session p.ThreadID in the folder p.Cwd: session/resume when the agent
// offers it, else session/load (whose replay of the session's updates belongs to no turn: it is
// dropped, as no turn runs on a session that is not yet this Agent's).
func (a *Agent) ResumeThread(ctx context.Context, p codex.ThreadResumeParams) (*codex.ThreadResult, error) {
	folder, err := folderOf(p.Cwd)
	if err != nil {
		return nil, err
	}
	caps := a.info.AgentCapabilities
	var options []acp.SessionConfigOption
	var modes *acp.SessionModeState
	switch {
	case caps.SessionCapabilities.Resume != nil:
		res, err := a.client.ResumeSession(ctx, p.ThreadID, folder, nil)
		if err != nil {
			return nil, fmt.Errorf("session/resume: %w", a.explain(err))
		}
		options, modes = res.ConfigOptions, res.Modes
	case caps.LoadSession:
		res, err := a.client.LoadSession(ctx, p.ThreadID, folder, nil)
		if err != nil {
			return nil, fmt.Errorf("session/load: %w", a.explain(err))
		}
		options, modes = res.ConfigOptions, res.Modes
	default:
		return nil, a.unsupported("resume one of its sessions")
	}
	a.addSession(p.ThreadID, folder, options)
	a.askBeforeActing(ctx, p.ThreadID, modes, p.ApprovalPolicy)
	return threadResult(p.ThreadID, folder, a.currentModel()), nil
}

// folderOf checks a thread's folder: an absolute path, cleaned.
func folderOf(cwd string) (string, error) {
	if !filepath.IsAbs(cwd) {
		return "", fmt.Errorf("an ACP session needs an absolute folder, not %q", safetext.LineCut(cwd, 200))
	}
	return filepath.Clean(cwd), nil
}

// addSession makes the session id in folder this Agent's (again), and keeps the models it offers.
func (a *Agent) addSession(id, folder string, options []acp.SessionConfigOption) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sessions[id] == nil {
		a.sessions[id] = &session{a: a, id: id, folder: folder, subs: map[*stream]struct{}{}}
	}
	if m, ok := modelOptionOf(options); ok {
		a.models = m
	}
}

func threadResult(id, folder, model string) *codex.ThreadResult {
	return &codex.ThreadResult{
		Cwd: folder, Model: model,
		Thread: codex.Thread{ID: id, Cwd: folder, Status: codex.ThreadStatus{Type: "idle"}},
	}
}

// ListThreads is one page of the agent's sessions in the folder p.Cwd (session/list), each a
// thread named by its title; sessions of other folders, which an agent may list all the same, are
// left out.
func (a *Agent) ListThreads(ctx context.Context, p codex.ThreadListParams) (*codex.ThreadListResponse, error) {
	if a.info.AgentCapabilities.SessionCapabilities.List == nil {
		return nil, a.unsupported("list its sessions")
	}
	var cwd string
	if len(p.Cwd) > 0 && json.Unmarshal(p.Cwd, &cwd) != nil {
		return nil, fmt.Errorf("session/list takes one folder, not %s", safetext.LineCut(string(p.Cwd), 200))
	}
	if cwd != "" {
		folder, err := folderOf(cwd)
		if err != nil {
			return nil, err
		}
		cwd = folder
	}
	res, err := a.client.ListSessions(ctx, cwd, p.Cursor)
	if err != nil {
		return nil, fmt.Errorf("session/list: %w", a.explain(err))
	}
	out := &codex.ThreadListResponse{Data: []codex.Thread{}, NextCursor: res.NextCursor}
	for _, s := range res.Sessions {
		if s.SessionID == "" || (cwd != "" && filepath.Clean(s.Cwd) != cwd) {
			continue
		}
		t := codex.Thread{ID: s.SessionID, Cwd: cwd, Name: safetext.LineCut(s.Title, 200)}
		if cwd == "" {
			t.Cwd = filepath.Clean(s.Cwd)
		}
		if at, err := time.Parse(time.RFC3339Nano, s.UpdatedAt); err == nil {
			t.UpdatedAt, t.CreatedAt = at.Unix(), at.Unix()
		}
		out.Data = append(out.Data, t)
	}
	return out, nil
}

// modelOption is a session's configuration option of category model: its id and values, and the
// value in force.
type modelOption struct {
	id      string
	current string
	values  []modelValue
}

type modelValue struct {
	id, name, description string
}

// modelOptionOf finds the model option among a session's configuration options.
func modelOptionOf(options []acp.SessionConfigOption) (modelOption, bool) {
	for _, o := range options {
		if o.Category != acp.SessionConfigOptionCategoryModel || o.SessionConfigSelect == nil || o.ID == "" {
			continue
		}
		m := modelOption{id: o.ID, current: o.SessionConfigSelect.CurrentValue}
		// The values are a flat list or a list of groups, each with its own list.
		type value struct {
			Value, Name, Description string
			Options                  []value
		}
		var values []value
		_ = json.Unmarshal(o.SessionConfigSelect.Options, &values)
		var add func([]value)
		add = func(vs []value) {
			for _, v := range vs {
				if len(v.Options) > 0 {
					add(v.Options)
				} else if v.Value != "" && len(m.values) < 200 {
					m.values = append(m.values, modelValue{
						id:   safetext.LineCut(v.Value, 200),
						name: safetext.LineCut(v.Name, 200), description: safetext.LineCut(v.Description, 500),
					})
				}
			}
		}
		add(values)
		if len(m.values) > 0 {
			return m, true
		}
	}
	return modelOption{}, false
}

func (a *Agent) currentModel() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return safetext.LineCut(a.models.current, 200)
}

// ListModels lists the models the agent's sessions offer (their configuration option of category
// model); an agent that offers none cannot list them.
func (a *Agent) ListModels(context.Context, codex.ModelListParams) (*codex.ModelListResponse, error) {
	a.mu.Lock()
	m := a.models
	a.mu.Unlock()
	if len(m.values) == 0 {
		return nil, a.unsupported("list its models")
	}
	out := &codex.ModelListResponse{Data: []codex.Model{}}
	for _, v := range m.values {
		name := v.name
		if name == "" {
			name = v.id
		}
		out.Data = append(out.Data, codex.Model{
			ID: v.id, Model: v.id, DisplayName: name, Description: v.description, IsDefault: v.id == m.current,
			SupportedReasoningEfforts: []codex.ReasoningEffortOption{},
		})
	}
	return out, nil
}

// setModel makes model the session's, through its model option, when the agent offers it and it
// is not in force already.
func (a *Agent) setModel(ctx context.Context, sessionID, model string) error {
	a.mu.Lock()
	m := a.models
	a.mu.Unlock()
	if model == "" || m.id == "" || model == m.current {
		return nil
	}
	options, err := a.client.SetConfigOption(ctx, sessionID, m.id, model)
	if err != nil {
		return fmt.Errorf("session/set_config_option %s: %w", m.id, a.explain(err))
	}
	a.mu.Lock()
	if got, ok := modelOptionOf(options); ok {
		a.models = got
	} else {
		a.models.current = model
	}
	a.mu.Unlock()
	return nil
}
