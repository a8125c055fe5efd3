package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	fastjson "github.com/segmentio/encoding/json"
	"github.com/sourcegraph/conc/panics"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Methods the protocol package has no constant for.
const (
	methodUnregisterCapability = "client/unregisterCapability"
	methodWorkspaceFolders     = "workspace/workspaceFolders"
)

// answerFunc computes the answer to one server request. It runs on a goroutine of its own.
type answerFunc func(ctx context.Context) (any, error)

// handle is the jsonrpc2 handler. It runs inline in the connection's read loop, so it only records
// and starts goroutines: it never writes nor waits. It always returns nil (an error would close the
// connection).
func (e *Editor) handle(_ context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	params := append(json.RawMessage(nil), req.Params()...)
	if call, ok := req.(*jsonrpc2.Call); ok {
		e.handleCall(call.ID(), call.Method(), params, reply)
		return nil
	}
	e.handleNotification(req.Method(), params)
	if e.notified != nil {
		e.notified(req.Method(), params)
	}
	return nil
}

// handleNotification records a notification.
func (e *Editor) handleNotification(method string, params json.RawMessage) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.state
	s.Notifications[method] = append(s.Notifications[method], params)
	switch method {
	case protocol.MethodWindowShowMessage:
		var p protocol.ShowMessageParams
		if e.decodeLocked(method, params, &p) {
			s.ShowMessages = append(s.ShowMessages, p)
		}
	case protocol.MethodWindowLogMessage:
		var p protocol.LogMessageParams
		if e.decodeLocked(method, params, &p) {
			s.LogMessages = append(s.LogMessages, p)
		}
	case protocol.MethodTelemetryEvent:
		s.Telemetry = append(s.Telemetry, params)
	case protocol.MethodProgress:
		e.recordProgressLocked(params)
	case protocol.MethodCancelRequest:
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		var id jsonrpc2.ID
		if !e.decodeLocked(method, params, &p) {
			break
		}
		if err := id.UnmarshalJSON(p.ID); err != nil || len(p.ID) == 0 {
			e.violationLocked("%s: bad id in %s", method, params)
			break
		}
		s.CancelledByServer = append(s.CancelledByServer, p.ID)
		if cancel, ok := e.inflight[id]; ok {
			cancel()
		}
	}
	e.changedLocked()
}

// recordProgressLocked records a $/progress notification and checks its place in the token's
// begin, report..., end sequence.
func (e *Editor) recordProgressLocked(params json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"token"`
		Value json.RawMessage `json:"value"`
	}
	if !e.decodeLocked(protocol.MethodProgress, params, &p) {
		return
	}
	var tok protocol.ProgressToken
	if len(p.Token) == 0 || tok.UnmarshalJSON(p.Token) != nil {
		e.violationLocked("%s: bad token in %s", protocol.MethodProgress, params)
		return
	}
	var v struct {
		Kind        protocol.WorkDoneProgressKind `json:"kind"`
		Title       string                        `json:"title"`
		Message     string                        `json:"message"`
		Percentage  *uint32                       `json:"percentage"`
		Cancellable bool                          `json:"cancellable"`
	}
	if !e.decodeLocked(protocol.MethodProgress, p.Value, &v) {
		return
	}
	ev := ProgressEvent{
		Kind: v.Kind, Title: v.Title, Message: v.Message, Percentage: v.Percentage,
		Cancellable: v.Cancellable, Raw: p.Value,
	}
	prev := e.state.Progress[tok]
	switch {
	case ev.Kind == "": // partial results: no sequence
	case len(prev) == 0 && ev.Kind != protocol.WorkDoneProgressKindBegin:
		e.violationLocked("%s %q: %s before begin", protocol.MethodProgress, tok, ev.Kind)
	case len(prev) > 0 && ev.Kind == protocol.WorkDoneProgressKindBegin:
		e.violationLocked("%s %q: a second begin", protocol.MethodProgress, tok)
	case len(prev) > 0 && prev[len(prev)-1].Kind == protocol.WorkDoneProgressKindEnd:
		e.violationLocked("%s %q: %s after end", protocol.MethodProgress, tok, ev.Kind)
	}
	e.state.Progress[tok] = append(prev, ev)
}

// decodeLocked decodes params into v, recording a violation when they do not decode.
func (e *Editor) decodeLocked(method string, params json.RawMessage, v any) bool {
	if err := fastjson.Unmarshal(params, v); err != nil {
		e.violationLocked("%s: params %s: %v", method, params, err)
		return false
	}
	return true
}

// violationLocked records a protocol violation of the server.
func (e *Editor) violationLocked(format string, args ...any) {
	e.state.Violations = append(e.state.Violations, fmt.Sprintf(format, args...))
}

// handleCall records a server request and answers it from a goroutine of its own. The request is
// in e.inflight before the goroutine starts, so a $/cancelRequest that follows at once finds it.
func (e *Editor) handleCall(id jsonrpc2.ID, method string, params json.RawMessage, reply jsonrpc2.Replier) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.state.Requests[method] = append(e.state.Requests[method], params)
	answer := e.recordRequestLocked(method, params)
	e.changedLocked()
	if e.closing {
		return // Close is ending the connection: nobody to answer
	}
	ctx, cancel := context.WithCancel(e.ctx)
	e.inflight[id] = cancel
	e.wg.Go(func() {
		defer cancel()
		e.answer(ctx, id, method, params, answer, reply)
	})
}

// answer computes the answer to a request and writes it.
func (e *Editor) answer(ctx context.Context, id jsonrpc2.ID, method string, params json.RawMessage, answer answerFunc, reply jsonrpc2.Replier) {
	var result any
	var err error
	if r := panics.Try(func() { result, err = answer(ctx) }); r != nil {
		result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "lsptest: answering %s panicked: %v", method, r.Value)
		e.mu.Lock()
		e.panics = append(e.panics, fmt.Sprintf("lsptest: answering %s: %s", method, r))
		e.mu.Unlock()
	}
	e.mu.Lock()
	delete(e.inflight, id)
	if method == protocol.MethodWorkDoneProgressCreate && err == nil {
		// Accepted before the answer leaves, so the server's first $/progress finds it.
		var p struct {
			Token protocol.ProgressToken `json:"token"`
		}
		if fastjson.Unmarshal(params, &p) == nil {
			e.state.acceptedTokens[p.Token] = true
		}
	}
	e.mu.Unlock()
	if e.ctx.Err() != nil {
		return // the connection ended: nobody to answer
	}
	if ctx.Err() != nil && err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		err = jsonrpc2.NewError(protocol.CodeRequestCancelled, "request cancelled")
	}
	var wireErr error
	if err != nil {
		wireErr = toWireError(err)
		result = nil
	}
	// A reply written on a cancelled context is dropped: the request's own ctx may be cancelled.
	_ = reply(context.WithoutCancel(ctx), result, wireErr)
}

// recordRequestLocked records a request of the kinds State has fields for and returns how to
// answer it: the handler set for the method, else the profile's answer.
func (e *Editor) recordRequestLocked(method string, params json.RawMessage) answerFunc {
	s := e.state
	p := e.profile
	var a Answer
	var normal answerFunc
	known := true
	switch method {
	case protocol.MethodWorkDoneProgressCreate:
		var c struct {
			Token json.RawMessage `json:"token"`
		}
		var tok protocol.ProgressToken
		if e.decodeLocked(method, params, &c) {
			if len(c.Token) == 0 || tok.UnmarshalJSON(c.Token) != nil {
				e.violationLocked("%s: bad token in %s", method, params)
			} else {
				s.CreatedTokens = append(s.CreatedTokens, tok)
			}
		}
		a, normal = p.WorkDoneProgressCreate, answerNull
	case protocol.MethodWindowShowMessageRequest:
		var r protocol.ShowMessageRequestParams
		if e.decodeLocked(method, params, &r) {
			s.ShowMessageRequests = append(s.ShowMessageRequests, r)
		}
		hook, echo := e.smr, p.additionalPropertiesSupport()
		a = p.ShowMessageRequest
		normal = func(ctx context.Context) (any, error) { return showMessageRequestAnswer(ctx, hook, echo, params) }
	case protocol.MethodShowDocument:
		var r protocol.ShowDocumentParams
		if e.decodeLocked(method, params, &r) {
			s.ShowDocuments = append(s.ShowDocuments, r)
		}
		a, normal = p.ShowDocument, answerValue(&protocol.ShowDocumentResult{Success: true})
	case protocol.MethodWorkspaceConfiguration:
		var r protocol.ConfigurationParams
		if e.decodeLocked(method, params, &r) {
			s.ConfigurationRequests = append(s.ConfigurationRequests, r)
		}
		values := make([]any, len(r.Items))
		for i, it := range r.Items {
			values[i] = e.configValueLocked(it.Section)
		}
		a, normal = p.Configuration, answerValue(values)
	case protocol.MethodWorkspaceApplyEdit:
		var r protocol.ApplyWorkspaceEditParams
		if e.decodeLocked(method, params, &r) {
			s.ApplyEdits = append(s.ApplyEdits, r)
		}
		a, normal = p.ApplyEdit, answerValue(&protocol.ApplyWorkspaceEditResponse{Applied: true})
		if p.RejectsEditMetadata && a == AnswerNormal && hasMember(params, "metadata") {
			// eglot 1.9's handler takes &key label edit only: an unknown member fails the call.
			a = AnswerInternalError
		}
	case protocol.MethodClientRegisterCapability, methodUnregisterCapability:
		a, normal = p.RegisterCapability, answerNull
	case methodInlayHintRefresh:
		a, normal = AnswerMethodNotFound, answerNull
		if p.InlayHintRefresh {
			a = AnswerNormal
		}
	case methodWorkspaceFolders:
		if p.supportsWorkspaceFolders() {
			a, normal = AnswerNormal, answerValue(e.workspaceFoldersLocked())
		} else {
			a = AnswerMethodNotFound
		}
	default:
		known = false
	}
	if h, ok := e.handlers[method]; ok {
		return func(ctx context.Context) (any, error) { return h(ctx, params) }
	}
	if !known {
		a = AnswerMethodNotFound
	}
	switch a {
	case AnswerNormal:
		return normal
	case AnswerNull:
		return answerNull
	case AnswerMethodNotFound:
		return answerError(jsonrpc2.MethodNotFound, fmt.Sprintf("Unhandled method %s", method))
	case AnswerInternalError:
		return answerError(jsonrpc2.InternalError, fmt.Sprintf("%s failed", method))
	case AnswerNever:
		return func(ctx context.Context) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}
	}
	return answerError(jsonrpc2.InternalError, fmt.Sprintf("lsptest: profile %s has unknown %v for %s", p.Name, a, method))
}

// hasMember reports whether params is a JSON object with the member name.
func hasMember(params json.RawMessage, name string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return false
	}
	_, ok := m[name]
	return ok
}

// answerNull answers null.
func answerNull(context.Context) (any, error) { return nil, nil }

// answerValue answers v.
func answerValue(v any) answerFunc {
	return func(context.Context) (any, error) { return v, nil }
}

// answerError answers with a JSON-RPC error.
func answerError(code jsonrpc2.Code, msg string) answerFunc {
	return func(context.Context) (any, error) { return nil, jsonrpc2.NewError(code, msg) }
}

// showMessageRequestAnswer runs the hook. An editor with additionalPropertiesSupport answers with
// the action item exactly as the server sent it, extra properties included.
func showMessageRequestAnswer(ctx context.Context, hook ShowMessageRequestHook, echo bool, params json.RawMessage) (any, error) {
	var p protocol.ShowMessageRequestParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	item, err := hook(ctx, p)
	if err != nil || item == nil {
		return nil, err
	}
	if echo {
		var raw struct {
			Actions []json.RawMessage `json:"actions"`
		}
		_ = json.Unmarshal(params, &raw)
		for _, a := range raw.Actions {
			var t struct {
				Title string `json:"title"`
			}
			if json.Unmarshal(a, &t) == nil && t.Title == item.Title {
				return a, nil
			}
		}
	}
	return item, nil
}

// configValueLocked returns the value of a configuration section: the value set for it, else the
// member of the value set for its longest dotted prefix, else null. The empty section gets every
// section.
func (e *Editor) configValueLocked(section string) any {
	if section == "" {
		return maps.Clone(e.config)
	}
	if v, ok := e.config[section]; ok {
		return v
	}
	parts := strings.Split(section, ".")
	for i := len(parts) - 1; i > 0; i-- {
		v, ok := e.config[strings.Join(parts[:i], ".")]
		if !ok {
			continue
		}
		// Go values of any type: look the members up in their JSON form.
		data, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		var x any
		if json.Unmarshal(data, &x) != nil {
			return nil
		}
		for _, k := range parts[i:] {
			m, ok := x.(map[string]any)
			if !ok {
				return nil
			}
			x = m[k]
		}
		return x
	}
	return nil
}
