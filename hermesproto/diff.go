package hermesproto

import (
	"fmt"
	"strings"
)

// Diff renders a patch approval's changes as one unified diff, for a person to read: each file's
// header, then its diff (an added file's content as + lines, a deleted one's as - lines).
func (a Approval) Diff() string {
	var b strings.Builder
	for _, c := range a.Changes {
		fmt.Fprintf(&b, "--- %s\n+++ %s (%s)\n", c.Path, c.Path, c.Kind.Type)
		diff := c.Diff
		if c.Kind.Type == "add" && !strings.HasPrefix(diff, "@@") {
			diff = prefixLines(diff, "+")
		} else if c.Kind.Type == "delete" && !strings.HasPrefix(diff, "@@") {
			diff = prefixLines(diff, "-")
		}
		b.WriteString(diff)
		if !strings.HasSuffix(diff, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func prefixLines(s, prefix string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}
