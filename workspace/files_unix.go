//go:build unix

package workspace

import "syscall"

// oNonBlock keeps opening a FIFO from waiting for a writer.
const oNonBlock = syscall.O_NONBLOCK
