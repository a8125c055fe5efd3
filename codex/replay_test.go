package codex_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// The transcripts were recorded on the wire from codex 0.171.0; every one must replay, and these by
// name at least: a command, a patch, a declined approval, an interrupted turn, failed turns, an
// automatic compaction, and a thread started in one codex process and resumed in the next.
var mustReplay = []string{"shell", "patch", "decline", "interrupt", "errors", "autocompact", "resume1", "resume2"}

func TestReplayTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".jsonl"))
	}
	for _, want := range mustReplay {
		if !slices.Contains(names, want) {
			t.Errorf("transcript %s.jsonl is missing from testdata", want)
		}
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			replayTranscript(t, f)
		})
	}
}

// replayTranscript drives the client through the requests the recorded client made, against a fake
// server playing the recorded answers, and checks that the client decodes every message.
func replayTranscript(t *testing.T, path string) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	records, err := codextest.LoadTranscript(path)
	if err != nil {
		t.Fatal(err)
	}
	// What the recorded client answered to each server request, and the recorded responses.
	answers := map[string]json.RawMessage{}
	responses := map[string]codextest.Message{}
	var requests []codextest.Message
	notesBefore := map[string]int{} // request id -> notifications the server sent before it
	wantNotes := 0
	for _, r := range records {
		m, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r.Dir == codextest.ClientToServer && m.IsResponse():
			answers[string(m.ID)] = m.Result
		case r.Dir == codextest.ClientToServer && m.IsRequest() && m.Method != codex.MethodInitialize:
			requests = append(requests, m)
			notesBefore[string(m.ID)] = wantNotes
		case r.Dir == codextest.ServerToClient && m.IsResponse():
			responses[string(m.ID)] = m
		case r.Dir == codextest.ServerToClient && m.IsNotification():
			wantNotes++
		}
	}

	replay := codextest.NewReplay(records)
	clientR, clientW, serverR, serverW := codextest.Pipes()
	served := make(chan error, 1)
	go func() {
		err := replay.Serve(ctx, serverR, serverW)
		_ = serverW.Close()
		served <- err
	}()

	notes := make(chan codex.Event, wantNotes+1)
	client, err := codex.NewClient(ctx, clientR, clientW, codex.Options{
		OnNotification: func(ev codex.Event) { notes <- ev },
		OnRequest: func(ctx context.Context, req *codex.Request) (any, error) {
			v, err := codex.DecodeRequest(req)
			if err != nil {
				t.Errorf("decode server request %s: %v", req.Method, err)
			}
			if v == nil && strings.Contains(req.Method, "Approval") {
				t.Errorf("approval request %s not decoded", req.Method)
			}
			if ans, ok := answers[string(req.ID)]; ok {
				return ans, nil
			}
			// The recorded client never answered: codex withdraws the request itself.
			<-ctx.Done()
			return codex.ApprovalResponse{Decision: codex.DecisionDecline}, nil
		},
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	// Every notification is seen, decoded; a request is sent, like the recorded client sent it, once
	// the notifications that came before it have arrived.
	methods := map[string]int{}
	received := 0
	receive := func(upTo int) {
		for ; received < upTo; received++ {
			select {
			case ev := <-notes:
				methods[ev.Method]++
				checkEvent(t, ev)
			case <-ctx.Done():
				t.Fatalf("received %d of %d notifications (%v)", received, upTo, methods)
			}
		}
	}

	var turns []*turnWatch
	for _, req := range requests {
		receive(notesBefore[string(req.ID)])
		recorded := responses[string(req.ID)]
		err := drive(ctx, client, req, recorded, &turns)
		if recorded.Error != nil {
			var rpcErr *codex.Error
			if !errors.As(err, &rpcErr) {
				t.Fatalf("replay: %v", <-served)
				t.Fatalf("%s: want the recorded error %s, got %v", req.Method, recorded.Error, err)
			}
			continue
		}
		if err != nil {
			select {
			case serr := <-served:
				t.Fatalf("%s: %v (replay: %v)", req.Method, err, serr)
			default:
				t.Fatalf("%s: %v", req.Method, err)
			}
		}
	}

	receive(wantNotes)

	// Each turn subscription saw its own turn only, and ended with its turn/completed.
	for _, tw := range turns {
		<-tw.done
		var last codex.Event
		for _, ev := range tw.events {
			if ev.TurnID != "" && ev.TurnID != tw.id {
				t.Errorf("turn %s: received an event of turn %s (%s)", tw.id, ev.TurnID, ev.Method)
			}
			last = ev
		}
		if tw.sub.Err() != nil {
			t.Errorf("turn %s: subscription ended with %v", tw.id, tw.sub.Err())
		}
		done, ok := last.Value.(*codex.TurnCompletedParams)
		if !ok || done.Turn.ID != tw.id {
			t.Errorf("turn %s: last event %s, want its turn/completed", tw.id, last.Method)
		}
		tw.sub.Close()
	}

	if err := client.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("replay: %v", err)
	}
}

// turnWatch collects the events of one turn's subscription until it ends.
type turnWatch struct {
	id     string
	sub    *codex.Subscription
	events []codex.Event
	done   chan struct{}
}

func watchTurn(id string, sub *codex.Subscription) *turnWatch {
	tw := &turnWatch{id: id, sub: sub, done: make(chan struct{})}
	go func() {
		defer close(tw.done)
		for ev := range sub.Events() {
			tw.events = append(tw.events, ev)
		}
	}()
	return tw
}

// drive sends one recorded client request through the client's typed API and checks the answer
// against the recorded one.
func drive(ctx context.Context, c *codex.Client, req, recorded codextest.Message, turns *[]*turnWatch) error {
	var want struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	_ = json.Unmarshal(recorded.Result, &want)
	check := func(kind, got, want string) error {
		if got != want {
			return errors.New(kind + " id " + got + ", recorded " + want)
		}
		return nil
	}
	method := req.Method
	if method == codex.MethodThreadStart && bytes.Contains(req.Params, []byte(`"dynamicTools"`)) {
		// Client-side tools are an experimental API, outside the schema this client is typed from:
		// the recorded request goes as it is.
		method = ""
	}
	switch method {
	case codex.MethodThreadStart:
		var p codex.ThreadStartParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return err
		}
		res, err := c.StartThread(ctx, p)
		if err != nil {
			return err
		}
		return check("thread", res.Thread.ID, want.Thread.ID)
	case codex.MethodThreadResume:
		var p codex.ThreadResumeParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return err
		}
		res, err := c.ResumeThread(ctx, p)
		if err != nil {
			return err
		}
		return check("thread", res.Thread.ID, want.Thread.ID)
	case codex.MethodTurnStart:
		var p codex.TurnStartParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return err
		}
		turn, sub, err := c.StartTurn(ctx, p)
		if err != nil {
			return err
		}
		*turns = append(*turns, watchTurn(turn.ID, sub))
		return check("turn", turn.ID, want.Turn.ID)
	case codex.MethodTurnInterrupt:
		var p codex.TurnInterruptParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return err
		}
		return c.InterruptTurn(ctx, p.ThreadID, p.TurnID)
	case codex.MethodThreadCompact:
		var p codex.ThreadCompactParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return err
		}
		return c.CompactThread(ctx, p.ThreadID)
	default:
		var res json.RawMessage
		if err := c.Call(ctx, req.Method, req.Params, &res); err != nil || req.Method != codex.MethodThreadStart {
			return err
		}
		var got codex.ThreadResult
		if err := json.Unmarshal(res, &got); err != nil {
			return err
		}
		return check("thread", got.Thread.ID, want.Thread.ID)
	}
}

// checkEvent asserts that a notification decoded into what its method promises.
func checkEvent(t *testing.T, ev codex.Event) {
	t.Helper()
	if ev.Err != nil {
		t.Errorf("%s: %v", ev.Method, ev.Err)
		return
	}
	switch v := ev.Value.(type) {
	case nil:
		if known(ev.Method) {
			t.Errorf("%s: not decoded", ev.Method)
		}
	case *codex.ItemParams:
		if v.Item.Type == "" || v.Item.ID == "" || len(v.Item.Raw) == 0 || v.TurnID == "" {
			t.Errorf("%s: item not decoded: %+v", ev.Method, v.Item)
		}
		switch v.Item.Type {
		case codex.ItemCommandExecution:
			if v.Item.Command == "" || v.Item.Status == "" {
				t.Errorf("commandExecution without command or status: %s", v.Item.Raw)
			}
		case codex.ItemFileChange:
			if len(v.Item.Changes) == 0 || v.Item.Changes[0].Path == "" || v.Item.Changes[0].Kind.Type == "" {
				t.Errorf("fileChange without changes: %s", v.Item.Raw)
			}
		case codex.ItemDynamicToolCall:
			if v.Item.Tool == "" {
				t.Errorf("dynamicToolCall without tool: %s", v.Item.Raw)
			}
		}
	case *codex.TurnCompletedParams:
		if v.Turn.ID == "" || v.Turn.Status == "" {
			t.Errorf("turn/completed without turn: %s", ev.Params)
		}
		if v.Turn.Status == codex.TurnFailed && v.Turn.Error.CodexErrorInfo.Kind() == "" {
			t.Errorf("failed turn without error info: %s", ev.Params)
		}
	case *codex.TokenUsageParams:
		if v.TokenUsage.Total.TotalTokens == 0 || v.TokenUsage.ModelContextWindow == 0 {
			t.Errorf("token usage not decoded: %s", ev.Params)
		}
	case *codex.ErrorParams:
		if v.Error.Message == "" {
			t.Errorf("error without message: %s", ev.Params)
		}
	case *codex.DeltaParams:
		if v.ItemID == "" {
			t.Errorf("%s without item id: %s", ev.Method, ev.Params)
		}
	}
}

func known(method string) bool {
	v, _ := codex.DecodeNotification(codex.Notification{Method: method, Params: json.RawMessage(`{}`)})
	return v != nil
}
