package codex

// This file is which codex releases hermes-lsp supports: the range, what it makes of the version a
// codex reports in its answer to initialize, and the known problems of the releases in the range.

import (
	"fmt"
	"strconv"
	"strings"
)

// TestedVersion is the codex release hermes-lsp is built and tested against, the newest it
// supports: the one tools/codex/package.json pins (a test keeps the two the same).
const TestedVersion = "0.171.0"

// MinVersion is the oldest codex release hermes-lsp supports: the real-codex tests pass on it (make
// test-compat), and every field hermes-lsp sends is in its schema (codex/schema/<MinVersion>, checked
// by the fake app-server). An older codex is refused; a newer one than TestedVersion is used, with a
// warning.
const MinVersion = "0.159.3"

// NpmPackage is codex's npm package; `npm install -g NpmPackage@TestedVersion` installs the tested
// release.
const NpmPackage = "@openai/codex"

// Version is a codex release number: major.minor.patch and an optional pre-release
// ("0.172.0-alpha.3").
type Version struct {
	Major, Minor, Patch int
	Pre                 string
}

// ParseVersion reads a release number; it reports false for anything else.
func ParseVersion(s string) (Version, bool) {
	core, pre, hasPre := strings.Cut(s, "-")
	if hasPre && pre == "" {
		return Version{}, false
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return Version{}, false
	}
	var n [3]int
	for i, p := range parts {
		if p == "" || len(p) > 9 || strings.TrimLeft(p, "0123456789") != "" {
			return Version{}, false
		}
		n[i], _ = strconv.Atoi(p)
	}
	for _, r := range pre {
		if !(r == '.' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return Version{}, false
		}
	}
	return Version{Major: n[0], Minor: n[1], Patch: n[2], Pre: pre}, true
}

// mustVersion parses one of this package's own release numbers.
func mustVersion(s string) Version {
	v, ok := ParseVersion(s)
	if !ok {
		panic("codex: bad release number " + s)
	}
	return v
}

func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// Compare orders releases as semantic versioning does: by number, and a pre-release before its
// release.
func (v Version) Compare(w Version) int {
	for _, d := range [...]int{v.Major - w.Major, v.Minor - w.Minor, v.Patch - w.Patch} {
		if d != 0 {
			return d
		}
	}
	switch {
	case v.Pre == w.Pre:
		return 0
	case v.Pre == "":
		return 1
	case w.Pre == "":
		return -1
	}
	return comparePre(v.Pre, w.Pre)
}

// comparePre orders two pre-releases field by field: numbers as numbers and before words.
func comparePre(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		an, aErr := strconv.Atoi(as[i])
		bn, bErr := strconv.Atoi(bs[i])
		switch {
		case aErr == nil && bErr == nil:
			if an != bn {
				return an - bn
			}
		case aErr == nil:
			return -1
		case bErr == nil:
			return 1
		default:
			if c := strings.Compare(as[i], bs[i]); c != 0 {
				return c
			}
		}
	}
	return len(as) - len(bs)
}

// VersionFromUserAgent reads codex's release from the userAgent of its answer to initialize, which
// starts with the client's name and codex's version: "hermes-lsp/0.171.0 (Debian 12.0.0; x86_64) ...".
func VersionFromUserAgent(userAgent string) (Version, bool) {
	first, _, _ := strings.Cut(strings.TrimSpace(userAgent), " ")
	i := strings.LastIndexByte(first, '/')
	if i < 0 {
		return Version{}, false
	}
	return ParseVersion(first[i+1:])
}

// How a codex release stands against the supported range (Compat.Support).
const (
	SupportTested    = "tested"    // TestedVersion
	SupportSupported = "supported" // from MinVersion up to TestedVersion
	SupportNewer     = "newer"     // newer than TestedVersion: used, not tested
	SupportTooOld    = "tooOld"    // older than MinVersion: refused
	SupportUnknown   = "unknown"   // codex named no release hermes-lsp can read: used, not tested
)

// Compat is what hermes-lsp makes of a codex release.
type Compat struct {
	// Version is the release, as codex reported it; "" when it named none that hermes-lsp can read.
	Version string
	// Support is one of the Support constants.
	Support string
	// Problems are the known problems of the release (KnownProblems).
	Problems []Problem
}

// CompatOf assesses the release codex reported ("" or unreadable: unknown).
func CompatOf(version string) Compat {
	v, ok := ParseVersion(version)
	if !ok {
		return Compat{Support: SupportUnknown}
	}
	c := Compat{Version: v.String(), Problems: ProblemsOf(v)}
	switch tested := mustVersion(TestedVersion); {
	case v.Compare(mustVersion(MinVersion)) < 0:
		c.Support = SupportTooOld
	case v.Compare(tested) == 0:
		c.Support = SupportTested
	case v.Compare(tested) > 0:
		c.Support = SupportNewer
	default:
		c.Support = SupportSupported
	}
	return c
}

// Inside reports whether the release is in the supported range.
func (c Compat) Inside() bool { return c.Support == SupportTested || c.Support == SupportSupported }

// Refused reports whether hermes-lsp refuses to run the release: it is older than MinVersion.
func (c Compat) Refused() bool { return c.Support == SupportTooOld }

// SupportedRange names the supported releases for people: "0.159.3 to 0.171.0".
func SupportedRange() string { return MinVersion + " to " + TestedVersion }

// Outside says in words how a release outside the supported range stands ("" inside it), without
// what to do: the layers above know the settings that fix it.
func (c Compat) Outside() string {
	switch c.Support {
	case SupportTooOld:
		return fmt.Sprintf("codex %s is older than %s, the oldest release hermes-lsp supports (%s)", c.Version, MinVersion, SupportedRange())
	case SupportNewer:
		return fmt.Sprintf("codex %s is newer than %s, the newest release hermes-lsp is tested with (it supports %s): it may work", c.Version, TestedVersion, SupportedRange())
	case SupportUnknown:
		return fmt.Sprintf("codex did not say which release it is, so hermes-lsp cannot tell whether it supports it (it supports %s)", SupportedRange())
	}
	return ""
}

// Problem is a known way in which some supported releases differ from the tested one, and what
// hermes-lsp does about it.
type Problem struct {
	// ID names the problem for code and tests (a real-codex test that cannot pass on a release with
	// it skips there).
	ID string
	// First and Fixed bound the releases that have it: from First (MinVersion when empty) up to,
	// not including, Fixed.
	First, Fixed string
	// What says what goes wrong; Handling what hermes-lsp does about it, or what to do.
	What, Handling string
}

// Known problems' IDs.
const (
	ProblemThreadFilter        = "thread-list-filter"
	ProblemInterruptUnanswered = "interrupt-unanswered"
	ProblemResponsesFallback   = "responses-fallback"
)

// KnownProblems are the known problems of the supported releases, with the releases that have them
// as found by running the real-codex tests on every release from 0.159.3 to 0.171.0 (make
// test-compat keeps running them on 0.159.3 and 0.167.2, which between them have all three). Doctor
// lists a release's; hermes.status names them.
var KnownProblems = []Problem{
	{
		ID: ProblemThreadFilter, Fixed: "0.171.0",
		What:     "thread/list ignores includedThreadIds",
		Handling: "hermes-lsp never sends it: it pages through the folder's threads and picks by id itself",
	},
	{
		ID: ProblemInterruptUnanswered, Fixed: "0.169.0",
		What:     "turn/interrupt for a turn that has just ended is never answered",
		Handling: fmt.Sprintf("every interrupt waits %v at most; no answer counts as the turn being over", InterruptTimeout),
	},
	{
		ID: ProblemResponsesFallback, First: "0.166.0", Fixed: "0.168.0",
		What:     "a responses fallback provider cannot take over a thread (codex answers modelProviderMismatch)",
		Handling: "turns that run out of quota fail instead of moving to fallbackProviders of kind responses; use a chat fallback, or another codex release",
	},
}

// ProblemsOf returns the known problems of release v.
func ProblemsOf(v Version) []Problem {
	var out []Problem
	for _, p := range KnownProblems {
		first := mustVersion(MinVersion)
		if p.First != "" {
			first = mustVersion(p.First)
		}
		if v.Compare(first) >= 0 && v.Compare(mustVersion(p.Fixed)) < 0 {
			out = append(out, p)
		}
	}
	return out
}

// Has reports whether the release has the known problem id.
func (c Compat) Has(id string) bool {
	for _, p := range c.Problems {
		if p.ID == id {
			return true
		}
	}
	return false
}
