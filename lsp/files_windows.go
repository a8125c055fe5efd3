//go:build windows

package lsp

// Windows has neither flag: opening a named pipe does not wait for a writer the way a FIFO does, and
// writePrivateFile's O_EXCL already refuses any existing path, a link included.
const (
	oNonBlock = 0
	oNoFollow = 0
)
