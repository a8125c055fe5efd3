package lsptest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
)

// State is everything an Editor has recorded of what the server sent, in arrival order. Await hands
// conditions a snapshot; Editor.State returns one. A snapshot never changes once taken; treat it as
// read-only.
//
// Requests are recorded when they arrive, whatever the profile answers (a showMessageRequest that
// Helix refuses is still in ShowMessageRequests).
type State struct {
	// ShowMessages holds the window/showMessage notifications.
	ShowMessages []protocol.ShowMessageParams
	// LogMessages holds the window/logMessage notifications.
	LogMessages []protocol.LogMessageParams
	// Telemetry holds the params of the telemetry/event notifications.
	Telemetry []json.RawMessage
	// ShowMessageRequests holds the window/showMessageRequest requests.
	ShowMessageRequests []protocol.ShowMessageRequestParams
	// ShowDocuments holds the window/showDocument requests.
	ShowDocuments []protocol.ShowDocumentParams
	// ApplyEdits holds the workspace/applyEdit requests.
	ApplyEdits []protocol.ApplyWorkspaceEditParams
	// ConfigurationRequests holds the workspace/configuration requests.
	ConfigurationRequests []protocol.ConfigurationParams
	// CreatedTokens holds the tokens of the window/workDoneProgress/create requests, including
	// the ones the profile refused.
	CreatedTokens []protocol.ProgressToken
	// Progress holds the $/progress values of each token, in order.
	Progress map[protocol.ProgressToken][]ProgressEvent
	// Notifications holds the params of every notification the server sent (the ones above
	// included), by method.
	Notifications map[string][]json.RawMessage
	// Requests holds the params of every request the server sent (the ones above included), by
	// method.
	Requests map[string][]json.RawMessage
	// CancelledByServer holds the ids, as JSON, of the server's own requests that it then cancelled
	// with $/cancelRequest.
	CancelledByServer []json.RawMessage
	// Violations describes what the server sent against the protocol: params that do not decode
	// (a progress token marshalled as {}), $/progress out of the begin, report..., end order.
	Violations []string
	// Closed says the connection has ended: nothing more will be recorded.
	Closed bool

	// acceptedTokens holds the tokens whose creation the editor accepted, and the workDoneTokens
	// the editor sent itself.
	acceptedTokens map[protocol.ProgressToken]bool
}

// ProgressEvent is one $/progress value.
type ProgressEvent struct {
	// Kind is begin, report or end; empty for a value that is not work-done progress (partial
	// results).
	Kind protocol.WorkDoneProgressKind
	// Title is set on begin.
	Title string
	// Message, when the server sent one.
	Message string
	// Percentage, or nil when the server sent none.
	Percentage *uint32
	// Cancellable is set on begin and report.
	Cancellable bool
	// Raw is the value as sent.
	Raw json.RawMessage
}

// newState returns an empty State.
func newState() *State {
	return &State{
		Progress:       map[protocol.ProgressToken][]ProgressEvent{},
		Notifications:  map[string][]json.RawMessage{},
		Requests:       map[string][]json.RawMessage{},
		acceptedTokens: map[protocol.ProgressToken]bool{},
	}
}

// snapshot returns a copy of s that later recording does not change. Recorded values are never
// modified, only appended, so capping the slices is enough.
func (s *State) snapshot() *State {
	c := *s
	c.ShowMessages = capped(s.ShowMessages)
	c.LogMessages = capped(s.LogMessages)
	c.Telemetry = capped(s.Telemetry)
	c.ShowMessageRequests = capped(s.ShowMessageRequests)
	c.ShowDocuments = capped(s.ShowDocuments)
	c.ApplyEdits = capped(s.ApplyEdits)
	c.ConfigurationRequests = capped(s.ConfigurationRequests)
	c.CreatedTokens = capped(s.CreatedTokens)
	c.CancelledByServer = capped(s.CancelledByServer)
	c.Violations = capped(s.Violations)
	c.Progress = make(map[protocol.ProgressToken][]ProgressEvent, len(s.Progress))
	for k, v := range s.Progress {
		c.Progress[k] = capped(v)
	}
	c.Notifications = make(map[string][]json.RawMessage, len(s.Notifications))
	for k, v := range s.Notifications {
		c.Notifications[k] = capped(v)
	}
	c.Requests = make(map[string][]json.RawMessage, len(s.Requests))
	for k, v := range s.Requests {
		c.Requests[k] = capped(v)
	}
	c.acceptedTokens = maps.Clone(s.acceptedTokens)
	return &c
}

// capped returns s with its capacity cut to its length, so an append to either copy never writes
// into the other's elements.
func capped[T any](s []T) []T { return s[:len(s):len(s)] }

// ProgressEnded reports whether token's progress has ended.
func (s *State) ProgressEnded(token protocol.ProgressToken) bool {
	evs := s.Progress[token]
	return len(evs) > 0 && evs[len(evs)-1].Kind == protocol.WorkDoneProgressKindEnd
}

// UnknownProgressTokens returns, sorted, the tokens the server reported $/progress on without
// owning them: neither created through an accepted window/workDoneProgress/create nor sent by the
// editor as a workDoneToken. A server that reports on a token Eglot refused shows up here.
func (s *State) UnknownProgressTokens() []protocol.ProgressToken {
	var out []protocol.ProgressToken
	for tok := range s.Progress {
		if !s.acceptedTokens[tok] {
			out = append(out, tok)
		}
	}
	slices.SortFunc(out, func(a, b protocol.ProgressToken) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// String summarises the state, for failure messages.
func (s *State) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "recorded state (closed=%v):\n", s.Closed)
	for _, m := range s.ShowMessages {
		fmt.Fprintf(&b, "  showMessage type=%v %q\n", m.Type, m.Message)
	}
	for _, m := range s.ShowMessageRequests {
		titles := make([]string, len(m.Actions))
		for i, a := range m.Actions {
			titles[i] = a.Title
		}
		fmt.Fprintf(&b, "  showMessageRequest type=%v %q actions=%q\n", m.Type, m.Message, titles)
	}
	for _, d := range s.ShowDocuments {
		fmt.Fprintf(&b, "  showDocument %s external=%v takeFocus=%v\n", d.URI, d.External, d.TakeFocus)
	}
	for _, tok := range s.CreatedTokens {
		fmt.Fprintf(&b, "  workDoneProgress/create %q\n", tok)
	}
	toks := slices.Collect(maps.Keys(s.Progress))
	slices.SortFunc(toks, func(a, b protocol.ProgressToken) int { return strings.Compare(a.String(), b.String()) })
	for _, tok := range toks {
		kinds := make([]string, 0, len(s.Progress[tok]))
		for _, ev := range s.Progress[tok] {
			kinds = append(kinds, string(ev.Kind))
		}
		fmt.Fprintf(&b, "  $/progress %q: %s\n", tok, strings.Join(kinds, ","))
	}
	methods := slices.Sorted(maps.Keys(s.Notifications))
	for _, m := range methods {
		fmt.Fprintf(&b, "  notification %s x%d\n", m, len(s.Notifications[m]))
	}
	methods = slices.Sorted(maps.Keys(s.Requests))
	for _, m := range methods {
		fmt.Fprintf(&b, "  request %s x%d\n", m, len(s.Requests[m]))
	}
	for _, v := range s.Violations {
		fmt.Fprintf(&b, "  VIOLATION %s\n", v)
	}
	// The last log messages help most when a wait times out.
	logs := s.LogMessages
	if len(logs) > 10 {
		fmt.Fprintf(&b, "  (%d earlier logMessages)\n", len(logs)-10)
		logs = logs[len(logs)-10:]
	}
	for _, m := range logs {
		fmt.Fprintf(&b, "  logMessage type=%v %q\n", m.Type, m.Message)
	}
	return b.String()
}

// Condition is something Await waits for: a predicate over a State snapshot. It must not block or
// call the Editor.
type Condition = func(*State) bool

// ProgressEnded holds once the progress of token has ended.
func ProgressEnded(token protocol.ProgressToken) Condition {
	return func(s *State) bool { return s.ProgressEnded(token) }
}

// AnyProgressEnded holds once the progress of some token has ended.
func AnyProgressEnded() Condition {
	return func(s *State) bool {
		for tok := range s.Progress {
			if s.ProgressEnded(tok) {
				return true
			}
		}
		return false
	}
}

// ProgressBegun holds once the progress of token has begun.
func ProgressBegun(token protocol.ProgressToken) Condition {
	return func(s *State) bool {
		evs := s.Progress[token]
		return len(evs) > 0 && evs[0].Kind == protocol.WorkDoneProgressKindBegin
	}
}

// MessageContaining holds once a window/showMessage contains substr.
func MessageContaining(substr string) Condition {
	return func(s *State) bool {
		for _, m := range s.ShowMessages {
			if strings.Contains(m.Message, substr) {
				return true
			}
		}
		return false
	}
}

// IsAnnouncement reports whether a window/showMessage announces a turn's answer: with the
// transcript's path on a line of its own ("Transcript:", VS Code), or on one line with where the
// whole answer is (" · the whole answer: ", the editors that show messages as plain text).
func IsAnnouncement(msg string) bool {
	return strings.Contains(msg, "Transcript:") || strings.Contains(msg, " · the whole answer: ")
}

// Announced holds once n turns' answers were announced (IsAnnouncement).
func Announced(n int) Condition {
	return func(s *State) bool {
		count := 0
		for _, m := range s.ShowMessages {
			if IsAnnouncement(m.Message) {
				count++
			}
		}
		return count >= n
	}
}

// LogMessageContaining holds once a window/logMessage contains substr.
func LogMessageContaining(substr string) Condition {
	return func(s *State) bool {
		for _, m := range s.LogMessages {
			if strings.Contains(m.Message, substr) {
				return true
			}
		}
		return false
	}
}

// ShowMessageRequestCount holds once at least n window/showMessageRequest requests have arrived.
func ShowMessageRequestCount(n int) Condition {
	return func(s *State) bool { return len(s.ShowMessageRequests) >= n }
}

// ShowDocumentCount holds once at least n window/showDocument requests have arrived.
func ShowDocumentCount(n int) Condition {
	return func(s *State) bool { return len(s.ShowDocuments) >= n }
}

// NotificationCount holds once at least n notifications of method have arrived.
func NotificationCount(method string, n int) Condition {
	return func(s *State) bool { return len(s.Notifications[method]) >= n }
}

// RequestCount holds once at least n requests of method have arrived from the server.
func RequestCount(method string, n int) Condition {
	return func(s *State) bool { return len(s.Requests[method]) >= n }
}

// AllOf holds when every one of conds holds.
func AllOf(conds ...Condition) Condition {
	return func(s *State) bool {
		for _, c := range conds {
			if !c(s) {
				return false
			}
		}
		return true
	}
}

// AnyOf holds when one of conds holds.
func AnyOf(conds ...Condition) Condition {
	return func(s *State) bool {
		for _, c := range conds {
			if c(s) {
				return true
			}
		}
		return false
	}
}
