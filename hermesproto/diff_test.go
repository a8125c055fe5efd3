package hermesproto_test

import (
	"testing"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

func TestApprovalDiff(t *testing.T) {
	a := hermesproto.Approval{Changes: []hermesproto.FileChange{
		{Path: "/w/new.go", Kind: hermesproto.FileChangeKind{Type: "add"}, Diff: "package w\nfunc F() {}"},
		{Path: "/w/old.go", Kind: hermesproto.FileChangeKind{Type: "delete"}, Diff: "package w\n"},
		{Path: "/w/x.go", Kind: hermesproto.FileChangeKind{Type: "update"}, Diff: "@@ -1 +1 @@\n-a\n+b\n"},
	}}
	want := "--- /w/new.go\n+++ /w/new.go (add)\n+package w\n+func F() {}\n" +
		"--- /w/old.go\n+++ /w/old.go (delete)\n-package w\n" +
		"--- /w/x.go\n+++ /w/x.go (update)\n@@ -1 +1 @@\n-a\n+b\n"
	if got := a.Diff(); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := (hermesproto.Approval{}).Diff(); got != "" {
		t.Errorf("no changes: %q", got)
	}
}
