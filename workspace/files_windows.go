//go:build windows

package workspace

// oNonBlock is nothing on Windows: opening a named pipe does not wait for a writer the way a FIFO
// does.
const oNonBlock = 0
