package codex_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

func TestParseAndCompareVersions(t *testing.T) {
	for _, bad := range []string{"", "0.171", "0.171.0.1", "v0.171.0", "0.171.x", "0.171.0-", "0.171.0-a b", "-1.0.0", "0.1234567890.0"} {
		if v, ok := codex.ParseVersion(bad); ok {
			t.Errorf("ParseVersion(%q) = %v, want none", bad, v)
		}
	}
	// In order, oldest first.
	ordered := []string{"0.9.9", "0.159.3", "0.160.0", "0.162.0-alpha.2", "0.162.0-alpha.15", "0.162.0-beta", "0.162.0", "0.171.0", "1.0.0"}
	for i, a := range ordered {
		va, ok := codex.ParseVersion(a)
		if !ok || va.String() != a {
			t.Fatalf("ParseVersion(%q) = %v, %v", a, va, ok)
		}
		for j, b := range ordered {
			vb, _ := codex.ParseVersion(b)
			if got, want := sign(va.Compare(vb)), sign(i-j); got != want {
				t.Errorf("%s vs %s: %d, want %d", a, b, got, want)
			}
		}
	}
}

func sign(n int) int { return min(max(n, -1), 1) }

func TestVersionFromUserAgent(t *testing.T) {
	for ua, want := range map[string]string{
		"hermes-lsp/0.171.0 (Debian 12.0.0; x86_64) xterm (hermes-lsp; dev)": "0.171.0",
		"hermes-lsp/0.159.3 (Mac OS 15.1; arm64) (hermes-lsp; 1.2.0)":        "0.159.3",
		"some/client/0.172.0-alpha.1 (x)":                                    "0.172.0-alpha.1",
		"codex_cli_rs 0.171.0":                                               "",
		"":                                                                   "",
	} {
		v, ok := codex.VersionFromUserAgent(ua)
		if got := v.String(); ok != (want != "") || ok && got != want {
			t.Errorf("%q: %q, %v; want %q", ua, got, ok, want)
		}
	}
}

// TestCompatOf: each release's standing and known problems, as the table says and make
// test-compat found them.
func TestCompatOf(t *testing.T) {
	const (
		filter    = codex.ProblemThreadFilter
		interrupt = codex.ProblemInterruptUnanswered
		fallback  = codex.ProblemResponsesFallback
	)
	for _, c := range []struct {
		version  string
		support  string
		problems []string
	}{
		{"0.158.0", codex.SupportTooOld, nil},
		{"0.159.3-alpha.1", codex.SupportTooOld, nil},
		{"0.159.3", codex.SupportSupported, []string{filter, interrupt}},
		{"0.165.0", codex.SupportSupported, []string{filter, interrupt}},
		{"0.166.0", codex.SupportSupported, []string{filter, interrupt, fallback}},
		{"0.167.2", codex.SupportSupported, []string{filter, interrupt, fallback}},
		{"0.168.0", codex.SupportSupported, []string{filter, interrupt}},
		{"0.169.1", codex.SupportSupported, []string{filter}},
		{"0.171.0-alpha.2", codex.SupportSupported, []string{filter}},
		{"0.171.0", codex.SupportTested, nil},
		{"0.172.0", codex.SupportNewer, nil},
		{"", codex.SupportUnknown, nil},
		{"latest", codex.SupportUnknown, nil},
	} {
		got := codex.CompatOf(c.version)
		var ids []string
		for _, p := range got.Problems {
			ids = append(ids, p.ID)
		}
		if got.Support != c.support || !slices.Equal(ids, c.problems) {
			t.Errorf("%q: %s %v, want %s %v", c.version, got.Support, ids, c.support, c.problems)
		}
		if inside := c.support == codex.SupportTested || c.support == codex.SupportSupported; got.Inside() != inside || (got.Outside() == "") != inside {
			t.Errorf("%q: Inside %v, Outside %q", c.version, got.Inside(), got.Outside())
		}
		if got.Refused() != (c.support == codex.SupportTooOld) {
			t.Errorf("%q: Refused %v", c.version, got.Refused())
		}
	}
	if codex.CompatOf(codex.MinVersion).Support != codex.SupportSupported {
		t.Error("MinVersion is not in the range")
	}
}

// TestClientRefusesTooOldCodex: a codex older than MinVersion is refused at the start with a
// *TooOldError; the client's Compat says what it makes of any other.
func TestClientRefusesTooOldCodex(t *testing.T) {
	f := codextest.NewFake(t)
	f.SetVersion("0.100.0")
	_, err := f.Start(t.Context(), codex.Options{})
	var tooOld *codex.TooOldError
	if !errors.As(err, &tooOld) || tooOld.Compat.Version != "0.100.0" {
		t.Fatalf("start on codex 0.100.0: %v", err)
	}
	f.SetVersion("")
	c, err := f.Start(t.Context(), codex.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Compat(); got.Support != codex.SupportTested || got.Version != codex.TestedVersion {
		t.Errorf("Compat of the fake: %+v", got)
	}
}

// TestInterruptTurnTimesOut: an interrupt codex never answers ends after the client's interrupt
// timeout with ErrInterruptUnanswered; the caller's own deadline is its error, not that.
func TestInterruptTurnTimesOut(t *testing.T) {
	f := codextest.NewFake(t)
	f.IgnoreInterrupts()
	c, err := f.Start(t.Context(), codex.Options{InterruptTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.InterruptTurn(t.Context(), "thread-1", "turn-1"); !errors.Is(err, codex.ErrInterruptUnanswered) {
		t.Errorf("unanswered interrupt: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.InterruptTurn(ctx, "thread-1", "turn-1"); !errors.Is(err, context.Canceled) || errors.Is(err, codex.ErrInterruptUnanswered) {
		t.Errorf("interrupt with the caller's context done: %v", err)
	}
}
