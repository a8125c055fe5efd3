package hermesproto

import "go.lsp.dev/protocol"

// ChangesArgs are hermes.changes' arguments: URI, a file (its changes) or a folder (the changes of
// its files); empty: every change of every folder.
type ChangesArgs struct {
	URI string `json:"uri,omitempty"`
}

// ChangesResult is hermes.changes' answer: the changes under review, by file and line.
type ChangesResult struct {
	Changes []ChangeInfo `json:"changes"`
}

// ChangeInfo is one change under review: a hunk of an agent's patch, where it is now (its lines
// follow the user's edits; an empty range at a line's start for lines the patch deleted), the turn
// that made it, and how many lines it added and removed. Old is the text it replaced, for an
// editor to show (control characters removed; at most 8 KiB, a longer one cut and ending in "…";
// absent when the change only added lines).
type ChangeInfo struct {
	ChangeID string         `json:"changeId"`
	URI      string         `json:"uri"`
	Range    protocol.Range `json:"range"`
	TurnID   string         `json:"turnId"`
	Added    int            `json:"added"`
	Removed  int            `json:"removed"`
	Old      string         `json:"old,omitempty"`
}

// ChangeRef names a change under review: its diagnostic's data.
type ChangeRef struct {
	ChangeID string `json:"changeId"`
}

// KeepChangeArgs are hermes.keepChange's arguments: ChangeID, the change kept; without it, every
// change of the folder of URI.
type KeepChangeArgs struct {
	ChangeID string `json:"changeId,omitempty"`
	URI      string `json:"uri,omitempty"`
}

// KeepChangeResult is hermes.keepChange's answer: how many changes were kept (their marks and
// diagnostics gone).
type KeepChangeResult struct {
	Kept int `json:"kept"`
}

// RevertChangeArgs are hermes.revertChange's arguments: ChangeID, the change reverted; without
// it, every change of the file at URI. Force reverts a change whose lines the user edited since.
type RevertChangeArgs struct {
	ChangeID string `json:"changeId,omitempty"`
	URI      string `json:"uri,omitempty"`
	Force    bool   `json:"force,omitempty"`
}

// RevertChangeResult is hermes.revertChange's answer: the changes reverted, and those left, with
// why.
type RevertChangeResult struct {
	Reverted []string        `json:"reverted"`
	Skipped  []SkippedChange `json:"skipped"`
}

// SkippedChange is a change hermes.revertChange did not revert, and why.
type SkippedChange struct {
	ChangeID string `json:"changeId"`
	Reason   string `json:"reason"`
}
