package codex_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// BenchmarkClientDeltas measures what one item/agentMessage/delta costs the client, from codex's
// stdout to a turn's subscription: reading the line, decoding it, routing it by thread and turn.
func BenchmarkClientDeltas(b *testing.B) {
	clientR, clientW, serverR, serverW := codextest.Pipes()
	go func() {
		sc := bufio.NewScanner(serverR)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.Method == codex.MethodInitialize {
				_, _ = io.WriteString(serverW, `{"id":`+string(m.ID)+`,"result":{"userAgent":"bench","codexHome":"/b","platformFamily":"unix","platformOs":"linux"}}`+"\n")
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, err := codex.NewClient(ctx, clientR, clientW, codex.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = client.Close(); _ = serverW.Close() }()
	sub := client.Subscribe("thread-1")
	defer sub.Close()

	const batch = 1000
	var lines []byte
	for i := range batch {
		lines = append(lines, `{"method":"item/agentMessage/delta","params":{"threadId":"thread-1","turnId":"turn-1","itemId":"msg_1","delta":"word`+strconv.Itoa(i%10)+` "},"emittedAtMs":1796225431453}`+"\n"...)
	}
	b.SetBytes(int64(len(lines) / batch))
	b.ReportAllocs()
	b.ResetTimer()
	for sent := 0; sent < b.N; sent += batch {
		go func() { _, _ = serverW.Write(lines) }()
		for range batch {
			if _, ok := <-sub.Events(); !ok {
				b.Fatal(sub.Err())
			}
		}
	}
}
