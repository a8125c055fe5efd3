package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"
)

// errNoPeerCred says this platform cannot tell who is at the other end of a Unix socket.
var errNoPeerCred = errors.New("peer credentials are not available on this platform")

// listenUnix listens on a Unix domain socket at path, which only we may reach: its directory is
// created 0700 when missing and must otherwise be ours, not a link and closed to group and others;
// the socket file is made 0600. A socket file left by a server of ours that died is replaced; any
// other file at path is left alone and refused. Closing the listener removes the socket file.
//
//hermes:ownfile the server's own socket folder
func listenUnix(path string) (*net.UnixListener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("--listen unix:%s: create its directory: %w", path, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("--listen unix:%s: %w", path, err)
	}
	private := "put the socket in a directory of its own (mode 700), e.g. --listen unix for " + defaultSocketPath()
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("--listen unix:%s: its directory %s is a symbolic link; %s", path, dir, private)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("--listen unix:%s: %s is not a directory", path, dir)
	}
	if err := checkPrivate(fi); err != nil {
		return nil, fmt.Errorf("--listen unix:%s: its directory %s %w; %s", path, dir, err, private)
	}
	if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		hint := ""
		if len(path) > 100 {
			hint = fmt.Sprintf(" (the path is %d bytes; socket paths are limited to about 100: choose a shorter one)", len(path))
		}
		return nil, fmt.Errorf("--listen unix:%s: %w%s", path, err, hint)
	}
	if err := chmodSocket(path); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("--listen unix:%s: make the socket private: %w", path, err)
	}
	return ln, nil
}

// removeStaleSocket clears path for a new socket. Only a socket of ours that nothing answers on is
// removed: a live one means another server is running there, and any other file is not ours to
// delete.
//
//hermes:ownfile a socket of the server's own, left by one that died
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--listen unix:%s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("--listen unix:%s: a file that is not a socket is in the way; remove it or choose another path", path)
	}
	if err := checkOwner(fi); err != nil {
		return fmt.Errorf("--listen unix:%s: the socket there %w; choose another path", path, err)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		_ = c.Close()
		return fmt.Errorf("--listen unix:%s: another server is listening there; stop it or choose another path", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--listen unix:%s: remove the stale socket: %w", path, err)
	}
	return nil
}

// peerListener accepts only connections from processes running as uid; others are closed at once,
// before the server reads a byte from them. The directory and file modes already keep other users
// out; this holds even if someone loosens them.
type peerListener struct {
	net.Listener
	uid int // the uid a peer must have: ours, or another in tests
	log *slog.Logger
}

// Accept returns the next connection whose peer runs as l.uid.
func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uid, err := peerUID(c)
		switch {
		case errors.Is(err, errNoPeerCred):
			return c, nil // said once at start; the file modes are the guard here
		case err != nil:
			l.log.Warn("closing a connection whose peer cannot be identified", "err", err)
		case uid != l.uid:
			l.log.Warn("closing a connection from another user", "peer_uid", uid, "want_uid", l.uid)
		default:
			return c, nil
		}
		_ = c.Close()
	}
}
