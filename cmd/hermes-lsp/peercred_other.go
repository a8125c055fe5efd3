//go:build !linux && !darwin

package main

import "net"

// peerCredChecked says whether peerUID can tell who connected on this platform.
const peerCredChecked = false

// peerUID cannot tell who is at the other end on this platform (Windows, the BSDs). There the socket
// is guarded by the file system alone: a directory only we can enter (on Windows, our per-user
// temporary directory's ACL) and, on Unix, a 0600 socket file. The server says so in its log at start.
func peerUID(net.Conn) (int, error) {
	return -1, errNoPeerCred
}
