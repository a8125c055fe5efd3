//go:build unix

package lsp

import "syscall"

const (
	// oNonBlock keeps opening a FIFO from waiting for a writer.
	oNonBlock = syscall.O_NONBLOCK
	// oNoFollow refuses a symbolic link in the last element of a path.
	oNoFollow = syscall.O_NOFOLLOW
)
