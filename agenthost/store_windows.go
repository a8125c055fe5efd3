package agenthost

// openNoFollow is zero on Windows: os.OpenFile has no such flag there. Creating a symbolic link on
// Windows takes a privilege (or developer mode) that ordinary users lack, and the state dir is in the
// user's own profile, so a planted link is not the risk it is on a shared unix machine.
const openNoFollow = 0

// keepTranscriptsOpen is false on Windows: a file open here cannot be removed or renamed, and the
// transcripts are the user's to move or delete between turns. Each turn opens them again.
const keepTranscriptsOpen = false

// syncDir does nothing on Windows: a directory cannot be opened for syncing there, and NTFS journals
// the rename itself.
func syncDir(dir string) error {
	return nil
}

// openNonBlock is nothing on Windows: opening a named pipe does not wait for a writer.
const openNonBlock = 0
