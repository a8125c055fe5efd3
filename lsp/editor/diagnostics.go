package editor

// This file publishes the server's own diagnostics, and keeps the editor's as code action requests
// show them. Two features put diagnostics on a document (the instruction hints and the review
// findings); LSP keeps one list per document and server, so each feature sets its own set and the
// document gets them merged.

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Diagnostics are the server's diagnostics of each document, by feature, and the editor's
// diagnostics last seen on each document.
type Diagnostics struct {
	ed   *Client
	sets diagnosticSets

	mu   sync.Mutex
	seen map[string][]protocol.Diagnostic // per document, as code action requests showed them
}

// newDiagnostics returns the diagnostics published to ed.
func newDiagnostics(ed *Client) *Diagnostics {
	return &Diagnostics{ed: ed, seen: make(map[string][]protocol.Diagnostic)}
}

// Publish sets feature's diagnostics on the document and sends its merged list when it changed.
func (d *Diagnostics) Publish(ctx context.Context, docURI, feature string, diags []protocol.Diagnostic) {
	merged, changed := d.sets.set(docURI, feature, diags)
	if !changed {
		return
	}
	d.ed.Notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{
		URI: uri.URI(docURI), Diagnostics: merged,
	})
}

// Resend sends the document's merged list again as it is, when it has one: an editor may drop a
// document's diagnostics when it closes it (Neovim 0.7 reloads a buffer as didClose and didOpen,
// and clears them), while the features publish only what changed.
func (d *Diagnostics) Resend(ctx context.Context, docURI string) {
	merged := d.sets.merged(docURI)
	if len(merged) == 0 {
		return
	}
	d.ed.Notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{
		URI: uri.URI(docURI), Diagnostics: merged,
	})
}

// URIs returns the documents that have diagnostics of feature.
func (d *Diagnostics) URIs(feature string) []string { return d.sets.uris(feature) }

// Seen records the editor's diagnostics on a document, as a code action request showed them.
func (d *Diagnostics) Seen(docURI string, diags []protocol.Diagnostic) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seen[docURI] = diags
}

// SeenOn returns the editor's diagnostics last seen on a document.
func (d *Diagnostics) SeenOn(docURI string) []protocol.Diagnostic {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.seen[docURI]
}

// Forget drops what was seen of a closed document.
func (d *Diagnostics) Forget(docURI string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.seen, docURI)
}

// diagnosticSets holds, per document URI, each feature's diagnostics.
type diagnosticSets struct {
	mu   sync.Mutex
	sets map[string]map[string][]protocol.Diagnostic // uri → feature → diagnostics
}

// set replaces feature's diagnostics on uri and returns the document's merged list, with whether
// it changed.
func (d *diagnosticSets) set(docURI, feature string, diags []protocol.Diagnostic) ([]protocol.Diagnostic, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sets == nil {
		d.sets = make(map[string]map[string][]protocol.Diagnostic)
	}
	byFeature := d.sets[docURI]
	old := byFeature[feature]
	if len(old) == 0 && len(diags) == 0 {
		return nil, false
	}
	if slices.EqualFunc(old, diags, sameDiagnostic) {
		return nil, false
	}
	if byFeature == nil {
		byFeature = make(map[string][]protocol.Diagnostic)
		d.sets[docURI] = byFeature
	}
	if len(diags) == 0 {
		delete(byFeature, feature)
	} else {
		byFeature[feature] = slices.Clone(diags)
	}
	merged := mergedLocked(byFeature)
	if len(byFeature) == 0 {
		delete(d.sets, docURI)
	}
	return merged, true
}

// merged returns the document's diagnostics of every feature.
func (d *diagnosticSets) merged(docURI string) []protocol.Diagnostic {
	d.mu.Lock()
	defer d.mu.Unlock()
	return mergedLocked(d.sets[docURI])
}

// mergedLocked is the diagnostics of every feature, in the features' order. Under d.mu.
func mergedLocked(byFeature map[string][]protocol.Diagnostic) []protocol.Diagnostic {
	merged := []protocol.Diagnostic{}
	for _, f := range slices.Sorted(maps.Keys(byFeature)) {
		merged = append(merged, byFeature[f]...)
	}
	return merged
}

// uris returns the documents that have diagnostics of feature.
func (d *diagnosticSets) uris(feature string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for u, byFeature := range d.sets {
		if len(byFeature[feature]) > 0 {
			out = append(out, u)
		}
	}
	return out
}

// sameDiagnostic reports whether a and b show and do the same: their data too (a change under
// review's id, which its code actions name).
func sameDiagnostic(a, b protocol.Diagnostic) bool {
	return a.Range == b.Range && a.Message == b.Message && a.Severity == b.Severity && a.Code == b.Code &&
		a.Source == b.Source && reflect.DeepEqual(a.Data, b.Data)
}
