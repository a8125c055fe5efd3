package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
)

var permissionOptions = []acp.PermissionOption{
	{OptionID: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
	{OptionID: "always", Name: "Always", Kind: acp.PermissionOptionKindAllowAlways},
	{OptionID: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
}

// askPermission plays a turn that announces a tool call, asks to run it and reports the outcome
// through outcomes.
func askPermission(outcomes chan<- acp.RequestPermissionOutcome) func(t *acptest.Turn) string {
	return func(t *acptest.Turn) string {
		t.ToolCall(acp.ToolCall{ToolCallID: "call-1", Title: "rm -rf build", Kind: acp.ToolKindExecute})
		outcome, err := t.RequestPermission(acp.ToolCallUpdate{ToolCallID: "call-1", Title: "rm -rf build"}, permissionOptions...)
		if err != nil {
			outcome = acp.RequestPermissionOutcome{Kind: "error: " + err.Error()}
		}
		outcomes <- outcome
		return t.StopReason(acp.StopReasonEndTurn)
	}
}

// TestPermissionSelected: the Handler's choice reaches the agent; the tool call it is about was
// delivered before the request.
func TestPermissionSelected(t *testing.T) {
	for _, option := range []string{"allow", "always", "reject"} {
		t.Run(option, func(t *testing.T) {
			rec := &recorder{}
			rec.permission = func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
				if kinds := rec.kinds(); len(kinds) != 1 || kinds[0] != acp.SessionUpdateKindToolCall {
					t.Errorf("updates delivered before the request: %q", kinds)
				}
				if req.ToolCall.ToolCallID != "call-1" || len(req.Options) != 3 || req.Options[1].Kind != acp.PermissionOptionKindAllowAlways {
					t.Errorf("request %+v", req)
				}
				return acp.Selected(option), nil
			}
			agent, client := connect(t, acptest.Config{}, rec)
			outcomes := make(chan acp.RequestPermissionOutcome, 1)
			agent.OnPrompt(askPermission(outcomes))
			if _, err := client.Prompt(testContext(t), newSession(t, client), []acp.ContentBlock{acp.TextBlock("clean")}); err != nil {
				t.Fatal(err)
			}
			got := recv(t, outcomes)
			if got.Kind != acp.RequestPermissionOutcomeKindSelected || got.SelectedPermissionOutcome == nil || got.SelectedPermissionOutcome.OptionID != option {
				t.Errorf("the agent got %+v", got)
			}
			answer := agent.Answers()[0]
			if want := map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": option}}; !jsonEqual(decodeMap(t, answer.Result), want) {
				t.Errorf("answered %s", answer.Result)
			}
		})
	}
}

// TestRequestWaitsForItsUpdates: while the Handler is still busy with the updates that came
// before a request of the agent's, the request waits for them.
func TestRequestWaitsForItsUpdates(t *testing.T) {
	release := make(chan struct{})
	rec := &recorder{onUpdate: func(ctx context.Context, n *acp.SessionNotification) {
		select {
		case <-release:
		case <-ctx.Done():
		}
	}}
	agent, client := connect(t, acptest.Config{}, rec)
	sent := make(chan struct{})
	outcomes := make(chan acp.RequestPermissionOutcome, 1)
	agent.OnPrompt(func(t *acptest.Turn) string {
		t.ToolCall(acp.ToolCall{ToolCallID: "call-1", Title: "rm -rf build", Kind: acp.ToolKindExecute})
		p, err := t.AskPermission(acp.ToolCallUpdate{ToolCallID: "call-1"}, permissionOptions...)
		close(sent)
		if err != nil {
			return acp.StopReasonRefusal
		}
		outcome, _ := p.Wait()
		outcomes <- outcome
		return acp.StopReasonEndTurn
	})
	session := newSession(t, client)
	go func() { _, _ = client.Prompt(testContext(t), session, []acp.ContentBlock{acp.TextBlock("clean")}) }()
	recv(t, sent)
	// A request answered after the agent's: once it returns, the client has read that one too.
	newSession(t, client)
	select {
	case <-rec.askedCh():
		t.Fatal("the Handler was asked for a permission before the tool call it is about was delivered")
	case <-time.After(50 * time.Millisecond): // no wait for an event: a bound on what must not come
	}
	close(release)
	if got := recv(t, outcomes); got.Kind != acp.RequestPermissionOutcomeKindCancelled { // the recorder's answer
		t.Errorf("the agent got %+v", got)
	}
}

// TestPermissionCancelled: a prompt cancelled while its permission request waits has the request
// answered "cancelled", whatever the Handler does; so does a request the agent withdraws, and one
// with no Handler to ask.
func TestPermissionCancelled(t *testing.T) {
	waitForCancel := func(cause error) func(ctx context.Context, _ *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		return func(ctx context.Context, _ *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
			<-ctx.Done()
			if got := context.Cause(ctx); !errors.Is(got, cause) {
				t.Errorf("the request's context ended with %v, want %v", got, cause)
			}
			return acp.Selected("allow"), nil // too late: the answer is "cancelled"
		}
	}

	t.Run("session/cancel", func(t *testing.T) {
		rec := &recorder{permission: waitForCancel(acp.ErrCancelled)}
		agent, client := connect(t, acptest.Config{}, rec)
		outcomes := make(chan acp.RequestPermissionOutcome, 1)
		agent.OnPrompt(askPermission(outcomes))
		session := newSession(t, client)
		returned := make(chan *acp.PromptResponse, 1)
		go func() {
			res, err := client.Prompt(testContext(t), session, []acp.ContentBlock{acp.TextBlock("clean")})
			if err != nil {
				t.Error(err)
			}
			returned <- res
		}()
		if _, err := agent.WaitReceived(testContext(t), acp.MethodSessionPrompt, 1); err != nil {
			t.Fatal(err)
		}
		waitPermissionAsked(rec)
		if err := client.Cancel(session); err != nil {
			t.Fatal(err)
		}
		if got := recv(t, outcomes); got.Kind != acp.RequestPermissionOutcomeKindCancelled {
			t.Errorf("the agent got %+v", got)
		}
		if res := recv(t, returned); res == nil || res.StopReason != acp.StopReasonCancelled {
			t.Errorf("prompt answered %+v", res)
		}
	})

	t.Run("asked after session/cancel", func(t *testing.T) {
		rec := &recorder{permission: func(ctx context.Context, _ *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
			return acp.Selected("allow"), nil // the prompt is cancelled: the answer is "cancelled"
		}}
		agent, client := connect(t, acptest.Config{}, rec)
		outcomes := make(chan acp.RequestPermissionOutcome, 1)
		started := make(chan struct{})
		agent.OnPrompt(func(t *acptest.Turn) string {
			close(started)
			t.WaitCancel()
			return askPermission(outcomes)(t)
		})
		session := newSession(t, client)
		returned := make(chan error, 1)
		go func() {
			_, err := client.Prompt(testContext(t), session, []acp.ContentBlock{acp.TextBlock("clean")})
			returned <- err
		}()
		recv(t, started)
		if err := client.Cancel(session); err != nil {
			t.Fatal(err)
		}
		if got := recv(t, outcomes); got.Kind != acp.RequestPermissionOutcomeKindCancelled {
			t.Errorf("the agent got %+v", got)
		}
		if err := recv(t, returned); err != nil {
			t.Fatal(err)
		}
		// The next prompt's requests are asked again.
		agent.OnPrompt(askPermission(outcomes))
		if _, err := client.Prompt(testContext(t), session, []acp.ContentBlock{acp.TextBlock("again")}); err != nil {
			t.Fatal(err)
		}
		if got := recv(t, outcomes); got.Kind != acp.RequestPermissionOutcomeKindSelected {
			t.Errorf("the next prompt's request: the agent got %+v", got)
		}
	})

	t.Run("withdrawn", func(t *testing.T) {
		rec := &recorder{permission: waitForCancel(acp.ErrWithdrawn)}
		agent, client := connect(t, acptest.Config{}, rec)
		outcomes := make(chan acp.RequestPermissionOutcome, 1)
		agent.OnPrompt(func(t *acptest.Turn) string {
			p, err := t.AskPermission(acp.ToolCallUpdate{ToolCallID: "call-1"}, permissionOptions...)
			if err != nil {
				return acp.StopReasonRefusal
			}
			waitPermissionAsked(rec)
			p.Withdraw()
			outcome, _ := p.Wait()
			outcomes <- outcome
			return acp.StopReasonEndTurn
		})
		if _, err := client.Prompt(testContext(t), newSession(t, client), []acp.ContentBlock{acp.TextBlock("clean")}); err != nil {
			t.Fatal(err)
		}
		if got := recv(t, outcomes); got.Kind != acp.RequestPermissionOutcomeKindCancelled {
			t.Errorf("the agent got %+v", got)
		}
	})

	t.Run("no handler", func(t *testing.T) {
		agent, client := connect(t, acptest.Config{}, nil)
		outcomes := make(chan acp.RequestPermissionOutcome, 1)
		agent.OnPrompt(askPermission(outcomes))
		if _, err := client.Prompt(testContext(t), newSession(t, client), []acp.ContentBlock{acp.TextBlock("clean")}); err != nil {
			t.Fatal(err)
		}
		if got := recv(t, outcomes); got.Kind != acp.RequestPermissionOutcomeKindCancelled {
			t.Errorf("the agent got %+v", got)
		}
	})
}

// waitPermissionAsked waits until rec has been asked for a permission, or the timeout.
func waitPermissionAsked(rec *recorder) {
	select {
	case <-rec.askedCh():
	case <-time.After(timeout):
	}
}

// TestFileSystem: the agent's reads and writes reach the Handler, and its answers the agent.
func TestFileSystem(t *testing.T) {
	var wrote *acp.WriteTextFileRequest
	rec := &recorder{
		read: func(ctx context.Context, req *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
			if req.Path != "/w/a.go" || req.Line != 3 || req.Limit != 2 {
				t.Errorf("read %+v", req)
			}
			return &acp.ReadTextFileResponse{Content: "unsaved\nbuffer\n"}, nil
		},
		write: func(ctx context.Context, req *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error) {
			wrote = req
			if req.Path == "/etc/passwd" {
				return nil, errors.New("outside the folder")
			}
			return &acp.WriteTextFileResponse{}, nil
		},
	}
	agent, client := connect(t, acptest.Config{}, rec)
	results := make(chan string, 3)
	agent.OnPrompt(func(t *acptest.Turn) string {
		content, err := t.ReadTextFile("/w/a.go", 3, 2)
		results <- content + errText(err)
		results <- errText(t.WriteTextFile("/w/b.go", "package b\n"))
		results <- errText(t.WriteTextFile("/etc/passwd", "x"))
		return acp.StopReasonEndTurn
	})
	session := newSession(t, client)
	if _, err := client.Prompt(testContext(t), session, []acp.ContentBlock{acp.TextBlock("edit")}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"unsaved\nbuffer\n", "", "outside the folder"} {
		if got := recv(t, results); !strings.Contains(got, want) || (want == "" && got != "") {
			t.Errorf("the agent got %q, want %q", got, want)
		}
	}
	if wrote == nil || wrote.SessionID != session || wrote.Content != "x" {
		t.Errorf("the last write %+v", wrote)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestUnknownRequests: terminal/* and requests the client does not know are answered "method not
// found"; the file system too, with no Handler.
func TestUnknownRequests(t *testing.T) {
	for _, h := range []acp.Handler{&recorder{}, nil} {
		agent, client := connect(t, acptest.Config{}, h)
		errs := make(chan error, 3)
		agent.OnPrompt(func(t *acptest.Turn) string {
			errs <- t.Call(acp.MethodTerminalCreate, map[string]any{"sessionId": t.SessionID, "command": "ls"}, nil)
			errs <- t.Call("_vendor/thing", map[string]any{}, nil)
			_, err := t.ReadTextFile("/w/a.go", 0, 0)
			errs <- err
			return acp.StopReasonEndTurn
		})
		if _, err := client.Prompt(testContext(t), newSession(t, client), []acp.ContentBlock{acp.TextBlock("go")}); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			err := recv(t, errs)
			var rpcErr *acp.Error
			notFound := errors.As(err, &rpcErr) && rpcErr.Code == acp.ErrorCodeMethodNotFound
			if want := i < 2 || h == nil; notFound != want {
				t.Errorf("handler %v, request %d: %v", h != nil, i, err)
			}
		}
	}
}

// TestUnknownKindsKept: an update of a kind the package does not know, a content block of an
// unknown type, a member of the wrong type and a notification nobody knows lose nothing else:
// every update is delivered, the unknown ones with their raw JSON.
func TestUnknownKindsKept(t *testing.T) {
	rec := &recorder{}
	agent, client := connect(t, acptest.Config{}, rec)
	agent.OnPrompt(func(t *acptest.Turn) string {
		t.UpdateRaw(json.RawMessage(`{"sessionUpdate":"hologram","beam":{"x":1}}`))
		t.UpdateRaw(json.RawMessage(`{"sessionUpdate":"agent_message_chunk","content":{"type":"smell","odour":"pine"}}`))
		t.UpdateRaw(json.RawMessage(`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Read","kind":"teleport","status":7,` +
			`"locations":[{"path":"/w/a.go","line":"twelve"}],"content":[{"type":"hologram"},{"type":"diff","path":"/w/a.go","newText":"n"}],"extra":true}`))
		t.Notify(acp.MethodSessionUpdate, json.RawMessage(`{"sessionId":["not","a","string"],"update":{"sessionUpdate":"plan","entries":[]},"more":1}`))
		t.Notify("_vendor/ping", json.RawMessage(`{"x":1}`))
		t.Message("still here")
		return acp.StopReasonEndTurn
	})
	if _, err := client.Prompt(testContext(t), newSession(t, client), []acp.ContentBlock{acp.TextBlock("go")}); err != nil {
		t.Fatal(err)
	}
	u := rec.received()
	if len(u) != 5 {
		t.Fatalf("%d updates delivered, want 5", len(u))
	}
	if u[0].Update.Kind != "hologram" || !strings.Contains(string(u[0].Update.Raw), `"beam"`) {
		t.Errorf("unknown kind: %+v", u[0].Update)
	}
	if b := u[1].Update.ContentChunk.Content; b.Kind != "smell" || b.TextContent != nil || !strings.Contains(string(b.Raw), "pine") {
		t.Errorf("unknown content block: %+v", b)
	}
	call := u[2].Update.ToolCall
	if call == nil || call.ToolCallID != "c1" || call.Title != "Read" || call.Kind != "teleport" || call.Status != "" {
		t.Fatalf("tool call with odd members: %+v", call)
	}
	if len(call.Locations) != 1 || call.Locations[0].Path != "/w/a.go" || call.Locations[0].Line != 0 {
		t.Errorf("locations %+v", call.Locations)
	}
	if len(call.Content) != 2 || call.Content[0].Kind != "hologram" || call.Content[1].Diff == nil || call.Content[1].Diff.NewText != "n" {
		t.Errorf("content %+v", call.Content)
	}
	if u[3].SessionID != "" || u[3].Update.Plan == nil {
		t.Errorf("an update with a session id of the wrong type: %+v", u[3])
	}
	if text(u[4].Update.ContentChunk.Content) != "still here" {
		t.Errorf("the last update: %+v", u[4].Update)
	}
}
