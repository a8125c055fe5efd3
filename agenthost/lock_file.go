package agenthost

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// Several hermes-lsp servers (one per editor window) may share a state dir. Whatever one writes that
// another may write too is written holding a lock file beside it, so that a read-merge-write of
// state.json or the append of a transcript record is never interleaved with another's.

const (
	// lockWait bounds the wait for a lock file: longer than any save or append takes.
	lockWait = 10 * time.Second
	// lockRetry is how often a held lock is tried again.
	lockRetry = 10 * time.Millisecond
)

// withFileLock runs fn holding an exclusive lock on the file at path (created 0600 when missing).
// When the lock cannot be had — a file system without locks, or a holder stuck for lockWait — fn runs
// anyway and a warning is logged: the record is worth more than the rare race the lock prevents, and
// the host must never stop for it.
func withFileLock(path string, log *slog.Logger, fn func() error) error {
	l := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR|openNoFollow), flock.SetPermissions(0o600))
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	locked, err := l.TryLockContext(ctx, lockRetry)
	if locked {
		defer func() {
			if err := l.Unlock(); err != nil {
				log.Warn("could not unlock", "lock", path, "err", err)
			}
		}()
	} else {
		log.Warn("could not take the lock; writing without it", "lock", path, "err", err)
	}
	return fn()
}

// keptLock is a lock file held open for the store's life: taking it is one system call, where
// withFileLock opens, locks, unlocks and closes the file each time (a transcript append per turn
// end, another per turn start). Its methods are called under the caller's own mutex.
type keptLock struct {
	path string
	log  *slog.Logger
	f    *os.File // opened at the first lock; nil after close
}

// with runs fn holding the lock, as withFileLock does (fn runs even when the lock cannot be had).
//
//hermes:ownfile the state folder's lock file, not followed through a link
func (l *keptLock) with(fn func() error) error {
	if l.f == nil {
		f, err := os.OpenFile(l.path, os.O_CREATE|os.O_RDWR|openNoFollow, 0o600)
		if err != nil {
			l.log.Warn("could not open the lock file; writing without it", "lock", l.path, "err", err)
			return fn()
		}
		l.f = f
	}
	deadline := time.Now().Add(lockWait)
	for {
		locked, err := tryLockFile(l.f)
		if locked {
			break
		}
		if err != nil || time.Now().After(deadline) {
			l.log.Warn("could not take the lock; writing without it", "lock", l.path, "err", err)
			return fn()
		}
		time.Sleep(lockRetry) // another server holds it for the length of one append
	}
	defer func() {
		if err := unlockFile(l.f); err != nil {
			l.log.Warn("could not unlock", "lock", l.path, "err", err)
		}
	}()
	return fn()
}

// close closes the lock file.
func (l *keptLock) close() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
