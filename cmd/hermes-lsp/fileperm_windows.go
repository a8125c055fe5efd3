package main

import "os"

// On Windows files have no owner uid or Unix mode bits to check: access is decided by ACLs, and the
// places we create files in (the per-user temporary directory, a token file's directory) inherit
// ACLs that leave other users out. So these checks accept what they are given.

// oNoFollow is 0: Windows has no O_NOFOLLOW. Lstat still refuses a token file that is a link.
const oNoFollow = 0

// checkOwner accepts fi: see the note at the top of this file.
func checkOwner(fi os.FileInfo) error { return nil }

// checkPrivate accepts fi: see the note at the top of this file.
func checkPrivate(fi os.FileInfo) error { return nil }

// chmodSocket does nothing: a socket file's ACL comes from its directory.
func chmodSocket(path string) error { return nil }
