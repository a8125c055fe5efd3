package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// This file reads the --listen value. A socket is a door into the server that a stdio pipe is not:
// whoever connects can make it run programs as us. So a bare path or "unix" means a Unix domain
// socket (which the file system lets only us reach), and TCP must be asked for by name and is
// checked further (loopback only, a token) before the server listens.

// listenAddr is a parsed --listen value.
type listenAddr struct {
	network string // "unix" or "tcp"
	address string // the socket's absolute path, or HOST:PORT
}

// String is the address as --listen accepts it, for logs and messages.
func (a listenAddr) String() string { return a.network + ":" + a.address }

// parseListen reads a --listen value: "unix" (the default socket path), "unix:PATH", a bare PATH
// (anything with a path separator), "tcp:HOST:PORT", or a bare HOST:PORT (read as tcp:HOST:PORT,
// what --listen meant before sockets were the default).
func parseListen(s string) (listenAddr, error) {
	const want = "want unix, unix:PATH, a path with a '/', or tcp:HOST:PORT"
	switch {
	case s == "unix":
		return listenAddr{network: "unix", address: defaultSocketPath()}, nil
	case strings.HasPrefix(s, "unix:"):
		return unixAddr(strings.TrimPrefix(s, "unix:"))
	case strings.HasPrefix(s, "tcp:"):
		return tcpAddr(strings.TrimPrefix(s, "tcp:"))
	case strings.ContainsAny(s, "/"+string(filepath.Separator)):
		return unixAddr(s)
	case strings.Contains(s, ":"):
		return tcpAddr(s)
	}
	return listenAddr{}, fmt.Errorf("--listen %q: %s", s, want)
}

func unixAddr(path string) (listenAddr, error) {
	if path == "" {
		return listenAddr{}, errors.New("--listen unix: needs a path after the colon, or use --listen unix for the default one")
	}
	// Absolute, so that the path we log is the one a client must use, and the one we remove on exit.
	abs, err := filepath.Abs(path)
	if err != nil {
		return listenAddr{}, fmt.Errorf("--listen %q: %w", path, err)
	}
	return listenAddr{network: "unix", address: abs}, nil
}

func tcpAddr(hostPort string) (listenAddr, error) {
	_, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return listenAddr{}, fmt.Errorf("--listen tcp:%s: want HOST:PORT, e.g. tcp:127.0.0.1:7777 (%v)", hostPort, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return listenAddr{}, fmt.Errorf("--listen tcp:%s: the port must be a number from 0 to 65535", hostPort)
	}
	return listenAddr{network: "tcp", address: hostPort}, nil
}

// loopback reports whether a TCP address can only be reached from this machine: its host is a
// literal loopback IP (127.0.0.0/8, ::1) or "localhost". An empty host (":7777") is every
// interface. Host names other than localhost are not trusted: what they resolve to can change.
func (a listenAddr) loopback() bool {
	host, _, err := net.SplitHostPort(a.address)
	if err != nil || host == "" {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// defaultSocketPath is where --listen unix puts the socket: $XDG_RUNTIME_DIR/hermes-lsp/lsp.sock (a
// directory only we can enter, emptied at logout), else a directory of ours in the temporary one.
func defaultSocketPath() string {
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "hermes-lsp", "lsp.sock")
	}
	name := "hermes-lsp"
	if uid := os.Geteuid(); uid >= 0 { // -1 on Windows, whose temporary directory is per user anyway
		name = fmt.Sprintf("hermes-lsp-%d", uid)
	}
	return filepath.Join(os.TempDir(), name, "lsp.sock")
}
