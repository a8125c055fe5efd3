//go:build windows

package lsp

// oNoFollow is nothing on Windows: writePrivateFile's O_EXCL already refuses any existing path, a
// link included.
const oNoFollow = 0
