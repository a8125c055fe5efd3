package workspace

import "path/filepath"

// Rel returns path relative to folder for showing to a person ("src/main.go"), and whether it lies
// inside folder. A path outside folder, or when either is not absolute, comes back as it was (with
// false). The comparison is of cleaned paths, component by component (as [Contains] compares them,
// without resolving links): "/a/bc" is not inside "/a/b".
func Rel(folder, path string) (string, bool) {
	if folder == "" || !filepath.IsAbs(folder) || !filepath.IsAbs(path) {
		return path, false
	}
	root, p := filepath.Clean(folder), filepath.Clean(path)
	if !within(root, p) {
		return path, false
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return path, false
	}
	return rel, true
}
