//go:build helix

package helix_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// helixRuns is how many patches TestHelixChanges times.
const helixRuns = 3

// TestHelixChanges runs Helix on a markdown file with auto-approval on (yolo in languages.toml):
// "Hermes: run instruction" from `space a` patches two hunks of the open file; Helix cannot be told
// to reload, so the statusline says ":reload-all shows it" (timed from the file written), and
// `:reload-all` shows the patch (timed from the key). Each hunk is then a change under review: its
// Hint diagnostic in the `space d` picker, its diff in `space k`; the code action "Hermes: revert
// this change" reverts the second (`:write` writes it), "Hermes: keep this change" keeps the first.
// Then helixRuns more patches are timed the same way: the median from the disk to the message must
// be at most 100 ms.
func TestHelixChanges(t *testing.T) {
	const original = "hermes: patch the second and fifth lines\nSecond line.\nThird line.\nFourth line.\nFifth line.\n"
	patch := "*** Begin Patch\n*** Update File: notes.md\n@@\n-Second line.\n+Second line, patched.\n@@\n-Fifth line.\n+Fifth line, patched.\n*** End Patch\n"
	env := codextest.NewReal(t)
	// Each answer after a patch comes slowly: the reload message is on screen meanwhile.
	env.Model.Enqueue(fakemodel.Patch(patch), fakemodel.Message("Patched.").WithPace(100*time.Millisecond))
	prev := "Third line."
	for i := 1; i <= helixRuns; i++ {
		next := fmt.Sprintf("Third line, run %d.", i)
		env.Model.Enqueue(fakemodel.Patch(fakemodel.UpdateFilePatch("notes.md", prev, next)), fakemodel.Message("Run done.").WithPace(100*time.Millisecond))
		prev = next
	}
	notes := filepath.Join(env.Work, "notes.md")
	if err := os.WriteFile(notes, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	ses := startHelix(t, env, "notes.md", "yolo = true\n")
	ses.waitFor("Helix", 10*time.Second, contains("notes.md"))
	time.Sleep(time.Second) // the servers start

	// patchOnce runs the instruction on the first line and returns the time from the patch on disk
	// to the message that says to reload, then from :reload-all to the buffer showing want.
	patchOnce := func(want, answer string) (toMessage, toBuffer time.Duration) {
		t.Helper()
		ses.keys("Escape")
		ses.keys("g", "g")
		ses.codeAction("Hermes: run instruction")
		ses.waitFor("the message to reload", 30*time.Second, contains("Hermes changed notes.md on disk"))
		seen := time.Now()
		st, err := os.Stat(notes)
		if err != nil {
			t.Fatal(err)
		}
		toMessage = seen.Sub(st.ModTime())
		ses.waitFor("the turn to end", 30*time.Second, contains(answer))
		ses.keys(":")
		ses.keys("-l", "reload-all")
		pressed := time.Now()
		ses.press("Enter")
		ses.waitFor("the patch in the buffer", 10*time.Second, contains(want))
		return toMessage, time.Since(pressed)
	}

	toMessage, toBuffer := patchOnce("Fifth line, patched.", "Patched.")
	t.Logf("the two-hunk patch: on disk → the message to reload %v; :reload-all → the buffer %v", toMessage.Round(time.Millisecond), toBuffer.Round(time.Millisecond))

	// The changes in the diagnostics picker.
	ses.keys("Escape")
	ses.keys("Space")
	ses.keys("d")
	s := ses.waitFor("the changes in space d", 10*time.Second, contains("Hermes changed this (+1 −1): keep or revert"))
	if n := strings.Count(s, "Hermes changed this (+1 −1)"); n != 2 {
		t.Errorf("space d lists %d changes, want 2:\n%s", n, s)
	}
	ses.keys("Escape")

	// space k on the first shows its hunk.
	ses.keys("g", "g")
	ses.keys("j")
	ses.keys("Space")
	ses.keys("k")
	s = ses.waitFor("the change's hover", 10*time.Second, contains("-Second line."))
	if !strings.Contains(s, "+Second line, patched.") {
		t.Errorf("the change's hover:\n%s", s)
	}
	ses.keys("Escape")

	// The second reverted through its code action; :write writes it.
	ses.keys("j", "j", "j")
	ses.codeAction("Hermes: revert this change")
	ses.waitFor("the reverted line", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "Fifth line.") && !strings.Contains(s, "Fifth line, patched.")
	})
	ses.command("write")
	afterRevert := strings.Replace(original, "Second line.", "Second line, patched.", 1)
	for end := time.Now().Add(5 * time.Second); readFile(notes) != afterRevert && time.Now().Before(end); time.Sleep(25 * time.Millisecond) {
	}
	if got := readFile(notes); got != afterRevert {
		t.Errorf("notes.md after the revert and :write = %q, want %q; screen:\n%s", got, afterRevert, ses.screen())
	}

	// The first kept through its code action: its actions go.
	ses.keys("g", "g")
	ses.keys("j")
	ses.codeAction("Hermes: keep this change")
	ses.keys("Escape")
	ses.keys("Space")
	ses.keys("a")
	s = ses.waitFor("the code actions after the keep", 10*time.Second, contains("Hermes: "))
	if strings.Contains(s, "Hermes: keep this change") || strings.Contains(s, "Hermes: revert this change") {
		t.Errorf("the kept change still has its code actions:\n%s", s)
	}
	ses.keys("Escape")

	var toMessages, toBuffers []time.Duration
	for i := 1; i <= helixRuns; i++ {
		m, b := patchOnce(fmt.Sprintf("Third line, run %d.", i), "Run done.")
		toMessages, toBuffers = append(toMessages, m), append(toBuffers, b)
	}
	slices.Sort(toMessages)
	slices.Sort(toBuffers)
	median := toMessages[len(toMessages)/2]
	t.Logf("over %d patches: on disk → the message to reload, median %v (%v); :reload-all → the buffer, median %v (%v)",
		helixRuns, median.Round(time.Millisecond), toMessages, toBuffers[len(toBuffers)/2].Round(time.Millisecond), toBuffers)
	if median > 100*time.Millisecond {
		t.Errorf("patch on disk → the message to reload: median %v, want at most 100 ms", median)
	}
	ses.command("quit!")
}
