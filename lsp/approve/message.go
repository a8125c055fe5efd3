package approve

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// message says what codex wants to do, where, and why. What reaches outside the workspace folder
// (a command's cwd, a patched path, a write grant) is called out on a line of its own, and so are
// the patched files with unsaved changes in the editor (unsaved, from Unsaved).
func message(a hermesproto.Approval, unsaved []string) string {
	var b strings.Builder
	switch a.Kind {
	case hermesproto.ApprovalKindExec:
		fmt.Fprintf(&b, "Hermes wants to run a command (approval %s):\n%s\nin %s", a.ID, a.Command, a.Cwd)
		if a.Cwd != "" && !inFolder(a.Folder, a.Cwd) {
			b.WriteString("\n⚠ OUTSIDE THE WORKSPACE FOLDER: it runs in " + a.Cwd + ", not under " + a.Folder)
		}
	default:
		list := a.Summary
		if len(a.Changes) > 0 {
			list = agenthost.PatchSummary(a.Changes, a.Folder, 0)
		}
		fmt.Fprintf(&b, "Hermes wants to apply a patch (approval %s): %s", a.ID, list)
		var outside []string
		for _, c := range a.Changes {
			if !inFolder(a.Folder, c.Path) {
				outside = append(outside, c.Path)
			}
		}
		if len(outside) > 0 {
			b.WriteString("\n⚠ OUTSIDE THE WORKSPACE FOLDER: it changes " + strings.Join(outside, ", "))
		}
		if len(unsaved) > 0 {
			b.WriteString("\n⚠ " + UnsavedSentence(unsaved))
		}
		if a.GrantRoot != "" {
			b.WriteString("\n⚠ It also asks for write access to everything under " + a.GrantRoot + " for the rest of the session")
			if !inFolder(a.Folder, a.GrantRoot) {
				b.WriteString(", OUTSIDE THE WORKSPACE FOLDER")
			}
		}
	}
	if a.Reason != "" {
		b.WriteString("\nReason: " + a.Reason)
	}
	return b.String()
}

// inFolder reports whether path lies inside folder (links resolved); an unknown folder counts as
// outside.
func inFolder(folder, path string) bool {
	if folder == "" || !filepath.IsAbs(path) {
		return false
	}
	ok, err := workspace.Contains(folder, path)
	return err == nil && ok
}

// Unsaved returns the files a patch approval changes that have unsaved edits in docs, relative to
// the approval's folder.
func Unsaved(docs *textdoc.Documents, a hermesproto.Approval) []string {
	if a.Kind != hermesproto.ApprovalKindPatch {
		return nil
	}
	var out []string
	for _, c := range a.Changes {
		if docs.Dirty(c.Path) {
			rel, _ := workspace.Rel(a.Folder, c.Path)
			out = append(out, rel)
		}
	}
	return out
}

// UnsavedSentence says that files have unsaved changes a patch will conflict with.
func UnsavedSentence(files []string) string {
	verb := "has"
	if len(files) > 1 {
		verb = "have"
	}
	return fmt.Sprintf("%s %s unsaved changes in your editor: applying this patch will conflict with them", strings.Join(files, ", "), verb)
}
