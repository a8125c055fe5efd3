//go:build unix

package agenthost

import (
	"os"
	"syscall"
)

// openNoFollow makes an open fail on a symbolic link instead of following it.
const openNoFollow = syscall.O_NOFOLLOW

// keepTranscriptsOpen: a session keeps its thread's transcripts open from one turn to the next (a
// file removed meanwhile is noticed by transcriptFiles.check), sparing each turn two opens.
const keepTranscriptsOpen = true

// syncDir syncs the folder dir, so that a rename into it survives a crash.
//
//hermes:ownfile a folder of the state folder, synced after a rename into it
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// openNonBlock keeps opening a FIFO planted in the state folder from waiting for a writer.
const openNonBlock = syscall.O_NONBLOCK
