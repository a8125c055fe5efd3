package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// EditResult is how long the server takes over a one-character didChange of a large document: the
// time from the notification to the answer of a request sent right after it (the server reads
// them in order), and the same request's time alone.
type EditResult struct {
	Size             int
	AfterEdit, Alone Samples
}

// LargeEdit opens a document of size bytes (50-byte lines) in hermes-lsp and measures n
// one-character edits spread over it.
func LargeEdit(ctx context.Context, env *Env, size, n int) (*EditResult, error) {
	home, err := env.NewHome("edit")
	if err != nil {
		return nil, err
	}
	h, err := StartHermes(ctx, env.Hermes, home)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	if _, err := h.Initialize(ctx, HermesSettings(home, env.Codex, nil, nil)); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	lines := size / 50
	path := filepath.Join(home.Work, "big.txt")
	if err := h.Ed.OpenFile(ctx, path, strings.Repeat(strings.Repeat("x", 49)+"\n", lines)); err != nil {
		return nil, fmt.Errorf("open the document: %w", err)
	}
	hover := func() error {
		var res any
		return h.Ed.Call(ctx, "textDocument/hover", map[string]any{
			"textDocument": map[string]any{"uri": uri.File(path)},
			"position":     protocol.Position{},
		}, &res)
	}
	// The first answer waits for the document's didOpen: not counted.
	if err := hover(); err != nil {
		return nil, err
	}
	r := &EditResult{Size: lines * 50}
	for i := range n {
		began := time.Now()
		if err := hover(); err != nil {
			return nil, err
		}
		r.Alone = append(r.Alone, time.Since(began))
		// The change goes out as it is (the editor's copy of a 50 MB buffer is not the server's cost),
		// and the request right behind it.
		line := uint32((i * 7919) % lines)
		change := map[string]any{
			"textDocument": map[string]any{"uri": uri.File(path), "version": i + 2},
			"contentChanges": []map[string]any{{
				"range": protocol.Range{Start: protocol.Position{Line: line, Character: 10}, End: protocol.Position{Line: line, Character: 11}},
				"text":  "y",
			}},
		}
		began = time.Now()
		if err := h.Ed.Notify(ctx, "textDocument/didChange", change); err != nil {
			return nil, err
		}
		if err := hover(); err != nil {
			return nil, err
		}
		r.AfterEdit = append(r.AfterEdit, time.Since(began))
	}
	return r, nil
}
