package agenthost_test

import (
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// TestTwoHostsShareStateDir is two servers (two editor windows) on one state dir, each with its own
// folder, both opened before either saved anything: every save of one keeps the other's folder, and
// a server started later on that state dir resumes both folders' threads.
func TestTwoHostsShareStateDir(t *testing.T) {
	fake := codextest.NewFake(t) // one fake, so thread ids are unique across the hosts
	stateDir := t.TempDir()
	a := newFakeHostOn(t, fake, stateDir, nil)
	b := newFakeHostOn(t, fake, stateDir, nil)
	sa, sb := a.session(t), b.session(t)

	resA, _ := run(t, sa, "first in A")
	resB, _ := run(t, sb, "first in B")
	// A writes again with an in-memory state that never saw B's folder.
	if res, _ := run(t, sa, "second in A"); res.ThreadID != resA.ThreadID {
		t.Fatalf("A's second turn on thread %s, want %s", res.ThreadID, resA.ThreadID)
	}
	st := readState(t, stateDir)
	if st.Folders[a.folder].ThreadID != resA.ThreadID || st.Folders[b.folder].ThreadID != resB.ThreadID {
		t.Fatalf("state.json lost a folder: %+v (want %s=%s, %s=%s)", st, a.folder, resA.ThreadID, b.folder, resB.ThreadID)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	st = readState(t, stateDir)
	if st.Folders[a.folder].Turns != 2 || st.Folders[b.folder].Turns != 1 {
		t.Fatalf("state.json after both closed: %+v", st)
	}

	c := newFakeHostOn(t, fake, stateDir, nil)
	for folder, thread := range map[string]string{a.folder: resA.ThreadID, b.folder: resB.ThreadID} {
		s, err := c.Session(folder)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Status().ThreadID; got != thread {
			t.Errorf("restarted host: %s has thread %q, want %s", folder, got, thread)
		}
		res, _ := run(t, s, "again")
		if !res.Completed || res.ThreadID != thread || res.NewThread {
			t.Errorf("turn after restart in %s: thread %s new %v, want %s resumed", folder, res.ThreadID, res.NewThread, thread)
		}
		if th := fake.Threads()[thread]; len(th.Resumes) != 1 || th.Resumes[0].Cwd != folder {
			t.Errorf("thread %s was not resumed in %s: %+v", thread, folder, th.Resumes)
		}
	}
}

// TestSaveKeepsNewerEntryOfOtherServer: a folder this server did not change since another server
// saved it keeps the other server's (newer) entry when this server saves another folder, and a
// session opened after the other server's save sees that save.
func TestSaveKeepsNewerEntryOfOtherServer(t *testing.T) {
	fake := codextest.NewFake(t)
	stateDir := t.TempDir()
	a := newFakeHostOn(t, fake, stateDir, nil)
	b := newFakeHostOn(t, fake, stateDir, nil)
	shared := a.folder

	sa := a.session(t)
	first, _ := run(t, sa, "in A")

	// B opens the folder after A saved it: B resumes A's thread rather than the empty state B read
	// when it started.
	sb, err := b.Session(shared)
	if err != nil {
		t.Fatal(err)
	}
	if got := sb.Status().ThreadID; got != first.ThreadID {
		t.Fatalf("B's session on the shared folder: thread %q, want A's %s", got, first.ThreadID)
	}
	if err := sb.NewThread(); err != nil {
		t.Fatal(err)
	}
	newer, _ := run(t, sb, "in B, on a new thread")
	if newer.ThreadID == first.ThreadID {
		t.Fatal("B did not start a new thread")
	}

	// A saves another folder: the shared folder must keep B's newer thread, not A's stale copy.
	other, err := a.Session(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run(t, other, "elsewhere in A")
	if got := readState(t, stateDir).Folders[shared].ThreadID; got != newer.ThreadID {
		t.Fatalf("after A saved another folder, the shared folder's thread is %s, want B's %s", got, newer.ThreadID)
	}
}
