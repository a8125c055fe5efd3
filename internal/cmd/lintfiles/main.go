// Command lintfiles fails when the server's code touches the file system other than through
// package workspace, the one boundary for the user's files (workspace/files.go): every path the
// model, codex or a repository names must be resolved, contained in its folder, read bounded and
// written without following links, and only that package does all of it.
//
// It checks the packages of this module that the named main packages are built from (by default
// ./cmd/hermes-lsp, for Linux, macOS and Windows), every non-test file whatever its build
// constraints, except package workspace itself. Test helpers, the demo, the benchmarks and the
// generators are not the server: they work in folders of their own making and are not checked.
//
// A reference to a function that opens, reads, writes, creates, removes, renames, links, lists or
// stats a file by name (os, io/ioutil, path/filepath's walks and link resolution, syscall,
// x/sys/unix and x/sys/windows) is reported unless it is marked as one of hermes-lsp's own files,
// never the user's:
//
//	//hermes:ownfile <why>
//
// on the line (after the code, or alone on the line above), or in the doc comment of the function,
// which then covers every call in it. The reason is required, and a mark that covers no call is
// reported too, so that each exception stays visible, explained and current.
//
// Usage:
//
//	go run ./internal/cmd/lintfiles [main package ...]
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	mains := os.Args[1:]
	if len(mains) == 0 {
		mains = []string{"./cmd/hermes-lsp"}
	}
	dirs, err := serverDirs(mains)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lintfiles:", err)
		os.Exit(2)
	}
	wd, _ := os.Getwd()
	failed := false
	for _, dir := range dirs {
		findings, err := checkDir(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "lintfiles:", err)
			os.Exit(2)
		}
		for _, f := range findings {
			if rel, err := filepath.Rel(wd, f.Pos.Filename); err == nil {
				f.Pos.Filename = rel
			}
			fmt.Println(f)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// boundary is the package allowed to touch the user's files, relative to the module's path.
const boundary = "/workspace"

// systems are the ones the server is built for: a package may be imported on one only.
var systems = []string{"linux", "darwin", "windows"}

// serverDirs lists the directories of this module's packages that mains are built from on any of
// systems, without the boundary's, sorted.
func serverDirs(mains []string) ([]string, error) {
	seen := map[string]bool{}
	for _, goos := range systems {
		args := append([]string{"list", "-deps", "-f",
			"{{if .Module}}{{if .Module.Main}}{{.ImportPath}}\t{{.Module.Path}}\t{{.Dir}}{{end}}{{end}}"}, mains...)
		cmd := exec.Command("go", args...)
		cmd.Env = append(os.Environ(), "GOOS="+goos)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list (GOOS=%s): %v: %s", goos, err, stderr.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			fields := strings.SplitN(line, "\t", 3)
			if len(fields) != 3 || fields[0] == fields[1]+boundary {
				continue
			}
			seen[fields[2]] = true
		}
	}
	dirs := make([]string, 0, len(seen))
	for d := range seen {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs, nil
}
