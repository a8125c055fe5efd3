//go:build windows

package sample

import . "os"

// A file of another system is checked too.
func dotted() { _ = Getpagesize() }
