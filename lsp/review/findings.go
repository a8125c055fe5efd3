// Package review keeps the findings of codex's reviews of each folder as diagnostics: placed on
// their files after checks (the model wrote them: paths contained, files regular, lines clamped,
// text cleaned and cut), published on their files (open or not), following the editor's edits
// (each finding's first and last lines are document marks), dropped when their lines are deleted
// or dismissed, and saved in the folder's state so that a restart publishes them again.
package review

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Feature names the findings' set among the server's diagnostics.
const Feature = "review"

// MaxFindings bounds a folder's findings.
const MaxFindings = 500

// Finding is one review finding on a file of a folder. Start and End are 0-based lines (inclusive)
// as last seen; the marks move them with the editor's edits.
type Finding struct {
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

// Config is what Findings needs of the server.
type Config struct {
	// Docs are the documents open in the editor: a finding's lines are marks in them.
	Docs *textdoc.Documents
	// Publish publishes the findings' diagnostics of the file at uri (replacing the last ones).
	Publish func(ctx context.Context, uri string, diags []protocol.Diagnostic)
	// Save keeps a folder's findings (JSON; nil when there are none) for the next start.
	Save func(folder string, data []byte) error
	// Enabled says whether findings show at all (the review.enabled setting).
	Enabled func() bool
	// Source is the diagnostics' source.
	Source string
	Log    *slog.Logger
}

// Findings holds the findings of every folder. Its mutex guards the map and the findings.
type Findings struct {
	cfg      Config
	mu       sync.Mutex
	byFolder map[string][]*Finding
}

// New returns an empty set of findings.
func New(cfg Config) *Findings {
	return &Findings{cfg: cfg, byFolder: make(map[string][]*Finding)}
}

// Lines returns f's lines now, with false once both its first and last lines are gone.
func (f *Finding) Lines() (start, end uint32, ok bool) {
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
func (f *Finding) lineText(line uint32) string {
	for _, m := range []*textdoc.Mark{f.end, f.start} {
		if l, ok := m.Line(); ok && l == line {
			return m.Text()
		}
	}
	return ""
}

// SeverityOf maps a priority to a severity: P0 and P1 errors, P2 a warning, P3 or none information.
func SeverityOf(priority int) protocol.DiagnosticSeverity {
	switch priority {
	case 0, 1:
		return protocol.DiagnosticSeverityError
	case 2:
		return protocol.DiagnosticSeverityWarning
	}
	return protocol.DiagnosticSeverityInformation
}

// Diagnostic is f as the editor shows it now, over its whole lines.
func (fs *Findings) Diagnostic(f *Finding) protocol.Diagnostic {
	start, end, _ := f.Lines()
	return fs.diagnostic(f, start, end)
}

// diagnostic is f as the editor shows it, over lines start to end.
func (fs *Findings) diagnostic(f *Finding, start, end uint32) protocol.Diagnostic {
	text, ok := fs.cfg.Docs.Line(string(uri.File(f.Path)), end)
	if !ok {
		text = f.lineText(end) // the file is not read here: this runs under the findings' lock
	}
	d := protocol.Diagnostic{
		Range:    protocol.Range{Start: protocol.Position{Line: start}, End: protocol.Position{Line: end, Character: textdoc.UTF16Len(text)}},
		Severity: SeverityOf(f.Priority),
		Source:   fs.cfg.Source,
		Message:  strings.TrimSpace(f.Title + "\n\n" + f.Body),
		Data:     hermesproto.FindingRef{ReviewID: f.ReviewID, FindingID: f.FindingID},
	}
	if f.Priority >= 0 {
		d.Code = fmt.Sprintf("P%d", f.Priority)
	}
	return d
}

// Set replaces a folder's findings with those of list that pass the checks (place.go),
// publishes them (and empty lists on the files no longer mentioned) and saves them. It returns the
// findings kept (a copy of the list: the one kept is compacted in place as findings go) and what
// became of the others.
func (fs *Findings) Set(ctx context.Context, folder string, list []*Finding) ([]*Finding, Placement) {
	list, p := fs.place(ctx, folder, list)
	kept := slices.Clone(list)
	fs.mu.Lock()
	if fs.byFolder == nil {
		fs.byFolder = make(map[string][]*Finding)
	}
	old := fs.byFolder[folder]
	fs.byFolder[folder] = list
	fs.mu.Unlock()
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
		fs.Publish(ctx, string(uri.File(path)))
	}
	fs.save(folder)
	return kept, p
}

// Publish publishes the findings on the file at docURI as they are now; findings whose
// lines are gone are dropped, and a folder whose findings moved or went is saved.
func (fs *Findings) Publish(ctx context.Context, docURI string) {
	path, err := workspace.PathFromURI(docURI)
	if err != nil {
		return
	}
	key := textdoc.Key(docURI)
	var diags []protocol.Diagnostic
	changed := map[string]bool{}
	fs.mu.Lock()
	for folder, list := range fs.byFolder {
		kept := list[:0]
		for _, f := range list {
			if textdoc.Key(f.Path) != key {
				kept = append(kept, f)
				continue
			}
			start, end, ok := f.Lines()
			if !ok {
				changed[folder] = true
				continue
			}
			if start != f.Start || end != f.End {
				f.Start, f.End = start, end
				changed[folder] = true
			}
			kept = append(kept, f)
			diags = append(diags, fs.diagnostic(f, start, end))
		}
		fs.byFolder[folder] = kept
	}
	fs.mu.Unlock()
	if !fs.cfg.Enabled() {
		diags = nil
	}
	fs.cfg.Publish(ctx, string(uri.File(path)), diags)
	for folder := range changed {
		fs.save(folder)
	}
}

// Refresh publishes the findings of the documents at uris again, after the editor's edits (their
// lines may have moved, or gone); all publishes every file's (the review.enabled setting changed).
func (fs *Findings) Refresh(ctx context.Context, uris []string, all bool) {
	if all {
		uris = append(slices.Clone(uris), fs.Files()...)
	}
	for _, u := range uris {
		if all || fs.Has(u) {
			fs.Publish(ctx, u)
		}
	}
}

// save writes a folder's findings into its state; failing is logged.
func (fs *Findings) save(folder string) {
	fs.mu.Lock()
	list := fs.byFolder[folder]
	var data []byte
	var err error
	if len(list) > 0 {
		data, err = json.Marshal(list)
	}
	fs.mu.Unlock()
	if err == nil {
		err = fs.cfg.Save(folder, data)
	}
	if err != nil {
		fs.cfg.Log.Warn("could not save the review findings", "folder", folder, "err", err)
	}
}

// Load publishes the findings saved for folder (at start): they pass the same checks as a
// review's.
func (fs *Findings) Load(ctx context.Context, folder string, data []byte) {
	if len(data) == 0 {
		return
	}
	var list []*Finding
	if err := json.Unmarshal(data, &list); err != nil {
		fs.cfg.Log.Warn("the saved review findings are unreadable; dropping them", "folder", folder, "err", err)
		return
	}
	if _, p := fs.Set(ctx, folder, list); p.Dropped() {
		fs.cfg.Log.Warn("saved review findings dropped", "folder", folder, "why", strings.TrimSpace(p.String()))
	}
}

// At returns the findings of the file at docURI whose lines meet rng.
func (fs *Findings) At(docURI string, rng protocol.Range) []*Finding {
	key := textdoc.Key(docURI)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var out []*Finding
	for _, list := range fs.byFolder {
		for _, f := range list {
			if textdoc.Key(f.Path) != key {
				continue
			}
			if start, end, ok := f.Lines(); ok && start <= rng.End.Line && rng.Start.Line <= end {
				out = append(out, f)
			}
		}
	}
	return out
}

// Dismiss removes the findings gone says of a folder (of every folder when folder is ""),
// republishes their files and saves; it returns how many went.
func (fs *Findings) Dismiss(ctx context.Context, folder string, gone func(*Finding) bool) int {
	files := map[string]bool{}
	changed := map[string]bool{}
	n := 0
	fs.mu.Lock()
	for fo, list := range fs.byFolder {
		if folder != "" && fo != folder {
			continue
		}
		fs.byFolder[fo] = slices.DeleteFunc(list, func(f *Finding) bool {
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
	fs.mu.Unlock()
	for path := range files {
		fs.Publish(ctx, string(uri.File(path)))
	}
	for fo := range changed {
		fs.save(fo)
	}
	return n
}

// Has reports whether the file at docURI has findings (for the edit loop).
func (fs *Findings) Has(docURI string) bool {
	key := textdoc.Key(docURI)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, list := range fs.byFolder {
		for _, f := range list {
			if textdoc.Key(f.Path) == key {
				return true
			}
		}
	}
	return false
}

// Files returns the URIs of the files with findings.
func (fs *Findings) Files() []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var out []string
	for _, list := range fs.byFolder {
		for _, f := range list {
			out = append(out, string(uri.File(f.Path)))
		}
	}
	return out
}
