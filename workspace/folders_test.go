package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
)

// tree makes a temporary directory tree and returns its root, with symbolic links resolved so
// expectations can be written against it. Entries ending in "/" are directories; "a -> b" makes
// the link a pointing at b (relative to the link's directory unless b is absolute).
func tree(t *testing.T, entries ...string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if link, target, ok := strings.Cut(e, " -> "); ok {
			target = strings.ReplaceAll(target, "$ROOT", root)
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, link)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		p := filepath.Join(root, e)
		if strings.HasSuffix(e, "/") {
			err = os.MkdirAll(p, 0o755)
		} else if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			err = os.WriteFile(p, []byte("x"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestContains(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	r := tree(t,
		"ws/sub/file.go", "ws/subx/", "wsx/", "outside/secret",
		"ws/out -> ../outside",           // a directory link leaving ws
		"ws/abs -> $ROOT/outside/secret", // an absolute file link leaving ws
		"ws/in -> sub",                   // a link staying inside
		"ws/dangling -> ../outside/new",  // a dangling link leaving ws
		"ws/dangling-in -> sub/new",      // a dangling link staying inside
		"ws/loop1 -> loop2", "ws/loop2 -> loop1",
		"elsewhere/tows -> ../ws/sub", // outside by name, inside once resolved
		"wslink -> ws",                // the root reached through a link
	)
	ws := filepath.Join(r, "ws")
	tests := []struct {
		root, path string
		want       bool
		wantErr    bool
	}{
		{ws, ws, true, false},
		{ws, ws + "/", true, false},
		{ws, ws + "/sub/file.go", true, false},
		{ws, ws + "/sub/", true, false},
		{ws, ws + "/not/yet/created.go", true, false},
		{ws, ws + "x", false, false},
		{ws, r + "/wsx", false, false},
		{ws, ws + "x/file", false, false},
		{ws, r, false, false},
		{ws, "/", false, false},
		{ws, ws + "/../outside/secret", false, false},
		{ws, ws + "/sub/../../outside", false, false},
		{ws, ws + "/sub/../file", true, false},
		{ws, ws + "/out", false, false},
		{ws, ws + "/out/secret", false, false},
		{ws, ws + "/out/new/file", false, false},
		{ws, ws + "/abs", false, false},
		{ws, ws + "/in/file.go", true, false},
		{ws, ws + "/dangling", false, false},
		{ws, ws + "/dangling/deeper", false, false},
		{ws, ws + "/dangling-in", true, false},
		{ws, ws + "/sub/file.go/below", true, false}, // ENOTDIR: judged by its existing ancestor
		{ws, r + "/elsewhere/tows/file.go", true, false},
		{r + "/wslink", ws + "/sub/file.go", true, false},
		{r + "/wslink/", r + "/wslink/sub", true, false},
		{r + "/wslink", r + "/outside", false, false},
		{"/", ws, true, false},
		{ws, ws + "/loop1", false, true},
		{"relative", ws, false, true},
		{ws, "relative", false, true},
	}
	for _, tt := range tests {
		got, err := Contains(tt.root, tt.path)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("Contains(%q, %q) = %v, %v; want %v, error %v", rel(r, tt.root), rel(r, tt.path), got, err, tt.want, tt.wantErr)
		}
	}
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return "$ROOT/" + r
	}
	return p
}

func TestFoldersFromInitialize(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the expectations are POSIX paths")
	}
	tests := []struct {
		name     string
		folders  []protocol.WorkspaceFolder
		rootURI  string
		rootPath string
		want     []Folder
		errHas   string
	}{
		{name: "nothing open"},
		{
			name:    "workspace folders win over the root",
			folders: []protocol.WorkspaceFolder{{URI: "file:///a/one", Name: "One"}, {URI: "file:///b/two%20x/"}},
			rootURI: "file:///ignored",
			want:    []Folder{{"file:///a/one", "/a/one", "One"}, {"file:///b/two%20x/", "/b/two x", "two x"}},
		},
		{
			name:    "duplicates spelled differently are dropped",
			folders: []protocol.WorkspaceFolder{{URI: "file:///c%3A/p"}, {URI: "file:///C:/p/"}},
			want:    []Folder{{"file:///c%3A/p", "/c:/p", "p"}},
		},
		{
			name:    "a virtual folder is reported, the others kept",
			folders: []protocol.WorkspaceFolder{{URI: "vscode-vfs://github/o/r"}, {URI: "file:///a"}},
			want:    []Folder{{"file:///a", "/a", "a"}},
			errHas:  "vscode-vfs:",
		},
		{name: "rootUri", rootURI: "file:///r/proj", rootPath: "/ignored", want: []Folder{{"file:///r/proj", "/r/proj", "proj"}}},
		{name: "bad rootUri", rootURI: "untitled:x", errHas: "rootUri"},
		{name: "rootPath", rootPath: "/r/my proj/", want: []Folder{{"file:///r/my%20proj", "/r/my proj", "my proj"}}},
		{name: "relative rootPath", rootPath: "proj", errHas: "not an absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FoldersFromInitialize(tt.folders, tt.rootURI, tt.rootPath)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("folders = %v, want %v", got, tt.want)
			}
			if tt.errHas == "" && err != nil || tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)) {
				t.Errorf("error = %v, want one containing %q", err, tt.errHas)
			}
		})
	}
}

func TestSet(t *testing.T) {
	var s Set // the zero value is usable
	if s.Len() != 0 || len(s.List()) != 0 {
		t.Fatal("zero Set is not empty")
	}
	if _, ok := s.Remove("/nothing"); ok {
		t.Fatal("Remove on an empty set found something")
	}
	must(t, s.Add(Folder{URI: "file:///w/b/"}))
	must(t, s.Add(Folder{Path: "/w/a/", Name: "A"}))
	must(t, s.Add(Folder{URI: "file:///w/b", Path: "/w/b", Name: "B"})) // replaces the first
	if err := s.Add(Folder{Path: "rel"}); err == nil {
		t.Error("Add of a relative path succeeded")
	}
	if err := s.Add(Folder{URI: "untitled:x"}); err == nil || !errors.Is(err, ErrNotFile) {
		t.Errorf("Add of untitled: = %v, want ErrNotFile", err)
	}
	want := []Folder{{"file:///w/a", "/w/a", "A"}, {"file:///w/b", "/w/b", "B"}}
	if got := s.List(); fmt.Sprint(got) != fmt.Sprint(want) || s.Len() != 2 {
		t.Fatalf("List = %v, want %v", got, want)
	}
	if f, ok := s.Lookup("/w/a/"); !ok || f.Name != "A" {
		t.Errorf("Lookup(/w/a/) = %v, %v", f, ok)
	}
	if f, ok := s.Remove("/w/a/./"); !ok || f.Name != "A" || s.Len() != 1 {
		t.Errorf("Remove(/w/a/./) = %v, %v; Len %d", f, ok, s.Len())
	}

	// Concurrent use (run with -race).
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			p := fmt.Sprintf("/c/%d", i)
			for range 100 {
				_ = s.Add(Folder{Path: p})
				_ = s.List()
				_, _ = s.Resolve("file://" + p + "/x")
				s.Remove(p)
			}
		})
	}
	wg.Wait()
	if s.Len() != 1 {
		t.Errorf("Len after the concurrent adds and removes = %d, want 1", s.Len())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestResolve(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	r := tree(t,
		"ws/a.go", "ws/nested/b.go", "ws/nested/deeper/c.go", "other/d.go", "outside/secret", "ws2/",
		"space dir/e.go",
		"ws/leak -> ../outside", "ws/leakfile -> ../outside/secret", "ws/tonested -> nested",
	)
	u := func(p string) string { return URIFromPath(filepath.Join(r, p)) }
	set := func(paths ...string) *Set {
		s := &Set{}
		for _, p := range paths {
			must(t, s.Add(Folder{URI: u(p), Name: p}))
		}
		return s
	}
	tests := []struct {
		name    string
		set     *Set
		doc     string
		want    string // folder name, empty for an error
		errIs   error
		errHas  []string
		errNone string // the error must not contain this
	}{
		{name: "file in the only folder", set: set("ws"), doc: u("ws/a.go"), want: "ws"},
		{name: "the folder itself", set: set("ws"), doc: u("ws"), want: "ws"},
		{name: "trailing slash", set: set("ws"), doc: u("ws") + "/nested/", want: "ws"},
		{name: "deepest wins", set: set("ws", "ws/nested", "other"), doc: u("ws/nested/deeper/c.go"), want: "ws/nested"},
		{name: "deepest wins, order does not matter", set: set("ws/nested", "ws"), doc: u("ws/nested/b.go"), want: "ws/nested"},
		{name: "outer folder for outer files", set: set("ws", "ws/nested"), doc: u("ws/a.go"), want: "ws"},
		{name: "second folder", set: set("ws", "other"), doc: u("other/d.go"), want: "other"},
		{name: "not-yet-saved file inside", set: set("ws"), doc: u("ws/new/file.go"), want: "ws"},
		{name: "encoded space", set: set("space dir"), doc: "file://" + strings.ReplaceAll(r, " ", "%20") + "/space%20dir/e.go", want: "space dir"},
		{name: "link to a nested folder", set: set("ws", "ws/nested"), doc: u("ws/tonested/b.go"), want: "ws/nested"},
		{name: "dot dot inside", set: set("ws"), doc: u("ws") + "/nested/../a.go", want: "ws"},

		{name: "sibling with a common prefix", set: set("ws"), doc: u("ws2/x.go"),
			errIs: ErrOutside, errHas: []string{"outside every workspace folder", filepath.Join(r, "ws")}},
		{name: "outside every folder", set: set("ws", "other"), doc: u("outside/secret"),
			errIs: ErrOutside, errHas: []string{filepath.Join(r, "outside/secret"), filepath.Join(r, "other") + ", " + filepath.Join(r, "ws")}},
		{name: "dot dot escape", set: set("ws"), doc: u("ws") + "/../outside/secret", errIs: ErrOutside},
		{name: "encoded dot dot escape", set: set("ws"), doc: u("ws") + "/%2e%2E/outside/secret", errIs: ErrOutside},
		{name: "symlinked directory leaving the folder", set: set("ws"), doc: u("ws/leak/secret"),
			errIs: ErrOutside, errHas: []string{"symbolic link", filepath.Join(r, "outside/secret")}},
		{name: "symlinked file leaving the folder", set: set("ws"), doc: u("ws/leakfile"), errIs: ErrOutside, errHas: []string{"symbolic link"}},
		{name: "new file under a link leaving the folder", set: set("ws"), doc: u("ws/leak/new.go"), errIs: ErrOutside},

		{name: "untitled with one folder", set: set("ws"), doc: "untitled:Untitled-1", want: "ws"},
		{name: "empty URI with one folder", set: set("ws"), doc: "", want: "ws"},
		{name: "untitled with two folders", set: set("ws", "other"), doc: "untitled:Untitled-1",
			errIs: ErrNotFile, errHas: []string{"untitled:Untitled-1", "2 workspace folders", "save it inside one"}, errNone: "not a file URI"},
		{name: "empty URI with two folders", set: set("ws", "other"), doc: "", errIs: ErrNotFile, errHas: []string{"no URI"}},
		{name: "untitled with no folder", set: set(), doc: "untitled:Untitled-1", errIs: ErrNoFolder, errHas: []string{"open a folder"}},
		{name: "file with no folder", set: set(), doc: u("ws/a.go"), errIs: ErrNoFolder, errHas: []string{filepath.Join(r, "ws/a.go")}},
		{name: "malformed file URI", set: set("ws"), doc: "file:///x/%zz", errHas: []string{"%-escape"}},
		{name: "remote file URI", set: set("ws"), doc: "file://server/share/x", errHas: []string{"host"}},
		{name: "vs code drive letter outside", set: set("ws"), doc: "file:///c%3A/Users/x", errIs: ErrOutside, errHas: []string{"/c:/Users/x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := tt.set.Resolve(tt.doc)
			// Again: the second time the folders' roots are known (Set keeps them).
			if f2, err2 := tt.set.Resolve(tt.doc); f2 != f || (err2 == nil) != (err == nil) || (err != nil && err2.Error() != err.Error()) {
				t.Errorf("Resolve(%q) again = %+v, %v; the first time %+v, %v", tt.doc, f2, err2, f, err)
			}
			if tt.want != "" {
				if err != nil || f.Name != tt.want {
					t.Fatalf("Resolve(%q) = %+v, %v; want folder %q", tt.doc, f, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Resolve(%q) = %+v, want an error", tt.doc, f)
			}
			if tt.errIs != nil && !errors.Is(err, tt.errIs) {
				t.Errorf("Resolve(%q) error %q does not wrap %v", tt.doc, err, tt.errIs)
			}
			for _, s := range tt.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Resolve(%q) error %q does not contain %q", tt.doc, err, s)
				}
			}
			if tt.errNone != "" && strings.Contains(err.Error(), tt.errNone) {
				t.Errorf("Resolve(%q) error %q contains %q", tt.doc, err, tt.errNone)
			}
			t.Logf("%s", err)
		})
	}
}

// BenchmarkResolve resolves a document in one of 10 workspace folders, as every ask does.
func BenchmarkResolve(b *testing.B) {
	root := b.TempDir()
	s := &Set{}
	for i := range 10 {
		dir := filepath.Join(root, "work", fmt.Sprintf("folder-%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := s.Add(Folder{Path: dir}); err != nil {
			b.Fatal(err)
		}
	}
	doc := URIFromPath(filepath.Join(root, "work", "folder-7", "main.go"))
	b.ReportAllocs()
	for b.Loop() {
		if f, err := s.Resolve(doc); err != nil || f.Name != "folder-7" {
			b.Fatal(f, err)
		}
	}
}

// TestResolveVSCodeDrive checks that folders and documents compare as paths whatever the
// spelling of the drive letter, with no filesystem behind them.
func TestResolveVSCodeDrive(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the expectations are POSIX paths")
	}
	var s Set
	must(t, s.Add(Folder{URI: "file:///c%3A/Users/x/proj"}))
	for _, doc := range []string{
		"file:///c%3A/Users/x/proj/main.go",
		"file:///C:/Users/x/proj/main.go",
		"file:///c:/Users/x/proj/sub/",
	} {
		if f, err := s.Resolve(doc); err != nil || f.Path != "/c:/Users/x/proj" {
			t.Errorf("Resolve(%q) = %+v, %v", doc, f, err)
		}
	}
	if _, err := s.Resolve("file:///c%3A/Users/x/projx/main.go"); !errors.Is(err, ErrOutside) {
		t.Errorf("a sibling with a common prefix resolved: %v", err)
	}
}
