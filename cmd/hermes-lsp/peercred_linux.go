package main

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// sockoptPeerUID reads the peer's uid with SO_PEERCRED.
func sockoptPeerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, fmt.Errorf("SO_PEERCRED: %w", err)
	}
	return int(cred.Uid), nil
}
