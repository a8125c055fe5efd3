package approve

import (
	"fmt"
	"path/filepath"
	"slices"
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
	case hermesproto.ApprovalKindPermissions:
		fmt.Fprintf(&b, "Hermes wants %s (approval %s). Allow once grants it for this turn", a.Summary, a.ID)
	default:
		fmt.Fprintf(&b, "Hermes wants to apply a patch (approval %s): %s", a.ID, patchList(a))
	}
	for _, line := range details(a, unsaved) {
		b.WriteString("\n" + line)
	}
	return b.String()
}

// fallbackMessage is the message of an approval the editor could not ask about (or the person
// dismissed): one sentence for a person, saying what codex wants and how to answer in this editor
// (answerWay), then the lines that call out what reaches outside the folder and the reason. No
// JSON: plain-text clients (Emacs, Helix) show it as it is. The command is shown whole, as in the
// prompt. The approval's id stays in it, in
// parentheses, for clients that match their message to an approval (hermes.nvim) except where the
// way to answer lists the approvals itself.
func fallbackMessage(a hermesproto.Approval, unsaved []string, emacs bool) string {
	if a.Kind.Asks() {
		return questionsFallback(a, emacs)
	}
	var what string
	switch a.Kind {
	case hermesproto.ApprovalKindExec:
		what = "to run `" + a.Command + "`" // whole: its end may be what matters (`... && rm -rf ~`)
	case hermesproto.ApprovalKindPermissions:
		what = a.Summary + " (Allow once: for this turn)"
	default:
		what = "to apply a patch (" + patchList(a) + ")"
	}
	way := "choose Allow or Deny from the code actions (`M-x hermes-lsp-approve`)"
	if !emacs {
		what += " (approval " + a.ID + ")"
		way = "choose Allow or Deny from the code actions, or run hermes.approve"
	}
	lines := append([]string{"Hermes wants " + what + ": " + way}, details(a, unsaved)...)
	return strings.Join(lines, "\n")
}

// patchList names a patch's changes: each file with its kind, relative to the folder.
func patchList(a hermesproto.Approval) string {
	if len(a.Changes) > 0 {
		return agenthost.PatchSummary(a.Changes, a.Folder, 0)
	}
	return a.Summary
}

// details are the lines of an approval's message after what codex wants: what reaches outside the
// workspace folder, the patched files with unsaved changes in the editor, a write grant, the reason.
func details(a hermesproto.Approval, unsaved []string) []string {
	var out []string
	switch a.Kind {
	case hermesproto.ApprovalKindExec:
		if a.Cwd != "" && !inFolder(a.Folder, a.Cwd) {
			out = append(out, "⚠ OUTSIDE THE WORKSPACE FOLDER: it runs in "+a.Cwd+", not under "+a.Folder)
		}
	case hermesproto.ApprovalKindPermissions:
		if p := a.Permissions; p != nil {
			var outside []string
			for _, path := range append(slices.Clone(p.Write), p.Read...) {
				if filepath.IsAbs(path) && !inFolder(a.Folder, path) {
					outside = append(outside, path)
				}
			}
			if len(outside) > 0 {
				out = append(out, "⚠ OUTSIDE THE WORKSPACE FOLDER: "+strings.Join(outside, ", "))
			}
			if p.Network {
				out = append(out, "⚠ Network access lets commands reach any host")
			}
		}
	case hermesproto.ApprovalKindPatch:
		var outside []string
		for _, c := range a.Changes {
			if !inFolder(a.Folder, c.Path) {
				outside = append(outside, c.Path)
			}
		}
		if len(outside) > 0 {
			out = append(out, "⚠ OUTSIDE THE WORKSPACE FOLDER: it changes "+strings.Join(outside, ", "))
		}
		if len(unsaved) > 0 {
			out = append(out, "⚠ "+UnsavedSentence(unsaved))
		}
		if a.GrantRoot != "" {
			grant := "⚠ It also asks for write access to everything under " + a.GrantRoot + " for the rest of the session"
			if !inFolder(a.Folder, a.GrantRoot) {
				grant += ", OUTSIDE THE WORKSPACE FOLDER"
			}
			out = append(out, grant)
		}
	}
	if a.Reason != "" {
		out = append(out, "Reason: "+a.Reason)
	}
	return out
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
