//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// oNoFollow makes opening a symbolic link fail instead of opening what it points to.
const oNoFollow = syscall.O_NOFOLLOW

// checkOwner checks that fi (from Lstat or Stat) is owned by the user we run as.
func checkOwner(fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("cannot tell who owns it")
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Errorf("is owned by uid %d, not by you (uid %d)", st.Uid, uid)
	}
	return nil
}

// checkPrivate checks that fi is ours and that neither group nor others have any permission on it.
func checkPrivate(fi os.FileInfo) error {
	if err := checkOwner(fi); err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("has mode %04o: its group or others can use it", perm)
	}
	return nil
}

// chmodSocket gives the socket file mode 0600. Connecting to a Unix socket needs write permission
// on it, so this keeps other users out even if its directory is opened up later.
//
//hermes:ownfile the server's own socket
func chmodSocket(path string) error {
	return os.Chmod(path, 0o600)
}
