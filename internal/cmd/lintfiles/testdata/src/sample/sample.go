// Package sample holds what lintfiles must report, and what it must let through, for its test.
package sample

import (
	"io/fs"
	"io/ioutil"
	"os"
	"path/filepath"
)

// Plain calls on the user's files: each reported.
func plain(name string) {
	f, _ := os.Open(name) // plain open
	f.Close()
	_, _ = os.Stat(name)                                                              // plain stat
	_ = ioutil.WriteFile(name, nil, 0o600)                                            // plain ioutil write
	_ = filepath.WalkDir(name, func(string, fs.DirEntry, error) error { return nil }) // plain walk
	open := os.OpenFile                                                               // a function value
	_, _ = open(name, os.O_RDONLY, 0)
}

// Names of os that touch no file: none reported.
func harmless(name string) {
	_ = os.Getenv("HOME")
	_ = filepath.Join(name, "a")
	_ = os.O_RDONLY | os.O_CREATE
	_ = fs.ModeSymlink
	if f, err := os.Open(name); err == nil { //hermes:ownfile a marked line, the mark after the code
		_, _ = f.Stat() // a method of an open file: its open was checked
	}
}

// ownState touches files of hermes-lsp's own: the mark covers every call in the function, in a
// closure too.
//
//hermes:ownfile the state folder's files
func ownState(dir string) {
	_ = os.MkdirAll(dir, 0o700)
	func() { _ = os.Remove(filepath.Join(dir, "x")) }()
}

func lineMarks(name string) {
	//hermes:ownfile a mark alone on the line above
	_ = os.Remove(name)

	//hermes:ownfile a mark with a blank line before the call

	_ = os.RemoveAll(name) // not covered: the blank line
	//hermes:ownfilex not a mark
	_, _ = os.Create(name) // not covered: not the directive
	//hermes:ownfile
	_ = os.Rename(name, name+".old") // covered, but the mark has no reason
}

// nothingToMark has a mark and no file call.
//
//hermes:ownfile a mark that covers nothing
func nothingToMark() {}
