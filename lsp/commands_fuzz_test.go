package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// FuzzAskArgs sends workspace/executeCommand with arbitrary arguments and URIs to a server on the
// fake codex: hermes.ask mostly, and the other commands that take a folder's URI. Whatever the
// arguments, the server answers (a result or an error, never a panic turned into "please report
// this") and stays up: hermes.status answers after each command.
//
// In the seeds and inputs, {{folder}} stands for the workspace folder, which holds main.go (on disk
// only) and open.go (open in the editor, with unsaved text).
func FuzzAskArgs(f *testing.F) {
	type seed struct {
		cmd  uint8
		args string
		uri  string
	}
	file := "file://{{folder}}/main.go"
	for _, s := range []seed{
		{0, `{"prompt":"explain this"}`, ""},
		{0, `{"prompt":"fix","range":{"start":{"line":2,"character":0},"end":{"line":4,"character":0}}}`, file},
		{0, `{"prompt":"fix","range":{"start":{"line":5,"character":3},"end":{"line":2,"character":1}}}`, file},
		{0, `{"prompt":"fix","range":{"start":{"line":9,"character":0},"end":{"line":1,"character":0}}}`, "file://{{folder}}/open.go"},
		{0, `{"prompt":"x","range":{"start":{"line":4294967295,"character":4294967295},"end":{"line":0,"character":0}}}`, file},
		{0, `{"prompt":"x","diagnostics":[{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}},"message":"bad"}],"range":{"start":{"line":0,"character":0},"end":{"line":3,"character":0}}}`, file},
		{0, `"a bare string prompt"`, ""},
		{0, `{"prompt":""}`, ""},
		{0, `{"prompt":42}`, ""},
		{0, `null`, ""},
		{0, `[1,2,3]`, ""},
		{0, `{"prompt":"x"}`, "file:///etc/passwd"},
		{0, `{"prompt":"x"}`, "file://{{folder}}/../outside"},
		{0, `{"prompt":"x"}`, "untitled:Untitled-1"},
		{0, `{"prompt":"x"}`, "file://%zz"},
		{0, `{"prompt":"x"}`, "::::"},
		{0, `{"prompt":"x"}`, "file:///c%3A/Windows"},
		{0, `{"prompt":"x"}`, "file://{{folder}}/a%00b"},
		{1, `{}`, file},
		{2, `{"approvalId":"a1","decision":"once"}`, ""},
		{2, `{"approvalId":{},"decision":7}`, ""},
		{3, `{}`, "file://{{folder}}"},
		{4, `{}`, file},
		{5, `{}`, file},
		{6, `{}`, file},
		{7, `{}`, ""},
	} {
		f.Add(s.cmd, s.args, s.uri)
	}

	commands := []string{hermesproto.CmdAsk, hermesproto.CmdCancel, hermesproto.CmdApprove, hermesproto.CmdNewThread, hermesproto.CmdToggleYolo,
		hermesproto.CmdShowTranscript, hermesproto.CmdCompact, hermesproto.CmdStatus}

	fake := codextest.NewFake(f)
	folder := f.TempDir()
	var lines strings.Builder
	for i := range 12 {
		lines.WriteString("line " + string(rune('a'+i)) + "\n")
	}
	if err := os.WriteFile(filepath.Join(folder, "main.go"), []byte(lines.String()), 0o644); err != nil {
		f.Fatal(err)
	}
	srv := lsp.NewServer(lsp.Options{StartCodex: fake.Start, ClientTimeout: 5 * time.Second})
	serverEnd, clientEnd := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()
	ctx, cancel := context.WithCancel(context.Background())
	ed, err := lsptest.Connect(ctx, clientEnd, lsptest.VSCode)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		_ = ed.Close()
		<-served
		cancel()
	})
	initCtx, initCancel := context.WithTimeout(ctx, 10*time.Second)
	defer initCancel()
	if _, err := ed.Initialize(initCtx, []string{folder}, map[string]any{"stateDir": f.TempDir(), "openTranscript": false}); err != nil {
		f.Fatal(err)
	}
	if err := ed.OpenFile(initCtx, filepath.Join(folder, "open.go"), lines.String()+"unsaved\n"); err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, cmd uint8, args, uri string) {
		args = strings.ReplaceAll(args, "{{folder}}", folder)
		uri = strings.ReplaceAll(uri, "{{folder}}", folder)
		var arg any
		if json.Unmarshal([]byte(args), &arg) != nil {
			arg = args // not JSON: send it as a string
		}
		if obj, ok := arg.(map[string]any); ok && uri != "" {
			obj["uri"] = uri
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		name := commands[int(cmd)%len(commands)]
		_, err := ed.ExecuteCommand(ctx, name, arg)
		switch {
		case errors.Is(err, lsptest.ErrClosed) || ctx.Err() != nil:
			t.Fatalf("%s %s: the server is gone or stuck: %v", name, args, err)
		case err != nil && strings.Contains(err.Error(), "please report this"):
			t.Fatalf("%s %s (uri %q): the handler panicked: %v", name, args, uri, err)
		}
		if _, err := ed.ExecuteCommand(ctx, hermesproto.CmdStatus); err != nil {
			t.Fatalf("status after %s %s: %v", name, args, err)
		}
	})
}
