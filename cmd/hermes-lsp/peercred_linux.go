package main

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerCredChecked says whether peerUID can tell who connected on this platform.
const peerCredChecked = true

// peerUID is the uid of the process at the other end of a Unix socket connection (SO_PEERCRED: the
// credentials it had when it connected).
func peerUID(c net.Conn) (int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return -1, fmt.Errorf("peer credentials: %T is not a Unix socket", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("peer credentials: %w", err)
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, fmt.Errorf("peer credentials: %w", err)
	}
	if credErr != nil {
		return -1, fmt.Errorf("peer credentials: SO_PEERCRED: %w", credErr)
	}
	return int(cred.Uid), nil
}
