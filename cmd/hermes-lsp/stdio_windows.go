//go:build windows

package main

import "os"

// pollable returns f: on Windows the standard handles stay as they are.
func pollable(f *os.File) *os.File { return f }
