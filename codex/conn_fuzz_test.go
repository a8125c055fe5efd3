package codex_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// FuzzConnDecode feeds arbitrary bytes to a client as codex's stdout, between well-formed messages:
// the JSON-lines reader, the JSON-RPC dispatch, the typed decoding of notifications and requests
// and the routing to subscriptions must never panic, never stall, and never end the connection. A
// sentinel notification after each input must arrive, in order, on a subscription of every thread.
//
// The seed corpus is every message codex wrote in the recorded transcripts, plus broken lines.
func FuzzConnDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "transcripts", "*.jsonl"))
	for _, file := range files {
		recs, err := codextest.LoadTranscript(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, r := range recs {
			if r.Dir == codextest.ServerToClient {
				f.Add([]byte(r.Msg))
			}
		}
	}
	for _, s := range []string{
		"", "\n", "plain text", "{", "}", "null", "[]", `{"id":1}`, `{"id":null,"method":"x"}`,
		`{"method":"turn/completed","params":{"turn":5}}`, `{"method":"item/started","params":{"item":[]}}`,
		`{"id":"s","method":"item/commandExecution/requestApproval","params":"x"}`,
		`{"id":3,"method":"item/fileChange/requestApproval","params":{"itemId":{}}}`,
		"\xff\xfe\x00", `{"method":"serverRequest/resolved","params":{"requestId":{"a":1}}}`,
		`{"id":1,"result":{}}` + "\n" + `{"id":1,"error":{"code":"x"}}`,
	} {
		f.Add([]byte(s))
	}

	clientR, clientW, serverR, serverW := codextest.Pipes()
	// The peer: answers initialize, then drains whatever the client writes (answers to requests).
	peerDone := make(chan struct{})
	go func() {
		defer close(peerDone)
		sc := bufio.NewScanner(serverR)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.Method == codex.MethodInitialize {
				_, _ = io.WriteString(serverW, `{"id":`+string(m.ID)+`,"result":{"userAgent":"fuzz/0.171.0","codexHome":"/fuzz","platformFamily":"unix","platformOs":"linux"}}`+"\n")
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	client, err := codex.NewClient(ctx, clientR, clientW, codex.Options{
		OnRequest: func(ctx context.Context, req *codex.Request) (any, error) {
			v, err := codex.DecodeRequest(req)
			if err != nil {
				return nil, codex.Errorf(codex.CodeInvalidParams, "%v", err)
			}
			return map[string]any{"decision": "decline", "decoded": v != nil}, nil
		},
	})
	cancel()
	if err != nil {
		f.Fatal(err)
	}
	sub := client.Subscribe("")
	f.Cleanup(func() {
		sub.Close()
		_ = client.Close()
		_ = serverW.Close()
		<-peerDone
	})

	var seq int
	f.Fuzz(func(t *testing.T, data []byte) {
		seq++
		sentinel := strconv.Itoa(seq)
		if _, err := serverW.Write(append(append([]byte(nil), data...), '\n')); err != nil {
			t.Fatalf("write: %v", err)
		}
		if _, err := io.WriteString(serverW, `{"method":"fuzz/sentinel","params":{"seq":"`+sentinel+`"}}`+"\n"); err != nil {
			t.Fatalf("write: %v", err)
		}
		timeout := time.After(5 * time.Second)
		for {
			select {
			case ev, ok := <-sub.Events():
				if !ok {
					t.Fatalf("the subscription ended after %q: %v", data, sub.Err())
				}
				if ev.Method != "fuzz/sentinel" {
					continue
				}
				if !strings.Contains(string(ev.Params), `"`+sentinel+`"`) {
					continue // the sentinel of an earlier input whose lines a previous one cut short
				}
				select {
				case <-client.Done():
					t.Fatalf("the client ended after %q: %v", data, client.Err())
				default:
				}
				return
			case <-timeout:
				t.Fatalf("the connection stalled after %q", data)
			}
		}
	})
}
