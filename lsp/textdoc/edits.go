package textdoc

import (
	"context"
	"sync"
	"time"
)

// EditedFeature is a feature that follows the editor's edits (the instruction hints, the review
// findings): it is told which documents changed (all: every document, a setting changed) and
// publishes what it has on them.
type EditedFeature func(ctx context.Context, uris []string, all bool)

// Edits tells features which documents the editor changed, a short while after the last change of
// a burst, so that a burst of edits is one pass.
type Edits struct {
	docs     *Documents
	delay    time.Duration
	features []EditedFeature

	mu    sync.Mutex
	dirty map[string]bool // by URI
	all   bool            // every document (a setting changed)
	kick  chan struct{}
}

// NewEdits returns the edits of docs, told to features delay after a burst's last change.
func NewEdits(docs *Documents, delay time.Duration, features ...EditedFeature) *Edits {
	return &Edits{docs: docs, delay: delay, features: features, dirty: make(map[string]bool), kick: make(chan struct{}, 1)}
}

// Add notes that the document at uri changed ("": every open document).
func (e *Edits) Add(uri string) {
	e.mu.Lock()
	if uri == "" {
		e.all = true
	} else {
		e.dirty[uri] = true
	}
	e.mu.Unlock()
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// take empties the queue.
func (e *Edits) take() (uris []string, all bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for u := range e.dirty {
		uris = append(uris, u)
	}
	clear(e.dirty)
	all, e.all = e.all, false
	return uris, all
}

// Run tells the features of each burst of changes until ctx ends.
func (e *Edits) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.kick:
		}
		t := time.NewTimer(e.delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		uris, all := e.take()
		if all {
			uris = append(uris, e.docs.URIs()...)
		}
		for _, feature := range e.features {
			feature(ctx, uris, all)
		}
	}
}
