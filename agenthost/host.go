// Package agenthost is the editor-neutral heart of hermes-lsp: it runs agent turns on codex
// app-server for workspace folders. One codex process serves the whole host, started lazily and
// reused; each folder is a Session with its own codex thread whose cwd is that folder. The host
// routes codex's approval requests by policy or to an Approver, streams each turn's events, keeps
// token accounting and the projected transcript, retires and respawns codex when it fails, retries a
// turn on a fallback provider when the quota runs out, and persists each folder's thread and
// transcripts. It knows nothing of LSP: the editor layer drives it.
package agenthost

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/conc"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// Host runs agent turns for any number of workspace folders on one codex app-server.
type Host struct {
	log   *slog.Logger
	store *store

	cfg atomic.Pointer[hostConfig] // replaced whole by Reconfigure

	mu       sync.Mutex
	sessions map[string]*Session // by folder
	removed  []*Session          // sessions removed while their turn may still run
	threads  map[string]*Session // by codex thread id

	codexMu sync.Mutex                   // held while starting or retiring codex
	agent   Agent                        // nil until started, and after retirement
	compat  atomic.Pointer[codex.Compat] // the release of the codex last started (or refused); nil before
	other   atomic.Pointer[otherAgent]   // the agent other than codex last started; nil before
	gen     int                          // counts codex starts: a thread is loaded in one generation
	stale   bool                         // the configuration changed: restart codex when it is next idle

	approvalSeq atomic.Int64

	rateLimits     atomic.Pointer[hermesproto.RateLimits] // as codex last reported them
	rateLimitsRead atomic.Int64                           // the codex generation asked for them last

	loginsMu sync.Mutex
	logins   map[string]chan LoginOutcome // the sign-ins codex has not ended yet, by login id

	closing   chan struct{}      // closed by Close
	closed    context.Context    // done once Close has begun: the calls to codex that start turns end
	markClose context.CancelFunc // ends closed
	closeOnce sync.Once
	wg        conc.WaitGroup // every goroutine the host starts
}

// New returns a host. It starts nothing: codex starts on the first turn or on Prewarm.
func New(cfg Config) (*Host, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	st, err := openStore(cfg.StateDir, cfg.Logger)
	if err != nil {
		return nil, err
	}
	h := &Host{
		log:      cfg.Logger,
		store:    st,
		sessions: make(map[string]*Session),
		threads:  make(map[string]*Session),
		closing:  make(chan struct{}),
	}
	h.closed, h.markClose = context.WithCancel(context.Background())
	h.cfg.Store(&hostConfig{Config: cfg, replaced: make(chan struct{})})
	h.wg.Go(func() { st.saveLoop(h.closing) })
	return h, nil
}

// StateDir is the folder the host keeps its state and transcripts in: the one it was created with (a
// change applies after a restart).
func (h *Host) StateDir() string { return h.config().StateDir }

func (h *Host) config() Config { return h.cfg.Load().Config }

// hostConfig is a configuration in force, with a channel closed when Reconfigure replaces it.
type hostConfig struct {
	Config
	replaced chan struct{}
}

// configNow returns the configuration in force and a channel closed when it is replaced.
func (h *Host) configNow() (Config, <-chan struct{}) {
	c := h.cfg.Load()
	return c.Config, c.replaced
}

// Reconfigure applies a new configuration. Approval settings apply from the next request on; the turn
// timeout applies to the running turns too (counted from their start); settings of the codex process
// or its threads apply from the next turn, once no turn is running (codex is restarted and threads are
// resumed with the new settings).
func (h *Host) Reconfigure(cfg Config) error {
	old := h.config()
	if cfg.Approver == nil {
		cfg.Approver = old.Approver
	}
	if cfg.StartCodex == nil {
		cfg.StartCodex = old.StartCodex
	}
	if cfg.StartAgent == nil {
		cfg.StartAgent = old.StartAgent
	}
	if cfg.Logger == nil {
		cfg.Logger = old.Logger
	}
	if cfg.OnCodexStarted == nil {
		cfg.OnCodexStarted = old.OnCodexStarted
	}
	if cfg.StateDir == "" {
		cfg.StateDir = old.StateDir
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	if cfg.StateDir != old.StateDir {
		h.log.Warn("stateDir changes apply after a restart", "stateDir", cfg.StateDir)
		cfg.StateDir = old.StateDir
	}
	close(h.cfg.Swap(&hostConfig{Config: cfg, replaced: make(chan struct{})}).replaced)
	if processChanged(old, cfg) {
		h.codexMu.Lock()
		h.stale = true
		h.codexMu.Unlock()
	}
	return nil
}

// processChanged reports whether the codex process or its threads must restart for cfg to apply.
func processChanged(a, b Config) bool {
	return a.CodexPath != b.CodexPath || !slices.Equal(a.CodexArgs, b.CodexArgs) || a.CodexHome != b.CodexHome ||
		!maps.Equal(a.CodexEnv, b.CodexEnv) || a.Model != b.Model || a.ApprovalPolicy != b.ApprovalPolicy ||
		a.Sandbox != b.Sandbox || !slices.Equal(a.Fallbacks, b.Fallbacks) || a.Agent.Kind != b.Agent.Kind ||
		a.Agent.Command != b.Agent.Command || !slices.Equal(a.Agent.Args, b.Agent.Args) || !maps.Equal(a.Agent.Env, b.Agent.Env)
}

// Session returns the session of folder, an absolute path, creating it on first use. A folder's
// thread survives restarts: a new session resumes the thread recorded in the state dir.
func (h *Host) Session(folder string) (*Session, error) {
	if !filepath.IsAbs(folder) {
		return nil, fmt.Errorf("session folder %q is not an absolute path", folder)
	}
	folder = filepath.Clean(folder)
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.closing:
		return nil, errors.New("the agent host is shut down")
	default:
	}
	if s, ok := h.sessions[folder]; ok {
		return s, nil
	}
	s := newSession(h, folder, h.store.folder(folder))
	h.sessions[folder] = s
	return s, nil
}

// Sessions returns every session, ordered by folder.
func (h *Host) Sessions() []*Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*Session, 0, len(h.sessions))
	for _, s := range h.sessions {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].folder < out[j].folder })
	return out
}

// RemoveSession forgets the session of folder (a workspace folder was removed), interrupting its
// running turn. Its thread stays recorded for when the folder comes back.
func (h *Host) RemoveSession(ctx context.Context, folder string) {
	folder = filepath.Clean(folder)
	h.mu.Lock()
	s, ok := h.sessions[folder]
	delete(h.sessions, folder)
	h.removed = slices.DeleteFunc(h.removed, func(r *Session) bool { return closed(r.exited) })
	if ok {
		h.removed = append(h.removed, s)
	}
	h.mu.Unlock()
	if ok {
		s.end()
		_ = s.Interrupt(ctx)
	}
}

func (h *Host) sessionByThread(threadID string) *Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.threads[threadID]
}

func (h *Host) bindThread(threadID string, s *Session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.threads[threadID] = s
}

func (h *Host) nextApprovalID() string {
	return "a" + strconv.FormatInt(h.approvalSeq.Add(1), 10)
}

// Prewarm starts codex now rather than at the first turn.
func (h *Host) Prewarm(ctx context.Context) error {
	_, _, err := h.codexClient(ctx)
	return err
}

// Running reports whether codex is running now.
func (h *Host) Running() bool {
	h.codexMu.Lock()
	defer h.codexMu.Unlock()
	return h.agent != nil
}

// CodexPid is the process id of the running codex, or 0.
func (h *Host) CodexPid() int {
	h.codexMu.Lock()
	defer h.codexMu.Unlock()
	if h.agent == nil {
		return 0
	}
	return h.agent.Pid()
}

// codexClient returns the running codex, starting it when there is none (or when a configuration
// change is waiting for codex to be idle), and its generation.
func (h *Host) codexClient(ctx context.Context) (Agent, int, error) {
	h.codexMu.Lock()
	defer h.codexMu.Unlock()
	select {
	case <-h.closing:
		return nil, 0, errors.New("the agent host is shut down")
	default:
	}
	if h.agent != nil && h.stale && !h.anyRunning() {
		old := h.agent
		h.agent, h.stale = nil, false
		h.log.Info("restarting codex for the new configuration")
		h.wg.Go(func() { _ = old.Close() })
	}
	if h.agent != nil {
		select {
		case <-h.agent.Done():
			// Died while idle, and the watcher has not retired it yet: start a new one now.
			h.agent = nil
		default:
			return h.agent, h.gen, nil
		}
	}
	cfg := h.config()
	client, err := h.startCodex(ctx, cfg)
	if err != nil {
		return nil, 0, err
	}
	h.agent = client
	h.gen++
	h.stale = false
	h.log.Info("codex started", "pid", client.Pid(), "generation", h.gen, "userAgent", client.Info().UserAgent)
	h.wg.Go(func() { h.watch(client) })
	return client, h.gen, nil
}

// watch retires codex when it exits on its own.
func (h *Host) watch(client Agent) {
	select {
	case <-client.Done():
		if err := client.Err(); err != nil && !errors.Is(err, codex.ErrClosed) {
			h.log.Warn("codex exited", "err", err)
		}
		h.retire(client, "codex exited")
	case <-h.closing:
	}
}

// retire stops client if it is still the running codex; the next turn starts a new one and resumes
// each session's thread.
func (h *Host) retire(client Agent, reason string) bool {
	h.codexMu.Lock()
	current := h.agent == client
	if current {
		h.agent = nil
	}
	h.codexMu.Unlock()
	if current {
		h.log.Info("retiring codex", "reason", reason)
	}
	// Closing waits for codex's request handlers, which may be waiting on the session that asked
	// for the retirement: close on a goroutine of the host's, never inline.
	h.wg.Go(func() { _ = client.Close() })
	return current
}

// safeProviderName keeps a provider name usable as a TOML key in a -c override.
var safeProviderName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

func providerID(f FallbackProvider) string {
	return "hermes-fallback-" + safeProviderName.ReplaceAllString(f.Name, "_")
}

// codexOptions builds how codex is spawned from the configuration.
func (h *Host) codexOptions(cfg Config) codex.Options {
	env := make([]string, 0, len(cfg.CodexEnv))
	for _, k := range slices.Sorted(maps.Keys(cfg.CodexEnv)) {
		env = append(env, k+"="+cfg.CodexEnv[k])
	}
	// Fallback providers that speak the Responses API are defined for codex up front, so a thread
	// can be resumed on one of them when the main provider's quota runs out.
	var overrides []string
	for _, f := range cfg.Fallbacks {
		if f.Kind != FallbackResponses {
			continue
		}
		id := providerID(f)
		overrides = append(overrides,
			fmt.Sprintf("model_providers.%s.name=%s", id, strconv.Quote(f.Name)),
			fmt.Sprintf("model_providers.%s.base_url=%s", id, strconv.Quote(f.BaseURL)),
			fmt.Sprintf("model_providers.%s.wire_api=\"responses\"", id),
		)
		if f.APIKeyEnv != "" {
			overrides = append(overrides, fmt.Sprintf("model_providers.%s.env_key=%s", id, strconv.Quote(f.APIKeyEnv)))
		}
	}
	return codex.Options{
		Process: codex.ProcessOptions{
			Binary: cfg.CodexPath,
			Config: overrides,
			Args:   slices.Clone(cfg.CodexArgs),
			Env:    env,
			Home:   cfg.CodexHome,
		},
		ClientInfo: codex.ClientInfo{Name: "hermes-lsp", Title: "hermes-lsp", Version: cfg.ClientVersion},
		OnRequest:  h.handleRequest,
		OnNotification: func(ev codex.Event) {
			h.rememberFileChange(ev)
			h.noteRateLimits(ev)
			h.noteLogin(ev)
			if ev.ThreadID == "" && (ev.Method == "configWarning" || ev.Method == "warning" || ev.Method == "deprecationNotice") {
				h.log.Warn("codex: "+ev.Method, "params", string(ev.Params))
			}
		},
		Logger: h.log,
	}
}

func (h *Host) anyRunning() bool {
	h.mu.Lock()
	sessions := slices.Collect(maps.Values(h.sessions))
	h.mu.Unlock()
	for _, s := range sessions {
		if s.running() {
			return true
		}
	}
	return false
}

// Close stops everything: running turns are interrupted, pending approvals answered with cancel,
// codex is stopped, and every goroutine the host started has ended when it returns.
func (h *Host) Close() error {
	var err error
	h.closeOnce.Do(func() {
		close(h.closing)
		h.markClose()
		// Turn runners see closing, interrupt their turns and finish; each session's goroutine ends
		// once its turn has. Wait for them before codex goes.
		h.mu.Lock()
		sessions := append(slices.Collect(maps.Values(h.sessions)), h.removed...)
		h.mu.Unlock()
		for _, s := range sessions {
			<-s.exited
		}
		h.codexMu.Lock()
		client := h.agent
		h.agent = nil
		h.codexMu.Unlock()
		if client != nil {
			err = client.Close()
		}
		h.wg.Wait()
		if serr := h.store.flush(); err == nil {
			err = serr
		}
		if cerr := h.store.closeFiles(); err == nil {
			err = cerr
		}
	})
	return err
}
