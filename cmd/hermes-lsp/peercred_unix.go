//go:build linux || darwin

package main

import (
	"fmt"
	"net"
)

// peerCredChecked says whether peerUID can tell who connected on this platform.
const peerCredChecked = true

// peerUID is the uid of the process at the other end of a Unix socket connection: the credentials
// it had when it connected, as the platform's socket option (sockoptPeerUID) reads them.
func peerUID(c net.Conn) (int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return -1, fmt.Errorf("peer credentials: %T is not a Unix socket", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("peer credentials: %w", err)
	}
	uid, credErr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, credErr = sockoptPeerUID(int(fd)) }); err != nil {
		return -1, fmt.Errorf("peer credentials: %w", err)
	}
	if credErr != nil {
		return -1, fmt.Errorf("peer credentials: %w", credErr)
	}
	return uid, nil
}
