package lsp

// This file keeps the review findings of each folder as diagnostics: published on their files
// (open or not), following the editor's edits (each finding's first and last lines are document
// marks), dropped when their lines are deleted or dismissed, and saved in the folder's state so
// that a restart publishes them again.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// findingsFeature is the review findings' set among the server's diagnostics.
const findingsFeature = "review"

// maxFindings bounds a folder's findings.
const maxFindings = 500

// finding is one review finding on a file of a folder. Start and End are 0-based lines (inclusive)
// as last seen; the marks move them with the editor's edits.
type finding struct {
	ReviewID  string `json:"reviewId"`
	FindingID string `json:"findingId"`
	Title     string `json:"title"`
	Priority  int    `json:"priority"` // 0..3, -1 unknown
	Path      string `json:"path"`
	Start     uint32 `json:"start"`
	End       uint32 `json:"end"`
	Body      string `json:"body"`

	start, end *textdoc.Mark
}

// reviewFindings holds the findings of every folder. Its mutex guards the map and the findings.
type reviewFindings struct {
	mu       sync.Mutex
	byFolder map[string][]*finding
}

// lines returns f's lines now, with false once both its first and last lines are gone.
func (f *finding) lines() (start, end uint32, ok bool) {
	s, sok := f.start.Line()
	e, eok := f.end.Line()
	switch {
	case sok && eok:
		return s, max(s, e), true
	case sok:
		return s, s, true
	case eok:
		return e, e, true
	}
	return 0, 0, false
}

// lineText returns line's text as f's marks last saw it (for a file that is not open), "" when
// neither is on that line.
func (f *finding) lineText(line uint32) string {
	for _, m := range []*textdoc.Mark{f.end, f.start} {
		if l, ok := m.Line(); ok && l == line {
			return m.Text()
		}
	}
	return ""
}

// severityOf maps a priority to a severity: P0 and P1 errors, P2 a warning, P3 or none information.
func severityOf(priority int) protocol.DiagnosticSeverity {
	switch priority {
	case 0, 1:
		return protocol.DiagnosticSeverityError
	case 2:
		return protocol.DiagnosticSeverityWarning
	}
	return protocol.DiagnosticSeverityInformation
}

// diagnostic is f as the editor shows it, over its whole lines.
func (s *Server) diagnostic(f *finding, start, end uint32) protocol.Diagnostic {
	text, ok := s.docs.Line(string(uri.File(f.Path)), end)
	if !ok {
		text = f.lineText(end) // the file is not read here: this runs under the findings' lock
	}
	d := protocol.Diagnostic{
		Range:    protocol.Range{Start: protocol.Position{Line: start}, End: protocol.Position{Line: end, Character: textdoc.UTF16Len(text)}},
		Severity: severityOf(f.Priority),
		Source:   diagnosticSource,
		Message:  strings.TrimSpace(f.Title + "\n\n" + f.Body),
		Data:     hermesproto.FindingRef{ReviewID: f.ReviewID, FindingID: f.FindingID},
	}
	if f.Priority >= 0 {
		d.Code = fmt.Sprintf("P%d", f.Priority)
	}
	return d
}

// setFindings replaces a folder's findings with those of list that pass placeFindings' checks,
// publishes them (and empty lists on the files no longer mentioned) and saves them. It returns the
// findings kept (a copy of the list: the one kept is compacted in place as findings go) and what
// became of the others.
func (s *Server) setFindings(ctx context.Context, folder string, list []*finding) ([]*finding, placement) {
	list, p := s.placeFindings(ctx, folder, list)
	kept := slices.Clone(list)
	s.findings.mu.Lock()
	if s.findings.byFolder == nil {
		s.findings.byFolder = make(map[string][]*finding)
	}
	old := s.findings.byFolder[folder]
	s.findings.byFolder[folder] = list
	s.findings.mu.Unlock()
	files := map[string]bool{}
	for _, f := range old {
		f.start.Drop()
		f.end.Drop()
		files[f.Path] = true
	}
	for _, f := range list {
		files[f.Path] = true
	}
	for path := range files {
		s.publishFindings(ctx, string(uri.File(path)))
	}
	s.saveFindings(folder)
	return kept, p
}

// publishFindings publishes the findings on the file at docURI as they are now; findings whose
// lines are gone are dropped, and a folder whose findings moved or went is saved.
func (s *Server) publishFindings(ctx context.Context, docURI string) {
	path, err := workspace.PathFromURI(docURI)
	if err != nil {
		return
	}
	key := textdoc.Key(docURI)
	var diags []protocol.Diagnostic
	changed := map[string]bool{}
	s.findings.mu.Lock()
	for folder, list := range s.findings.byFolder {
		kept := list[:0]
		for _, f := range list {
			if textdoc.Key(f.Path) != key {
				kept = append(kept, f)
				continue
			}
			start, end, ok := f.lines()
			if !ok {
				changed[folder] = true
				continue
			}
			if start != f.Start || end != f.End {
				f.Start, f.End = start, end
				changed[folder] = true
			}
			kept = append(kept, f)
			diags = append(diags, s.diagnostic(f, start, end))
		}
		s.findings.byFolder[folder] = kept
	}
	s.findings.mu.Unlock()
	if !s.reviewEnabled() {
		diags = nil
	}
	s.publishDiagnostics(ctx, string(uri.File(path)), findingsFeature, diags)
	for folder := range changed {
		s.saveFindings(folder)
	}
}

// saveFindings writes a folder's findings into its state; failing is logged.
func (s *Server) saveFindings(folder string) {
	h, err := s.hostOrErr()
	if err != nil {
		return
	}
	sess, err := h.Session(folder)
	if err != nil {
		return
	}
	s.findings.mu.Lock()
	list := s.findings.byFolder[folder]
	var data []byte
	if len(list) > 0 {
		data, err = json.Marshal(list)
	}
	s.findings.mu.Unlock()
	if err == nil {
		err = sess.SaveReview(data)
	}
	if err != nil {
		s.log.Warn("could not save the review findings", "folder", folder, "err", err)
	}
}

// loadFindings publishes the findings saved for each folder (at start).
func (s *Server) loadFindings(ctx context.Context, h *agenthost.Host) {
	for _, f := range s.folders.List() {
		sess, err := h.Session(f.Path)
		if err != nil {
			continue
		}
		data, err := sess.LoadReview()
		if err != nil || len(data) == 0 {
			continue
		}
		var list []*finding
		if err := json.Unmarshal(data, &list); err != nil {
			s.log.Warn("the saved review findings are unreadable; dropping them", "folder", f.Path, "err", err)
			continue
		}
		if _, p := s.setFindings(ctx, f.Path, list); p.dropped() {
			s.log.Warn("saved review findings dropped", "folder", f.Path, "why", strings.TrimSpace(p.String()))
		}
	}
}

// findingsAt returns the findings of the file at docURI whose lines meet rng.
func (s *Server) findingsAt(docURI string, rng protocol.Range) []*finding {
	key := textdoc.Key(docURI)
	s.findings.mu.Lock()
	defer s.findings.mu.Unlock()
	var out []*finding
	for _, list := range s.findings.byFolder {
		for _, f := range list {
			if textdoc.Key(f.Path) != key {
				continue
			}
			if start, end, ok := f.lines(); ok && start <= rng.End.Line && rng.Start.Line <= end {
				out = append(out, f)
			}
		}
	}
	return out
}

// dismiss removes the findings gone says of a folder (of every folder when folder is ""),
// republishes their files and saves; it returns how many went.
func (s *Server) dismiss(ctx context.Context, folder string, gone func(*finding) bool) int {
	files := map[string]bool{}
	changed := map[string]bool{}
	n := 0
	s.findings.mu.Lock()
	for fo, list := range s.findings.byFolder {
		if folder != "" && fo != folder {
			continue
		}
		s.findings.byFolder[fo] = slices.DeleteFunc(list, func(f *finding) bool {
			if !gone(f) {
				return false
			}
			f.start.Drop()
			f.end.Drop()
			files[f.Path], changed[fo] = true, true
			n++
			return true
		})
	}
	s.findings.mu.Unlock()
	for path := range files {
		s.publishFindings(ctx, string(uri.File(path)))
	}
	for fo := range changed {
		s.saveFindings(fo)
	}
	return n
}

// hasFindings reports whether the file at docURI has findings (for the edit loop).
func (s *Server) hasFindings(docURI string) bool {
	key := textdoc.Key(docURI)
	s.findings.mu.Lock()
	defer s.findings.mu.Unlock()
	for _, list := range s.findings.byFolder {
		for _, f := range list {
			if textdoc.Key(f.Path) == key {
				return true
			}
		}
	}
	return false
}

// findingFiles returns the URIs of the files with findings.
func (s *Server) findingFiles() []string {
	s.findings.mu.Lock()
	defer s.findings.mu.Unlock()
	var out []string
	for _, list := range s.findings.byFolder {
		for _, f := range list {
			out = append(out, string(uri.File(f.Path)))
		}
	}
	return out
}

// findingActions are the code actions on the findings in rng: fix it (a turn whose prompt quotes
// it), dismiss it, dismiss all of the folder's.
func (s *Server) findingActions(docURI string, rng protocol.Range, command func(title, name string, arg any) *protocol.Command) []protocol.CodeAction {
	if !s.reviewEnabled() {
		return nil
	}
	var out []protocol.CodeAction
	for _, f := range s.findingsAt(docURI, rng) {
		start, end, _ := f.lines()
		d := s.diagnostic(f, start, end)
		rel := f.Path
		if folder, err := s.resolveFolder(docURI); err == nil {
			rel, _ = workspace.Rel(folder.Path, f.Path)
		}
		prompt := fmt.Sprintf("Fix this review finding in %s (lines %d-%d): %s\n\n%s", rel, start+1, end+1, f.Title, f.Body)
		fixRange := d.Range
		out = append(out,
			protocol.CodeAction{
				Title: TitleFixFinding, Kind: protocol.QuickFix, IsPreferred: true, Diagnostics: []protocol.Diagnostic{d},
				Command: command(TitleFixFinding, CmdAsk, askArgs{Prompt: strings.TrimSpace(prompt), URI: docURI, Range: &fixRange}),
			},
			protocol.CodeAction{
				Title: TitleDismiss, Kind: protocol.QuickFix, Diagnostics: []protocol.Diagnostic{d},
				Command: command(TitleDismiss, CmdDismissFinding, hermesproto.FindingRef{ReviewID: f.ReviewID, FindingID: f.FindingID}),
			},
		)
	}
	if len(out) > 0 {
		out = append(out, protocol.CodeAction{
			Title: TitleDismissAll, Kind: protocol.QuickFix,
			Command: command(TitleDismissAll, CmdDismissReview, folderArgs{URI: docURI}),
		})
	}
	return out
}
