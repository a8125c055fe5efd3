// Package acpagent runs an agent that speaks the Agent Client Protocol (ACP: Gemini CLI, Claude's
// adapter, codex-acp, ...) as the host's agenthost.Agent: it maps ACP onto the terms of codex's
// app-server protocol in which the host speaks to any agent.
//
//   - A thread is an ACP session (session/new, session/resume or session/load, session/list); a
//     turn is one session/prompt, under a turn id of this package's, from turn/started to the
//     turn/completed its stop reason makes.
//   - The session's updates become codex's notifications, through codex.Options.OnNotification
//     first (where the host snapshots files for undo) and then onto the turn's stream: the answer
//     and the reasoning as agentMessage and reasoning items with their deltas, tool calls as
//     commandExecution, fileChange (with unified diffs) or dynamicToolCall items, the plan as
//     turn/plan/updated, the usage as thread/tokenUsage/updated.
//   - A permission request becomes the codex approval request that fits its tool call, answered
//     by the host (codex.Options.OnRequest); its decision picks the option of the matching kind,
//     and anything else fails closed.
//   - The agent's file reads and writes go through the workspace boundary, inside the session's
//     folder only; a read of a file open in the editor gets the editor's text (Editor), and a
//     write is announced as a fileChange item first, so that the host keeps the file's exact
//     pre-image for undo.
//
// What ACP lacks is refused with errors that wrap agenthost.ErrUnsupported (compaction, steering,
// forgetting a turn, sign-in, rate limits, ...), and Info says so beforehand. A review runs as a
// prompt that asks for findings in the format codex renders its own (codex.ParseReview).
//
// Everything the agent sends is hostile: text that becomes a title, a command or a path is cleaned
// and bounded here, and paths are checked by the workspace boundary, here and in the host.
package acpagent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"github.com/sourcegraph/conc"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
)

// Editor is what the agent may learn of the editor.
type Editor struct {
	// Buffer returns the text of the editor's buffer of the file at path (absolute, cleaned), and
	// whether the editor has it open. Nil: no buffer is open.
	Buffer func(path string) (text string, open bool)
}

// Connector connects to the agent with opts (whose Handler is this package's): acp.Start spawns it;
// a test connects an in-process one.
type Connector func(ctx context.Context, opts acp.Options) (*acp.Client, error)

// Agent is an ACP agent as the host's agenthost.Agent. Its methods are safe for concurrent use.
type Agent struct {
	client *acp.Client
	name   string // the agent as messages name it: its agentInfo name, else its command's base name
	info   acp.InitializeResponse
	opts   codex.Options // the host's request handler and notification hook
	log    *slog.Logger
	editor Editor

	// ctx is the prompts' context: Close ends it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     conc.WaitGroup // prompts, streams' deliveries, the watcher

	mu       sync.Mutex
	sessions map[string]*session // by session id: those started, resumed or loaded here
	models   modelOption         // the model option of the session last started, resumed or loaded
	closed   bool                // Close has begun: no goroutine is started any more
}

// errClosed is the error of what is asked of an Agent that was closed.
var errClosed = errors.New("the ACP agent was closed")

var (
	_ agenthost.Agent = (*Agent)(nil)
	_ acp.Handler     = handler{}
)

// Start spawns the ACP agent cfg names (cfg.Command with cfg.Args and cfg.Env) and initializes it
// within opts.StartTimeout. opts are those the host would start codex with: its OnRequest answers
// the agent's permission requests, its OnNotification sees every event before a stream does.
func Start(ctx context.Context, cfg agenthost.AgentConfig, opts codex.Options, ed Editor) (agenthost.Agent, error) {
	return Connect(ctx, cfg, opts, ed, acp.Start)
}

// Connect is Start with connect in place of spawning the agent.
func Connect(ctx context.Context, cfg agenthost.AgentConfig, opts codex.Options, ed Editor, connect Connector) (agenthost.Agent, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Agent{opts: opts, log: log, editor: ed, sessions: map[string]*session{}}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	env := make([]string, 0, len(cfg.Env))
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		env = append(env, k+"="+cfg.Env[k])
	}
	client, err := connect(ctx, acp.Options{
		Command: cfg.Command, Args: slices.Clone(cfg.Args), Env: env,
		StartTimeout: opts.StartTimeout,
		ClientInfo:   acp.Implementation{Name: opts.ClientInfo.Name, Title: opts.ClientInfo.Title, Version: opts.ClientInfo.Version},
		Handler:      handler{a},
		Logger:       log,
	})
	if err != nil {
		a.cancel()
		return nil, err
	}
	a.client, a.info = client, client.Info()
	a.name = agentName(a.info, cfg.Command)
	a.wg.Go(a.watch)
	return a, nil
}

// agentName is what messages call the agent: the name it gives, else its command's base name.
func agentName(info acp.InitializeResponse, command string) string {
	if info.AgentInfo != nil {
		if name := safetext.LineCut(info.AgentInfo.Name, 80); name != "" {
			return name
		}
	}
	if name := safetext.LineCut(filepath.Base(command), 80); name != "" && name != "." {
		return name
	}
	return "acp"
}

// Info says what the agent is and what it supports: its threads when it lists sessions, resuming
// them when it loads or resumes sessions, its models once a session offered them; nothing else of
// what codex does.
func (a *Agent) Info() agenthost.AgentInfo {
	caps := a.info.AgentCapabilities
	version := ""
	if a.info.AgentInfo != nil {
		version = safetext.LineCut(a.info.AgentInfo.Version, 40)
	}
	a.mu.Lock()
	models := len(a.models.values) > 0
	a.mu.Unlock()
	return agenthost.AgentInfo{
		Kind: agenthost.AgentACP, Name: a.name, Version: version,
		Supports: agenthost.Capabilities{
			ListThreads:  caps.SessionCapabilities.List != nil,
			ResumeThread: caps.LoadSession || caps.SessionCapabilities.Resume != nil,
			Models:       models,
		},
	}
}

func (a *Agent) Pid() int                { return a.client.Pid() }
func (a *Agent) Done() <-chan struct{}   { return a.client.Done() }
func (a *Agent) Err() error              { return a.client.Err() }
func (a *Agent) StderrTail(n int) string { return a.client.StderrTail(n) }

// Close ends the agent: its prompts fail, its streams end, its process is reaped; it returns once
// every goroutine of the Agent's has.
func (a *Agent) Close() error {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.cancel()
	err := a.client.Close()
	a.wg.Wait()
	return err
}

// spawn runs f on a goroutine of the Agent's (Close waits for it), unless Close has begun.
func (a *Agent) spawn(f func()) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false
	}
	a.wg.Go(f)
	return true
}

// watch ends the sessions' subscriptions when the agent ends (a turn's stream ends with its
// prompt, which fails then).
func (a *Agent) watch() {
	select {
	case <-a.client.Done():
	case <-a.ctx.Done():
	}
	err := a.client.Err()
	if err == nil {
		err = errors.New(a.name + " was closed")
	}
	a.mu.Lock()
	sessions := slices.Collect(maps.Values(a.sessions))
	a.mu.Unlock()
	for _, s := range sessions {
		s.endSubscriptions(err)
	}
}

// session returns the session id, started, resumed or loaded by this Agent.
func (a *Agent) session(id string) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[id]; s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("%s has no session %q here: start or resume it first", a.name, safetext.LineCut(id, 80))
}

// unsupported is the error of what ACP cannot do: "the ACP agent gemini cannot compact its
// conversation", wrapping agenthost.ErrUnsupported.
func (a *Agent) unsupported(what string) error {
	return fmt.Errorf("the ACP agent %s cannot %s: %w", a.name, what, agenthost.ErrUnsupported)
}

func (a *Agent) NameThread(context.Context, string, string) error {
	return a.unsupported("name its threads")
}

func (a *Agent) ListTurns(context.Context, codex.ThreadTurnsListParams) (*codex.ThreadTurnsListResponse, error) {
	return nil, a.unsupported("give a thread's past turns")
}

func (a *Agent) SteerTurn(context.Context, codex.TurnSteerParams) (string, error) {
	return "", a.unsupported("take input into a running turn: ask again when it ends, or stop it first")
}

func (a *Agent) CompactThread(context.Context, string) error {
	return a.unsupported("compact its conversation")
}

func (a *Agent) RevertThread(context.Context, string, string) error {
	return a.unsupported("forget a turn")
}

func (a *Agent) ConfiguredModel(context.Context, string) (string, error) {
	return "", a.unsupported("say which model its configuration names")
}

func (a *Agent) ReadRateLimits(context.Context) (*codex.RateLimitSnapshot, error) {
	return nil, a.unsupported("report rate limits")
}

func (a *Agent) ReadAccount(context.Context) (*codex.AccountState, error) {
	return nil, a.unsupported("say which account it is signed in with")
}

func (a *Agent) StartLogin(context.Context, string) (*codex.LoginStarted, error) {
	return nil, a.unsupported("sign in through hermes-lsp: run it once in a terminal, or give it its key in hermes.agent.env")
}
