package agenthost_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// TestRealResumeThreadChecksTheFolder: on every supported codex (make test-compat), a folder resumes
// its own threads only: another folder's thread and an unknown id are refused, though codex before
// 0.171.0 ignores thread/list's includedThreadIds.
func TestRealResumeThreadChecksTheFolder(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	env.Model.Enqueue(fakemodel.Message("one"), fakemodel.Message("two"), fakemodel.Message("elsewhere"))
	h := realHost(t, env, nil)
	other := filepath.Join(env.Home, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := h.Session(env.Work)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := runToEnd(t, s, "first thread")
	if err := s.NewThread(); err != nil {
		t.Fatal(err)
	}
	second, _ := runToEnd(t, s, "second thread")
	so, err := h.Session(other)
	if err != nil {
		t.Fatal(err)
	}
	foreign, _ := runToEnd(t, so, "the other folder's thread")
	if !first.Completed || !second.Completed || !foreign.Completed || first.ThreadID == second.ThreadID {
		t.Fatalf("turns: %+v / %+v / %+v", first, second, foreign)
	}

	if err := s.ResumeThread(t.Context(), first.ThreadID); err != nil {
		t.Fatalf("resume the folder's first thread: %v", err)
	}
	for _, id := range []string{foreign.ThreadID, "01a00000-0000-7000-8000-000000000000"} {
		if err := s.ResumeThread(t.Context(), id); err == nil || !strings.Contains(err.Error(), "is not one of") {
			t.Errorf("resume %s, not the folder's, on codex %s: %v", id, env.Compat.Version, err)
		}
	}
}
