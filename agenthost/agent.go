package agenthost

// This file is the host's one dependency on the agent it runs: the Agent interface. The host speaks
// to an agent in the terms of codex's app-server protocol (threads, turns, items, their events and
// the approval requests): they are the richest of the agents' protocols, and the host's own. codex
// implements Agent directly (agent_codex.go); another agent implements it through an adapter that
// maps its protocol onto those terms, and says what it cannot do.

import (
	"context"
	"errors"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// ErrUnsupported is wrapped by the error of an operation the agent cannot do (ACP has no compaction,
// for one). Capabilities says so beforehand.
var ErrUnsupported = errors.New("the agent does not support this")

// Agent is a running agent process: codex's app-server, or another agent behind an adapter. Its
// methods are safe for concurrent use. The agent's requests (approvals, questions) go to the
// RequestHandler it was started with (codex.Options.OnRequest), its notifications to the streams
// of Subscribe and StartTurn.
type Agent interface {
	// Info says what the agent is and what it supports.
	Info() AgentInfo
	// Pid is the agent's process id (0 for one in this process).
	Pid() int
	// Done is closed when the agent has ended; Err then says why.
	Done() <-chan struct{}
	Err() error
	// StderrTail is the end of what the agent wrote to its stderr, at most n lines.
	StderrTail(n int) string
	// Close ends the agent and reaps its process.
	Close() error

	StartThread(ctx context.Context, p codex.ThreadStartParams) (*codex.ThreadResult, error)
	ResumeThread(ctx context.Context, p codex.ThreadResumeParams) (*codex.ThreadResult, error)
	// ListThreads is one page of the agent's threads (newest first).
	ListThreads(ctx context.Context, p codex.ThreadListParams) (*codex.ThreadListResponse, error)
	NameThread(ctx context.Context, threadID, name string) error
	// ListTurns is a thread's past turns with their items (the transcript of a resumed thread).
	ListTurns(ctx context.Context, p codex.ThreadTurnsListParams) (*codex.ThreadTurnsListResponse, error)
	// Subscribe streams a thread's events until closed.
	Subscribe(threadID string) Stream
	// StartTurn starts a turn and streams its events until it completes.
	StartTurn(ctx context.Context, p codex.TurnStartParams) (*codex.Turn, Stream, error)
	SteerTurn(ctx context.Context, p codex.TurnSteerParams) (string, error)
	InterruptTurn(ctx context.Context, threadID, turnID string) error
	CompactThread(ctx context.Context, threadID string) error
	// RevertThread drops a thread's turns from beforeTurnID on from what the agent remembers.
	RevertThread(ctx context.Context, threadID, beforeTurnID string) error
	StartReview(ctx context.Context, threadID string, target codex.ReviewTarget) (*codex.Turn, Stream, error)
	ListModels(ctx context.Context, p codex.ModelListParams) (*codex.ModelListResponse, error)
	// ConfiguredModel is the model the agent's configuration names for folder, "" for none.
	ConfiguredModel(ctx context.Context, folder string) (string, error)
	ReadRateLimits(ctx context.Context) (*codex.RateLimitSnapshot, error)
	ReadAccount(ctx context.Context) (*codex.AccountState, error)
	StartLogin(ctx context.Context, loginType string) (*codex.LoginStarted, error)
}

// Stream is the events of a thread or a turn, in the order the agent sent them. Events is closed
// when the stream is closed, when its turn completes, or when the agent ends; Err then says why.
type Stream interface {
	Events() <-chan codex.Event
	Err() error
	// TurnCompleted reports whether the turn's completion was queued (a turn's stream).
	TurnCompleted() bool
	Close()
}

// AgentKind names the kind of agent the host runs.
type AgentKind string

// The kinds of agent.
const (
	AgentCodex AgentKind = "codex" // codex app-server, the default
	AgentACP   AgentKind = "acp"   // an agent speaking the Agent Client Protocol
)

// AgentInfo is what the agent is and what it supports.
type AgentInfo struct {
	Kind AgentKind
	// Name and Version are the agent's, as it says them (codex: "codex" and its release).
	Name, Version string
	// UserAgent is codex's initialize answer (empty for another agent).
	UserAgent string
	// Compat is what hermes-lsp makes of codex's release (nil for another agent).
	Compat   *codex.Compat
	Supports Capabilities
	// Unknown says the agent has not started yet, so what it supports is not known (codex's always
	// is).
	Unknown bool
}

// Capabilities say which of the host's operations the agent supports; what it does not is refused
// with ErrUnsupported, and the editor face hides or explains it.
type Capabilities struct {
	ListThreads   bool // hermes.threads, and a folder's thread found again after a restart
	ResumeThread  bool // a thread resumed in a new agent process
	History       bool // a resumed thread's past turns (ListTurns)
	NameThread    bool
	Steer         bool // input added to a running turn
	Compact       bool
	RevertThread  bool // an undone turn dropped from what the agent remembers
	Review        bool // a review by the agent itself (else by a prompt)
	Models        bool // the agent's models listed
	Login         bool // sign-in through the agent
	RateLimits    bool
	ConfigRead    bool // the configured model read from the agent's configuration
	ProviderTurns bool // a turn's model provider chosen per turn (the quota fallback)
}

// codexCapabilities are codex's: everything.
var codexCapabilities = Capabilities{
	ListThreads: true, ResumeThread: true, History: true, NameThread: true, Steer: true, Compact: true,
	RevertThread: true, Review: true, Models: true, Login: true, RateLimits: true, ConfigRead: true,
	ProviderTurns: true,
}

// Features names what c supports and what it lacks, as hermes.status lists them.
func (c Capabilities) Features() (supports, lacks []string) {
	supports, lacks = []string{}, []string{}
	for _, f := range []struct {
		name string
		has  bool
	}{
		{hermesproto.AgentFeatureThreads, c.ListThreads}, {hermesproto.AgentFeatureResume, c.ResumeThread},
		{hermesproto.AgentFeatureHistory, c.History}, {hermesproto.AgentFeatureSteer, c.Steer},
		{hermesproto.AgentFeatureCompact, c.Compact}, {hermesproto.AgentFeatureForgetTurn, c.RevertThread},
		{hermesproto.AgentFeatureReview, c.Review}, {hermesproto.AgentFeatureModels, c.Models},
		{hermesproto.AgentFeatureLogin, c.Login}, {hermesproto.AgentFeatureRateLimits, c.RateLimits},
		{hermesproto.AgentFeatureFallback, c.ProviderTurns},
	} {
		if f.has {
			supports = append(supports, f.name)
		} else {
			lacks = append(lacks, f.name)
		}
	}
	return supports, lacks
}
