package agenthost

import "log/slog"

// makePrivate does nothing on Windows. A folder's privacy there is its access control list, not mode
// bits (os.Chmod only toggles the read-only attribute), and the default state dir, under the user's
// profile (%LOCALAPPDATA%), inherits an ACL that gives access to the user, SYSTEM and administrators
// only. Reading and rewriting ACLs would need the Windows security API for little gain: the symbolic
// link and not-a-folder checks of ensurePrivateDir still apply.
func makePrivate(path, what string, created bool, log *slog.Logger) error {
	return nil
}
