package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FakeSpec says what the turns of the fake codex emit.
type FakeSpec struct {
	// Tools is how many commandExecution items a turn runs (each started, with one output delta,
	// completed, then a token usage update).
	Tools int
	// Deltas is how many item/agentMessage/delta the turn's answer streams, after the tools.
	Deltas int
}

// Environment variables that carry a FakeSpec to the fake codex hermes-lsp spawns.
const (
	EnvFakeTools  = "HERMES_BENCH_FAKE_TOOLS"
	EnvFakeDeltas = "HERMES_BENCH_FAKE_DELTAS"
)

// FakeSpecFromEnv reads the spec from the environment (a plain answer of six deltas by default).
func FakeSpecFromEnv() FakeSpec {
	spec := FakeSpec{Deltas: 6}
	if n, err := strconv.Atoi(os.Getenv(EnvFakeTools)); err == nil && n >= 0 {
		spec.Tools = n
	}
	if n, err := strconv.Atoi(os.Getenv(EnvFakeDeltas)); err == nil && n >= 0 {
		spec.Deltas = n
	}
	return spec
}

// Env is the spec as codex.env settings.
func (s FakeSpec) Env() map[string]string {
	return map[string]string{EnvFakeTools: strconv.Itoa(s.Tools), EnvFakeDeltas: strconv.Itoa(s.Deltas)}
}

// ServeFakeCodex plays a codex app-server on r and w with no model behind it, as fast as the reader
// takes its output: it answers initialize, thread/start, thread/resume, turn/start (then plays the
// turn as spec says) and turn/interrupt, refuses other requests, and returns at the end of its input.
// It is the zero-latency codex of the host-overhead and event-flood measurements.
func ServeFakeCodex(r io.Reader, w io.Writer, spec FakeSpec) error {
	f := &fakeCodex{w: bufio.NewWriterSize(w, 64<<10), spec: spec}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Method == "" || len(m.ID) == 0 {
			continue // answers and notifications need nothing
		}
		f.handle(m.ID, m.Method, m.Params)
	}
	f.wg.Wait()
	return sc.Err()
}

type fakeCodex struct {
	spec FakeSpec

	mu      sync.Mutex // one line at a time
	w       *bufio.Writer
	threads int
	turns   int
	wg      sync.WaitGroup
}

func (f *fakeCodex) send(v any) {
	b, _ := json.Marshal(v)
	f.mu.Lock()
	defer f.mu.Unlock()
	_, _ = f.w.Write(append(b, '\n'))
	_ = f.w.Flush()
}

func (f *fakeCodex) reply(id json.RawMessage, result any) {
	f.send(map[string]any{"id": id, "result": result})
}

func (f *fakeCodex) notify(method string, params any) {
	f.send(map[string]any{"method": method, "params": params})
}

func (f *fakeCodex) handle(id json.RawMessage, method string, params json.RawMessage) {
	switch method {
	case "initialize":
		f.reply(id, map[string]any{"userAgent": "hermes-bench-fake/0.171.0", "codexHome": os.Getenv("CODEX_HOME"), "platformFamily": "unix", "platformOs": "linux"})
	case "thread/start", "thread/resume":
		var p struct {
			ThreadID string `json:"threadId"`
			Cwd      string `json:"cwd"`
		}
		_ = json.Unmarshal(params, &p)
		if p.ThreadID == "" {
			f.threads++
			p.ThreadID = fmt.Sprintf("thread-%d", f.threads)
		}
		f.reply(id, map[string]any{
			"thread": map[string]any{"id": p.ThreadID, "cwd": p.Cwd, "status": map[string]any{"type": "idle"}, "turns": []any{}},
			"model":  "fake", "modelProvider": "fake", "cwd": p.Cwd,
		})
	case "turn/start":
		var p struct {
			ThreadID string `json:"threadId"`
		}
		_ = json.Unmarshal(params, &p)
		f.turns++
		turn := fmt.Sprintf("turn-%d", f.turns)
		f.reply(id, map[string]any{"turn": map[string]any{"id": turn, "items": []any{}, "status": "inProgress", "error": nil}})
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.play(p.ThreadID, turn)
		}()
	case "turn/interrupt":
		f.reply(id, map[string]any{})
	default:
		f.send(map[string]any{"id": id, "error": map[string]any{"code": -32600, "message": "unknown method " + method}})
	}
}

// Notifications is how many notifications a turn of the spec emits.
func (s FakeSpec) Notifications() int {
	n := 3 + 4*s.Tools // turn/started, the last usage, turn/completed
	if s.Deltas > 0 {
		n += 2 + s.Deltas
	}
	return n
}

// play emits one turn: its tools, then its answer, then turn/completed. Lines are built by hand
// rather than marshalled from maps so that the fake costs little beside the host it feeds (the
// in-process benchmark shares a CPU profile with it).
func (f *fakeCodex) play(thread, turn string) {
	ids := strconv.Quote(thread) + `,"turnId":` + strconv.Quote(turn)
	line := func(format string, args ...any) {
		f.mu.Lock()
		fmt.Fprintf(f.w, format, args...)
		_ = f.w.WriteByte('\n')
		_ = f.w.Flush() // a line at a time, as codex writes
		f.mu.Unlock()
	}
	now := time.Now().Unix()
	line(`{"method":"turn/started","params":{"threadId":%s,"turn":{"id":%q,"items":[],"status":"inProgress","startedAt":%d}}}`, strconv.Quote(thread), turn, now)
	const usage = `"tokenUsage":{"last":{"totalTokens":1234,"inputTokens":1200,"cachedInputTokens":1000,"outputTokens":34,"reasoningOutputTokens":0},"total":{"totalTokens":1234,"inputTokens":1200,"cachedInputTokens":1000,"outputTokens":34,"reasoningOutputTokens":0},"modelContextWindow":258400}`
	for i := range f.spec.Tools {
		line(`{"method":"item/started","params":{"threadId":%s,"item":{"type":"commandExecution","id":"call_%d","command":"go test ./pkg%d","cwd":"/","status":"inProgress"}}}`, ids, i, i)
		line(`{"method":"item/commandExecution/outputDelta","params":{"threadId":%s,"itemId":"call_%d","delta":"ok\n"}}`, ids, i)
		line(`{"method":"item/completed","params":{"threadId":%s,"item":{"type":"commandExecution","id":"call_%d","command":"go test ./pkg%d","cwd":"/","status":"completed","exitCode":0,"aggregatedOutput":"ok\n","durationMs":1}}}`, ids, i, i)
		line(`{"method":"thread/tokenUsage/updated","params":{"threadId":%s,%s}}`, ids, usage)
	}
	if f.spec.Deltas > 0 {
		var text strings.Builder
		line(`{"method":"item/started","params":{"threadId":%s,"item":{"type":"agentMessage","id":"msg_1","text":""}}}`, ids)
		for i := range f.spec.Deltas {
			d := "word" + strconv.Itoa(i%10) + " "
			text.WriteString(d)
			line(`{"method":"item/agentMessage/delta","params":{"threadId":%s,"itemId":"msg_1","delta":%q}}`, ids, d)
		}
		line(`{"method":"item/completed","params":{"threadId":%s,"item":{"type":"agentMessage","id":"msg_1","text":%q}}}`, ids, text.String())
	}
	line(`{"method":"thread/tokenUsage/updated","params":{"threadId":%s,%s}}`, ids, usage)
	line(`{"method":"turn/completed","params":{"threadId":%s,"turn":{"id":%q,"items":[],"status":"completed","error":null}}}`, strconv.Quote(thread), turn)
}
