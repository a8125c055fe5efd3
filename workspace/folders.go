package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
)

// Errors that [Set.Resolve] wraps, for callers that answer differently by cause. The full error
// text is always a sentence fit to show the user.
var (
	// ErrNoFolder means no workspace folder is open.
	ErrNoFolder = errors.New("no workspace folder is open")
	// ErrOutside means the document lies outside every workspace folder, possibly through a
	// symbolic link or "..".
	ErrOutside = errors.New("outside every workspace folder")
)

// Folder is one workspace folder of the editor.
type Folder struct {
	// URI is the folder's URI as the editor sent it (or as [URIFromPath] made it).
	URI string
	// Path is the cleaned absolute filesystem path of the folder, as the editor names it
	// (symbolic links are not resolved here; [Contains] resolves them when it compares).
	Path string
	// Name is the folder's display name: the editor's, else the last element of Path.
	Name string
}

// ShortName is the folder's name for a message on one line: its display name, unless the editor
// named it by its whole path (Neovim does), then the last element of Path.
func (f Folder) ShortName() string {
	if f.Name == "" || strings.ContainsAny(f.Name, `/\`) {
		return filepath.Base(f.Path)
	}
	return f.Name
}

// FolderFromURI returns the folder with the given URI and display name. An empty name becomes
// the last element of the folder's path. The error is [PathFromURI]'s, said of a folder.
func FolderFromURI(uri, name string) (Folder, error) {
	p, err := PathFromURI(uri)
	if err != nil {
		return Folder{}, fmt.Errorf("workspace folder %q cannot be used: %w", uri, err)
	}
	return Folder{URI: uri, Path: p, Name: folderName(name, p)}, nil
}

// FoldersFromInitialize returns the workspace folders named by an initialize request: its
// workspaceFolders when there are any, else its rootUri, else its rootPath (an absolute path).
// Duplicates (the same path spelled differently) are dropped.
//
// It returns every folder it can use together with an error describing those it cannot (a
// virtual folder such as vscode-vfs://, a relative rootPath), so both results may be non-nil.
// No folder at all (a single file opened on its own) is not an error: the result is empty.
func FoldersFromInitialize(workspaceFolders []protocol.WorkspaceFolder, rootURI, rootPath string) ([]Folder, error) {
	var (
		folders []Folder
		errs    []error
		seen    = map[string]bool{}
	)
	add := func(f Folder) {
		if k := key(f.Path); !seen[k] {
			seen[k] = true
			folders = append(folders, f)
		}
	}
	switch {
	case len(workspaceFolders) > 0:
		for _, wf := range workspaceFolders {
			f, err := FolderFromURI(wf.URI, wf.Name)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			add(f)
		}
	case rootURI != "":
		f, err := FolderFromURI(rootURI, "")
		if err != nil {
			errs = append(errs, fmt.Errorf("rootUri: %w", err))
		} else {
			add(f)
		}
	case rootPath != "":
		if !filepath.IsAbs(rootPath) {
			errs = append(errs, fmt.Errorf("rootPath %q is not an absolute path, so it cannot be used as the workspace folder", rootPath))
		} else {
			p := filepath.Clean(rootPath)
			add(Folder{URI: URIFromPath(p), Path: p, Name: folderName("", p)})
		}
	}
	return folders, errors.Join(errs...)
}

// Set is the set of open workspace folders, keyed by cleaned path. It is safe for concurrent use;
// the zero value is an empty set.
type Set struct {
	mu      sync.RWMutex
	folders map[string]Folder // by key(Path)
	// roots holds each folder's root with its symbolic links resolved, by key(Path), as Resolve
	// last found it: Resolve picks a folder by them and resolves only the one it picks again.
	roots map[string]string
}

// Add adds f, replacing a folder with the same path. An empty f.Path is computed from f.URI; a
// relative path is an error. The stored Path is cleaned and an empty Name becomes the last
// element of the path.
func (s *Set) Add(f Folder) error {
	if f.Path == "" {
		p, err := PathFromURI(f.URI)
		if err != nil {
			return fmt.Errorf("workspace folder %q cannot be used: %w", f.URI, err)
		}
		f.Path = p
	}
	if !filepath.IsAbs(f.Path) {
		return fmt.Errorf("workspace folder %q is not an absolute path", f.Path)
	}
	f.Path = filepath.Clean(f.Path)
	if f.URI == "" {
		f.URI = URIFromPath(f.Path)
	}
	f.Name = folderName(f.Name, f.Path)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.folders == nil {
		s.folders = map[string]Folder{}
	}
	s.folders[key(f.Path)] = f
	delete(s.roots, key(f.Path))
	return nil
}

// Remove removes the folder with the given path (compared cleaned) and returns it, with false if
// there was none.
func (s *Set) Remove(path string) (Folder, bool) {
	k := key(filepath.Clean(path))
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.folders[k]
	delete(s.folders, k)
	delete(s.roots, k)
	return f, ok
}

// Lookup returns the folder with the given path (compared cleaned).
func (s *Set) Lookup(path string) (Folder, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	f, ok := s.folders[key(filepath.Clean(path))]
	return f, ok
}

// List returns the folders sorted by path.
func (s *Set) List() []Folder {
	s.mu.RLock()
	list := make([]Folder, 0, len(s.folders))
	for _, f := range s.folders {
		list = append(list, f)
	}
	s.mu.RUnlock()
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	return list
}

// Len returns the number of folders.
func (s *Set) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.folders)
}

// Resolve returns the workspace folder a document belongs to, the one an agent turn about it runs
// in.
//
// For a file URI it is the deepest folder that [Contains] the document's path, so nested folders
// pick the innermost and a path that leaves every folder through ".." or a symbolic link is
// refused with an error wrapping [ErrOutside]. A document that is not a file (docURI empty or
// untitled:) gets the only folder when exactly one is open; otherwise the error says why no folder
// can be chosen. With no folder open the error wraps [ErrNoFolder]. Every error is a sentence
// that tells the user what to do.
func (s *Set) Resolve(docURI string) (Folder, error) {
	folders := s.List()
	p, err := PathFromURI(docURI)
	if errors.Is(err, ErrNotFile) {
		switch len(folders) {
		case 0:
			return Folder{}, sentence(ErrNoFolder, "no workspace folder is open: open a folder in the editor first")
		case 1:
			return folders[0], nil
		default:
			return Folder{}, sentence(ErrNotFile, "%s and %d workspace folders are open: save it inside one of them so hermes knows which folder to work in",
				describe(docURI), len(folders))
		}
	}
	if err != nil {
		return Folder{}, err
	}
	if len(folders) == 0 {
		return Folder{}, sentence(ErrNoFolder, "no workspace folder is open: open the folder that holds %s in the editor", p)
	}

	if f, ok := s.Lookup(p); ok && filepath.IsAbs(p) {
		// The folder itself (a chat buffer asks about it): it holds itself wherever its links lead,
		// and no other folder holds it deeper (a root that holds this one's is no longer than it),
		// so nothing needs resolving.
		return f, nil
	}
	var (
		best      Folder
		bestDepth = -1
		errs      []error
		lexical   []Folder // folders that hold p by name but not once links are resolved
		resolved  string
	)
	// p is resolved once; a folder's root for each folder (a link may have changed since it was
	// added).
	rp, perr := resolve(p)
	if !filepath.IsAbs(p) {
		perr = fmt.Errorf("%q is not an absolute path", p)
	}
	if perr == nil {
		if f, ok := s.resolveKnown(folders, rp); ok {
			return f, nil
		}
	}
	for _, f := range folders {
		if perr != nil {
			errs = append(errs, fmt.Errorf("workspace folder %s: %w", f.Path, perr))
			continue
		}
		rr, err := resolveRoot(f.Path)
		if err != nil {
			errs = append(errs, fmt.Errorf("workspace folder %s: %w", f.Path, err))
			continue
		}
		s.keepRoot(f, rr)
		resolved = rp
		if !within(rr, rp) {
			if within(f.Path, p) {
				lexical = append(lexical, f)
			}
			continue
		}
		if d := len(rr); d > bestDepth {
			best, bestDepth = f, d
		}
	}
	if bestDepth >= 0 {
		return best, nil
	}
	if len(lexical) > 0 {
		return Folder{}, sentence(ErrOutside, "%s is in workspace folder %s but a symbolic link takes it to %s, outside every workspace folder: hermes only works on files inside a folder",
			p, lexical[len(lexical)-1].Path, resolved)
	}
	err = sentence(ErrOutside, "%s is outside every workspace folder (%s): open its folder in the editor, or move the file into one", p, listPaths(folders))
	if len(errs) > 0 {
		err = errors.Join(append([]error{err}, errs...)...)
	}
	return Folder{}, err
}

// resolveKnown picks, among folders, the deepest whose root as last resolved holds rp (p resolved
// now), and returns it once its root, resolved again now, is still the same: an ask then resolves
// two paths, not one per folder. It returns false when a folder's root is not known yet, none
// holds rp, or the one picked has changed: Resolve then resolves every root again. (A link of
// another folder changed since it was resolved may leave a deeper folder unseen: the turn then runs
// in the outer folder, which holds the file too.)
func (s *Set) resolveKnown(folders []Folder, rp string) (Folder, bool) {
	var (
		best      Folder
		bestRoot  string
		bestDepth = -1
	)
	s.mu.RLock()
	for _, f := range folders {
		rr, ok := s.roots[key(f.Path)]
		if !ok {
			s.mu.RUnlock()
			return Folder{}, false
		}
		if within(rr, rp) && len(rr) > bestDepth {
			best, bestRoot, bestDepth = f, rr, len(rr)
		}
	}
	s.mu.RUnlock()
	if bestDepth < 0 {
		return Folder{}, false
	}
	if rr, err := resolveRoot(best.Path); err != nil || rr != bestRoot {
		return Folder{}, false
	}
	return best, true
}

// keepRoot records f's resolved root, unless f has left the set or changed meanwhile.
func (s *Set) keepRoot(f Folder, root string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.folders[key(f.Path)]; !ok || cur != f {
		return
	}
	if s.roots == nil {
		s.roots = map[string]string{}
	}
	s.roots[key(f.Path)] = root
}

// describe names a non-file document URI for an error message.
func describe(uri string) string {
	if strings.TrimSpace(uri) == "" {
		return "the document has no URI"
	}
	return fmt.Sprintf("the document %s is not a file on disk", uri)
}

// listPaths joins the folders' paths for an error message.
func listPaths(folders []Folder) string {
	paths := make([]string, len(folders))
	for i, f := range folders {
		paths[i] = f.Path
	}
	return strings.Join(paths, ", ")
}

// folderName returns name, or the last element of p when name is empty.
func folderName(name, p string) string {
	if name != "" {
		return name
	}
	return filepath.Base(p)
}

// key is the map key of a cleaned path: the path itself, case-folded on Windows.
func key(p string) string {
	if runtime.GOOS == "windows" {
		return strings.ToLower(p)
	}
	return p
}
