//go:build unix

package lsp

import "syscall"

// oNoFollow refuses a symbolic link in the last element of a path.
const oNoFollow = syscall.O_NOFOLLOW
