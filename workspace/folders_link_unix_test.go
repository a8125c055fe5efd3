//go:build unix

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestResolveLinkChanged: a folder whose root is a symbolic link is resolved again when a document
// is resolved to it, so a link changed since the last Resolve moves the folder with it: a file
// under the old target is outside, one under the new target inside; a folder added again under
// the same path is resolved afresh.
func TestResolveLinkChanged(t *testing.T) {
	r := tree(t, "a/x.go", "b/y.go", "ws -> a")
	s := &Set{}
	must(t, s.Add(Folder{Path: filepath.Join(r, "ws"), Name: "ws"}))
	doc := func(p string) string { return URIFromPath(filepath.Join(r, p)) }
	if f, err := s.Resolve(doc("a/x.go")); err != nil || f.Name != "ws" {
		t.Fatalf("before the change: %+v, %v", f, err)
	}
	must(t, os.Remove(filepath.Join(r, "ws")))
	must(t, os.Symlink("b", filepath.Join(r, "ws")))
	if f, err := s.Resolve(doc("a/x.go")); !errors.Is(err, ErrOutside) {
		t.Errorf("a file under the link's old target: %+v, %v; want it outside", f, err)
	}
	if f, err := s.Resolve(doc("b/y.go")); err != nil || f.Name != "ws" {
		t.Errorf("a file under the link's new target: %+v, %v", f, err)
	}
	ws := filepath.Join(r, "ws")
	if f, err := s.Resolve(URIFromPath(ws)); err != nil || f.Name != "ws" {
		t.Errorf("the folder itself, its link changed: %+v, %v", f, err)
	}
	must(t, os.Remove(ws))
	must(t, os.Symlink("gone", ws))
	if f, err := s.Resolve(URIFromPath(ws)); err != nil || f.Name != "ws" {
		t.Errorf("the folder itself, its link leading nowhere: %+v, %v", f, err)
	}
	must(t, os.Remove(ws))
	must(t, os.Symlink("b", ws))
	must(t, s.Add(Folder{Path: filepath.Join(r, "b"), Name: "b"}))
	must(t, s.Add(Folder{Path: filepath.Join(r, "ws"), Name: "renamed"}))
	if f, err := s.Resolve(doc("ws/y.go")); err != nil || (f.Name != "renamed" && f.Name != "b") {
		t.Errorf("after adding again: %+v, %v", f, err)
	}
}
