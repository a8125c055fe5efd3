package acpagent_test

import (
	"context"
	"io"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/agenthost/acpagent"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/jsonrpc"
)

// TestUsageOfThePrompt: the usage an agent gives in its answer to session/prompt (a member v1's
// schema lacks) is the turn's, with the cached tokens (read and written) added to the input
// tokens, as codex counts them; the session's total grows by each turn's; the context's size is usage_update's.
func TestUsageOfThePrompt(t *testing.T) {
	h := &harness{t: t, folder: t.TempDir(), buffers: map[string]string{}, atStart: map[string]string{}}
	h.request = declineAll
	h.connect(rawAgent(t, acp.InitializeResponse{}, func(peer *jsonrpc.Conn, req *jsonrpc.Request) {
		switch req.Method {
		case acp.MethodSessionNew:
			_ = peer.Reply(req, acp.NewSessionResponse{SessionID: "s1"}, nil)
		case acp.MethodSessionPrompt:
			_ = peer.Notify(acp.MethodSessionUpdate, acp.SessionNotification{SessionID: "s1", Update: acp.SessionUpdate{
				Kind: acp.SessionUpdateKindUsageUpdate, UsageUpdate: &acp.UsageUpdate{Used: 1000, Size: 200000}}})
			_ = peer.Reply(req, raw(`{"stopReason":"end_turn","usage":{"totalTokens":1080,"inputTokens":100,"outputTokens":50,"thoughtTokens":20,"cachedReadTokens":900,"cachedWriteTokens":10}}`), nil)
		default:
			_ = peer.Reply(req, nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "%s", req.Method))
		}
	}))
	thread := h.thread()
	for _, total := range []string{"1010", "2020"} {
		evs := h.turn(thread, "count")
		wantEvents(t, evs,
			"turn/started",
			"usage in=1000 cached=0 out=0 reasoning=0 window=200000 total.in="+map[string]string{"1010": "0", "2020": "1010"}[total],
			"usage in=1010 cached=900 out=50 reasoning=20 window=200000 total.in="+total,
			"turn/completed completed",
		)
		// As the host reads it: the fresh input is the agent's own input tokens.
		u := evs[2].Value.(*codex.TokenUsageParams).TokenUsage
		if got := agenthost.UsageFrom(u.Last, u.ModelContextWindow); got.Input != 100 || got.CacheRead != 900 || got.CacheWrite != 10 || got.Prompt != 1010 || got.Output != 50 {
			t.Errorf("the host reads the usage as %+v", got)
		}
	}
}

// rawAgent connects to an agent played by handle over pipes: it answers initialize with init (its
// protocol version set), and hands handle every other request, on the read goroutine, in order.
func rawAgent(t *testing.T, init acp.InitializeResponse, handle func(peer *jsonrpc.Conn, req *jsonrpc.Request)) acpagent.Connector {
	return func(ctx context.Context, opts acp.Options) (*acp.Client, error) {
		clientR, agentW := io.Pipe()
		agentR, clientW := io.Pipe()
		init.ProtocolVersion = acp.Version
		var peer *jsonrpc.Conn
		peer = jsonrpc.NewConn(agentR, agentW, jsonrpc.ConnOptions{JSONRPC: "2.0", OnRequestInOrder: func(req *jsonrpc.Request) {
			if req.Method == acp.MethodInitialize {
				_ = peer.Reply(req, init, nil)
				return
			}
			handle(peer, req)
		}})
		t.Cleanup(func() { _ = peer.Close() })
		return acp.New(ctx, clientR, clientW, opts)
	}
}
