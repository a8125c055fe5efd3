// Package codextest provides fakes of codex app-server for tests: Replay plays the server side of a
// recorded transcript against a client over in-process pipes; Fake is a scripted app-server whose
// turns a test writes; NewReal sets up the real pinned codex against a fake model on loopback.
package codextest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sync"
)

// Directions of a transcript record.
const (
	ClientToServer = "C>S"
	ServerToClient = "S>C"
)

// Record is one line of a recorded transcript: {"t": seconds, "dir": "C>S" | "S>C", "msg": {...}}.
// Records of other directions (such as "timings") carry no message of the protocol.
type Record struct {
	T   float64         `json:"t"`
	Dir string          `json:"dir"`
	Msg json.RawMessage `json:"msg"`
}

// Message is the JSON-RPC shape shared by every message of a transcript.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// IsRequest reports whether m is a request (it has a method and an id).
func (m *Message) IsRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// IsNotification reports whether m is a notification (a method and no id).
func (m *Message) IsNotification() bool { return m.Method != "" && len(m.ID) == 0 }

// IsResponse reports whether m answers a request.
func (m *Message) IsResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// Decode parses a record's message.
func (r Record) Decode() (Message, error) {
	var m Message
	err := json.Unmarshal(r.Msg, &m)
	return m, err
}

// LoadTranscript reads a JSONL transcript, keeping only the records of the protocol (C>S and S>C).
func LoadTranscript(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load transcript: %w", err)
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("load transcript %s:%d: %w", path, line, err)
		}
		if r.Dir == ClientToServer || r.Dir == ServerToClient {
			out = append(out, r)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load transcript %s: %w", path, err)
	}
	return out, nil
}

// Replay plays the server side of a transcript. It writes the recorded server messages in order, and
// where the transcript has a client message it waits for the client to send the same kind of
// message: the same method for requests and notifications (with at least the recorded params, except
// for initialize), the same id for answers to server requests. Answers to server requests that the
// transcript does not have (the recorded client never answered) are kept aside, not failed.
type Replay struct {
	records []Record

	mu        sync.Mutex
	received  []Message
	unplanned []Message
}

// NewReplay returns a replay of records.
func NewReplay(records []Record) *Replay { return &Replay{records: records} }

// Received returns every message the client sent, in order.
func (rp *Replay) Received() []Message {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return append([]Message(nil), rp.received...)
}

// Unplanned returns the client's answers to server requests that the transcript never answered.
func (rp *Replay) Unplanned() []Message {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return append([]Message(nil), rp.unplanned...)
}

// Serve plays the transcript: it reads the client's messages from r and writes the server's to w.
// After the last record it keeps reading (and recording) until r ends or ctx is done, so the client
// is not cut off. It returns the first mismatch, or nil.
func (rp *Replay) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	in := make(chan Message)
	readErr := make(chan error, 1)
	go func() {
		defer close(in)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m Message
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				readErr <- fmt.Errorf("client sent a line that is not JSON: %q", sc.Text())
				return
			}
			select {
			case in <- m:
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
	}()

	ids := map[string]json.RawMessage{} // transcript request id -> the client's id
	next := func() (Message, error) {
		select {
		case m, ok := <-in:
			if !ok {
				err := <-readErr
				if err == nil {
					err = io.EOF
				}
				return Message{}, err
			}
			rp.mu.Lock()
			rp.received = append(rp.received, m)
			rp.mu.Unlock()
			return m, nil
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}

	for i, rec := range rp.records {
		want, err := rec.Decode()
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		switch rec.Dir {
		case ServerToClient:
			out := rec.Msg
			if want.IsResponse() {
				clientID, ok := ids[string(want.ID)]
				if !ok {
					return fmt.Errorf("record %d answers request %s, which the client never sent", i, want.ID)
				}
				if out, err = withID(rec.Msg, clientID); err != nil {
					return fmt.Errorf("record %d: %w", i, err)
				}
			}
			if _, err := w.Write(append(bytes.Clone(out), '\n')); err != nil {
				return fmt.Errorf("record %d: write: %w", i, err)
			}
		case ClientToServer:
			got, err := rp.expect(next, want)
			if err != nil {
				return fmt.Errorf("record %d (%s): %w", i, describe(want), err)
			}
			if want.IsRequest() {
				ids[string(want.ID)] = got.ID
			}
		}
	}
	for {
		if _, err := next(); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}
	}
}

// expect reads client messages until one matches want, setting aside unplanned answers.
func (rp *Replay) expect(next func() (Message, error), want Message) (Message, error) {
	for {
		got, err := next()
		if err != nil {
			return got, fmt.Errorf("waiting for the client: %w", err)
		}
		switch {
		case want.IsResponse():
			if got.IsResponse() && bytes.Equal(compact(got.ID), compact(want.ID)) {
				return got, nil
			}
		case want.IsRequest():
			if got.IsRequest() && got.Method == want.Method {
				if want.Method != "initialize" && !contains(got.Params, want.Params) {
					return got, fmt.Errorf("params differ: got %s, want at least %s", got.Params, want.Params)
				}
				return got, nil
			}
		case want.IsNotification():
			if got.IsNotification() && got.Method == want.Method {
				return got, nil
			}
		}
		if got.IsResponse() {
			rp.mu.Lock()
			rp.unplanned = append(rp.unplanned, got)
			rp.mu.Unlock()
			continue
		}
		return got, fmt.Errorf("client sent %s instead", describe(got))
	}
}

func describe(m Message) string {
	switch {
	case m.IsRequest():
		return "request " + m.Method
	case m.IsNotification():
		return "notification " + m.Method
	default:
		return "answer to " + string(m.ID)
	}
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// withID rewrites the id of a message.
func withID(msg, id json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, err
	}
	m["id"] = id
	return json.Marshal(m)
}

// contains reports whether got holds every member of want with an equal value (recursively for
// objects): a client may send more than the recorded one did, never less or different.
func contains(got, want json.RawMessage) bool {
	var g, w any
	if len(want) == 0 {
		return true
	}
	if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil {
		return false
	}
	return subset(g, w)
}

func subset(got, want any) bool {
	wm, ok := want.(map[string]any)
	if !ok {
		return reflect.DeepEqual(got, want)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, wv := range wm {
		gv, ok := gm[k]
		if !ok {
			if wv == nil {
				continue // a recorded null is the same as leaving it out
			}
			return false
		}
		if !subset(gv, wv) {
			return false
		}
	}
	return true
}

// Pipes returns two connected in-process pipes: the client reads what the server writes and the
// server reads what the client writes. Closing a writer ends the other side's reading.
func Pipes() (clientR *io.PipeReader, clientW *io.PipeWriter, serverR *io.PipeReader, serverW *io.PipeWriter) {
	clientR, serverW = io.Pipe()
	serverR, clientW = io.Pipe()
	return clientR, clientW, serverR, serverW
}
