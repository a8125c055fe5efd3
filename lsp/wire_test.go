package lsp_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

var update = flag.Bool("update", false, "rewrite testdata/wire/*.json from the server's answers")

// TestCommandResultsOnTheWire pins every command's result as the server sends it, through a real
// server on the fake codex: each answer, with the temporary folders replaced by placeholders, must
// equal testdata/wire/commands.json. Both sides are compared as canonical JSON (keys sorted): the
// order of an object's keys carries no meaning in JSON, the keys, values and nulls do. The file was
// first written by the server whose results were map[string]any, before they became hermesproto's
// types, and the typed server gives the same answers.
// go test ./lsp -run TestCommandResultsOnTheWire -update rewrites the file.
func TestCommandResultsOnTheWire(t *testing.T) {
	var steps []step
	record := func(f *fixture, name, cmd string, args ...any) json.RawMessage {
		t.Helper()
		raw, err := f.ed.ExecuteCommand(testCtx(t), cmd, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		result := placeholders(f, raw)
		if cmd == hermesproto.CmdStatus {
			// The account is codex's answer when codex runs, which a status before any turn may or
			// may not find: TestLogin pins it.
			var m map[string]json.RawMessage
			if err := json.Unmarshal(result, &m); err != nil {
				t.Fatalf("%s: %s: %v", name, result, err)
			}
			delete(m, "signedIn")
			delete(m, "account")
			result, _ = json.Marshal(m)
		}
		steps = append(steps, step{name, result})
		return raw
	}

	f := start(t, lsptest.Helix2501, nil)
	approved := make(chan string, 1)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		d, err := ft.RequestExecApproval("make build")
		if err != nil {
			d = err.Error()
		}
		approved <- d
		codextest.DefaultTurn(ft)
	})
	ctx := testCtx(t)
	path := f.file("Makefile", "all:\n")
	folderURI := map[string]any{"uri": workspace.URIFromPath(f.folder)}

	record(f, "status before any turn", hermesproto.CmdStatus)
	record(f, "toggleYolo on", hermesproto.CmdToggleYolo, folderURI)
	record(f, "toggleYolo off", hermesproto.CmdToggleYolo, folderURI)
	record(f, "ask", hermesproto.CmdAsk, map[string]any{"prompt": "build it", "uri": workspace.URIFromPath(path)})
	if err := f.ed.Await(ctx, lsptest.MessageContaining("hermes.approve")); err != nil {
		t.Fatalf("no approval: %v\n%s", err, f.ed.State())
	}
	raw := record(f, "status with a pending approval", hermesproto.CmdStatus)
	var st struct {
		Folders []hermesproto.FolderStatus `json:"folders"`
	}
	if err := json.Unmarshal(raw, &st); err != nil || len(st.Folders) != 1 || len(st.Folders[0].PendingApprovals) != 1 {
		t.Fatalf("status: %s (%v)", raw, err)
	}
	record(f, "ask while the turn runs (steered)", hermesproto.CmdAsk, map[string]any{"prompt": "and install it"})
	record(f, "approve", hermesproto.CmdApprove, map[string]any{"approvalId": st.Folders[0].PendingApprovals[0].ApprovalID, "decision": "once"})
	if d := <-approved; d != codex.DecisionAccept {
		t.Fatalf("decision %q", d)
	}
	f.awaitEnd(ctx)
	record(f, "status after the turn", hermesproto.CmdStatus)
	record(f, "cancel with no turn", hermesproto.CmdCancel, map[string]any{})
	record(f, "showTranscript", hermesproto.CmdShowTranscript, folderURI)
	// A compaction's turn id comes with codex's turn/started, which may follow the answer: not pinned.
	record(f, "compact", hermesproto.CmdCompact, folderURI)
	last := &steps[len(steps)-1].result
	*last = replaceField(t, *last, "<turnId>", "turnId")
	f.awaitEndN(ctx, 2)
	// The usage after a compaction is the host's accounting, not the wire's: its shape is pinned above.
	record(f, "status after the compaction", hermesproto.CmdStatus)
	last = &steps[len(steps)-1].result
	*last = replaceField(t, *last, "<usage>", "folders", "0", "usage")
	record(f, "newThread", hermesproto.CmdNewThread, folderURI)

	// Auto-approval that the session cannot turn off: the result says why.
	g := startWith(t, lsp.Options{Yolo: true}, lsptest.VSCode, nil)
	record(g, "toggleYolo kept on by --yolo", hermesproto.CmdToggleYolo, map[string]any{"uri": workspace.URIFromPath(g.folder)})

	var got bytes.Buffer
	got.WriteString("{\n")
	for i, s := range steps {
		key, _ := json.Marshal(s.name)
		got.WriteString("  " + string(key) + ": " + strings.ReplaceAll(string(canonical(t, s.result)), "\n", "\n  "))
		if i < len(steps)-1 {
			got.WriteString(",")
		}
		got.WriteString("\n")
	}
	got.WriteString("}\n")
	golden := filepath.Join("testdata", "wire", "commands.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./lsp -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("command results differ from %s (-update rewrites it if the change is meant):\n--- got\n%s", golden, got.Bytes())
	}
}

// step is one command and its answer.
type step struct {
	name   string
	result json.RawMessage
}

// placeholders replaces the fixture's temporary folders, which change on every run, in raw.
func placeholders(f *fixture, raw json.RawMessage) json.RawMessage {
	s := string(raw)
	for _, r := range []struct{ path, name string }{{f.folder, "<folder>"}, {f.state, "<stateDir>"}} {
		s = strings.ReplaceAll(s, strings.TrimPrefix(workspace.URIFromPath(r.path), "file://"), r.name)
		s = strings.ReplaceAll(s, r.path, r.name)
	}
	return json.RawMessage(s)
}

// replaceField is raw with the value at path (object keys and array indexes) replaced by v.
func replaceField(t *testing.T, raw json.RawMessage, v any, path ...string) json.RawMessage {
	t.Helper()
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		t.Fatal(err)
	}
	var parent any = root
	for i, key := range path {
		last := i == len(path)-1
		switch p := parent.(type) {
		case map[string]any:
			if _, ok := p[key]; !ok {
				t.Fatalf("no %v in %s", path, raw)
			}
			if last {
				p[key] = v
			}
			parent = p[key]
		case []any:
			n, err := strconv.Atoi(key)
			if err != nil || n >= len(p) {
				t.Fatalf("no %v in %s", path, raw)
			}
			if last {
				p[n] = v
			}
			parent = p[n]
		default:
			t.Fatalf("no %v in %s", path, raw)
		}
	}
	return mustJSON(root)
}

// canonical is raw re-encoded with sorted keys and indentation.
func canonical(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // the placeholders' <> stay readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}
