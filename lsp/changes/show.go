package changes

// This file is what the editor shows of the changes: a Hint diagnostic on each change's lines, an
// inlay hint at its first line, a hover with the hunk as a diff, the keep and revert code actions,
// and hermes.changes' list.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Code is the diagnostics' code.
const Code = "change"

// hoverMaxLines bounds each side of a hunk a hover shows.
const hoverMaxLines = 40

// counts is a change's line counts as the editor shows them: "+3 −1".
func (c *Change) counts() string { return fmt.Sprintf("+%d −%d", c.Added, c.Removed) }

// Message is a change's diagnostic message.
func (c *Change) Message() string {
	return "Hermes changed this (" + c.counts() + "): keep or revert"
}

// rangeLocked is the change's range in the editor over lines start to end: whole lines, or an empty
// range at the start of the line after what a change without lines deleted. Under cs.mu.
func (cs *Changes) rangeLocked(c *Change, start, end uint32) protocol.Range {
	r := protocol.Range{Start: protocol.Position{Line: start}, End: protocol.Position{Line: start}}
	if c.Added == 0 {
		return r
	}
	text, ok := cs.cfg.Docs.Line(c.uri(), end)
	if !ok && c.end != nil {
		text = c.end.Text() // the file is not open: the line as its mark last saw it
	}
	r.End = protocol.Position{Line: end, Character: textdoc.UTF16Len(text)}
	return r
}

// diagnosticLocked is c as the editor shows it, over lines start to end. Under cs.mu.
func (cs *Changes) diagnosticLocked(c *Change, start, end uint32) protocol.Diagnostic {
	return protocol.Diagnostic{
		Range:    cs.rangeLocked(c, start, end),
		Severity: protocol.DiagnosticSeverityHint,
		Source:   cs.cfg.Source,
		Code:     Code,
		Message:  c.Message(),
		Data:     hermesproto.ChangeRef{ChangeID: c.ID},
	}
}

// Publish publishes the changes of the file at docURI as they are now (none while edits.review is
// off); changes whose lines are gone are dropped, and a folder whose changes moved or went is saved.
// A change its buffer does not show yet is not published.
func (cs *Changes) Publish(ctx context.Context, docURI string) {
	path, err := workspace.PathFromURI(docURI)
	if err != nil {
		return
	}
	key := textdoc.Key(docURI)
	var diags []protocol.Diagnostic
	changed := map[string]bool{}
	died := false
	cs.mu.Lock()
	for folder, list := range cs.byFolder {
		cs.byFolder[folder] = slices.DeleteFunc(list, func(c *Change) bool {
			if textdoc.Key(c.Path) != key || !c.placed {
				return false
			}
			start, end, ok := c.linesNow()
			if !ok {
				c.drop()
				changed[folder], died = true, true
				return true
			}
			if start != c.Start {
				c.Start = start
				changed[folder] = true
			}
			diags = append(diags, cs.diagnosticLocked(c, start, end))
			return false
		})
	}
	cs.mu.Unlock()
	if !cs.cfg.Enabled() {
		diags = nil
	}
	cs.cfg.Publish(ctx, string(uri.File(path)), diags)
	for folder := range changed {
		cs.save(folder)
	}
	if died {
		cs.cfg.RefreshHints()
	}
}

// atLocked returns the placed changes of the file at docURI whose lines meet lines first to last.
// Under cs.mu.
func (cs *Changes) atLocked(docURI string, first, last uint32) []*Change {
	key := textdoc.Key(docURI)
	var out []*Change
	for _, list := range cs.byFolder {
		for _, c := range list {
			if textdoc.Key(c.Path) != key {
				continue
			}
			if start, end, ok := c.linesNow(); ok && start <= last && first <= end {
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(out, func(a, b *Change) int { return int(a.Start) - int(b.Start) })
	return out
}

// InlayHints are the hints of the changes of the document at docURI in rng: "✎ +3 −1" at the end
// of each change's first line.
func (cs *Changes) InlayHints(docURI string, rng protocol.Range) []annotate.InlayHint {
	if !cs.cfg.Enabled() {
		return nil
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var hints []annotate.InlayHint
	for _, c := range cs.atLocked(docURI, rng.Start.Line, rng.End.Line) {
		start, _, _ := c.linesNow()
		if start < rng.Start.Line || start > rng.End.Line {
			continue
		}
		text, ok := cs.cfg.Docs.Line(docURI, start)
		if !ok {
			continue
		}
		hints = append(hints, annotate.InlayHint{
			Position: protocol.Position{Line: start, Character: textdoc.UTF16Len(text)},
			Label:    "✎ " + c.counts(), Tooltip: "Hermes changed this: keep or revert it from the code actions",
			PaddingLeft: true,
		})
	}
	return hints
}

// Hover is the hunks of the changes on line of the document at docURI, as a diff: markdown (a
// diff code block) or plain text; ok is false when no change is on the line.
func (cs *Changes) Hover(docURI string, line uint32, markdown bool) (text string, ok bool) {
	if !cs.cfg.Enabled() {
		return "", false
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var parts []string
	for _, c := range cs.atLocked(docURI, line, line) {
		parts = append(parts, c.hover(markdown))
	}
	return strings.Join(parts, "\n\n"), len(parts) > 0
}

// hover is one change as a hover shows it.
func (c *Change) hover(markdown bool) string {
	var diff strings.Builder
	side := func(text, sign string, cut bool) {
		lines := strings.SplitAfter(strings.TrimSuffix(safetext.Clean(text), "\n"), "\n")
		if text == "" {
			lines = nil
		}
		for i, l := range lines {
			if i == hoverMaxLines {
				fmt.Fprintf(&diff, "%s… %d more line(s)\n", sign, len(lines)-i)
				break
			}
			diff.WriteString(sign + strings.TrimSuffix(l, "\n") + "\n")
		}
		if cut {
			diff.WriteString(sign + "… (cut)\n")
		}
	}
	side(c.Old, "-", c.OldCut)
	side(c.New, "+", c.NewCut)
	head := fmt.Sprintf("Hermes changed this (%s), turn %s: keep or revert it from the code actions", c.counts(), safetext.LineCut(c.TurnID, 80))
	if !markdown {
		return head + "\n" + diff.String()
	}
	fence := "```"
	for strings.Contains(diff.String(), fence) {
		fence += "`"
	}
	head = fmt.Sprintf("**Hermes changed this** (%s) · turn `%s` · keep or revert it from the code actions", c.counts(), safetext.LineCut(c.TurnID, 80))
	return head + "\n\n" + fence + "diff\n" + diff.String() + fence
}

// maxOldShown bounds the old text hermes.changes gives an editor to show.
const maxOldShown = 8 << 10

// oldShown is the text the change replaced, for an editor to show: cleaned, bounded, "…" when cut
// (or not kept).
func (c *Change) oldShown() string {
	if c.OldCut {
		return safetext.Ellipsis
	}
	return safetext.CutBytes(safetext.Clean(c.Old), maxOldShown)
}

// Actions are the code actions of the changes in rng of the document at docURI: keep or revert
// each change there, then, in a file with changes, keep all of the folder's and revert all of the
// file's. command makes an action's command.
func (cs *Changes) Actions(docURI string, rng protocol.Range, command func(title, name string, arg any) *protocol.Command) []protocol.CodeAction {
	if !cs.cfg.Enabled() || !cs.Has(docURI) {
		return nil
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var out []protocol.CodeAction
	for _, c := range cs.atLocked(docURI, rng.Start.Line, rng.End.Line) {
		start, end, _ := c.linesNow()
		d := []protocol.Diagnostic{cs.diagnosticLocked(c, start, end)}
		out = append(out,
			protocol.CodeAction{
				Title: hermesproto.CodeActionTitleKeepChange, Kind: protocol.QuickFix, Diagnostics: d,
				Command: command(hermesproto.CodeActionTitleKeepChange, hermesproto.CmdKeepChange, hermesproto.KeepChangeArgs{ChangeID: c.ID}),
			},
			protocol.CodeAction{
				Title: hermesproto.CodeActionTitleRevertChange, Kind: protocol.QuickFix, Diagnostics: d,
				Command: command(hermesproto.CodeActionTitleRevertChange, hermesproto.CmdRevertChange, hermesproto.RevertChangeArgs{ChangeID: c.ID}),
			},
		)
	}
	return append(out,
		protocol.CodeAction{
			Title: hermesproto.CodeActionTitleKeepAll, Kind: protocol.QuickFix,
			Command: command(hermesproto.CodeActionTitleKeepAll, hermesproto.CmdKeepChange, hermesproto.KeepChangeArgs{URI: docURI}),
		},
		protocol.CodeAction{
			Title: hermesproto.CodeActionTitleRevertFile, Kind: protocol.QuickFix,
			Command: command(hermesproto.CodeActionTitleRevertFile, hermesproto.CmdRevertChange, hermesproto.RevertChangeArgs{URI: docURI}),
		},
	)
}

// List is hermes.changes: the changes of the file or folder at within ("": of every folder), by
// file and line. A change its buffer does not show yet is placed first if it can be (or dropped
// when its text is gone), else it has the lines it has on disk.
func (cs *Changes) List(ctx context.Context, within string) []hermesproto.ChangeInfo {
	out := []hermesproto.ChangeInfo{}
	if !cs.cfg.Enabled() {
		return out
	}
	cs.mu.Lock()
	pending := map[string]bool{}
	for _, list := range cs.byFolder {
		for _, c := range list {
			if _, inside := workspace.Rel(within, c.Path); !c.placed && (within == "" || inside) {
				pending[c.uri()] = true
			}
		}
	}
	cs.mu.Unlock()
	for u := range pending {
		cs.placePending(ctx, u)
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, list := range cs.byFolder {
		for _, c := range list {
			if _, inside := workspace.Rel(within, c.Path); within != "" && !inside {
				continue
			}
			start, end, ok := c.linesNow()
			if !ok {
				start, end = c.Start, c.Start+uint32(max(c.Added, 1))-1
			}
			out = append(out, hermesproto.ChangeInfo{
				ChangeID: c.ID, URI: c.uri(), Range: cs.rangeLocked(c, start, end), TurnID: c.TurnID, Added: c.Added, Removed: c.Removed,
				Old: c.oldShown(),
			})
		}
	}
	slices.SortFunc(out, func(a, b hermesproto.ChangeInfo) int {
		if a.URI != b.URI {
			return strings.Compare(a.URI, b.URI)
		}
		return int(a.Range.Start.Line) - int(b.Range.Start.Line)
	})
	return out
}
