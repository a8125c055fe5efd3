package main

// This file makes the markdown table of a run: the rows of docs/benchmarks.md.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/bench"
)

type report struct {
	env       *bench.Env
	runs      []pass
	folders   int                   // of the parallel row
	floods    [][]bench.FloodResult // per run: the tenth, the flood, the deltas alone, the tools alone
	startup   *bench.StartupResult
	edit      *bench.EditResult
	took      time.Duration
	loadStart string
}

// pass is one of the repeated latency comparisons.
type pass struct {
	latency            *bench.LatencyResult
	host               *bench.HostResult
	parHermes, parBare bench.Samples
	parCPU             time.Duration // hermes-lsp's CPU time per turn of the parallel row
	parEditorCPU       time.Duration // the measuring editor's CPU time per turn of that row
	parClientCPU       time.Duration // the bare clients' CPU time per turn of that row
}

// spread is a measure taken once per run: its median and range.
type spread []time.Duration

func (s spread) median() time.Duration { return bench.Samples(s).Median() }

// ms formats the median and, over several runs, the range: "1.23 ms (1.10–1.40)".
func (s spread) ms() string { return s.format(bench.Ms, "%.2f") }

// signedMs is ms for differences.
func (s spread) signedMs() string { return s.format(bench.SignedMs, "%+.2f") }

func (s spread) format(one func(time.Duration) string, num string) string {
	out := one(s.median())
	if len(s) > 1 {
		lo, hi := slices.Min(s), slices.Max(s)
		out += fmt.Sprintf(" ("+num+"–"+num+")", float64(lo)/float64(time.Millisecond), float64(hi)/float64(time.Millisecond))
	}
	return out
}

// over takes a measure of every run.
func (r *report) over(f func(pass) time.Duration) spread {
	s := make(spread, len(r.runs))
	for i, rn := range r.runs {
		s[i] = f(rn)
	}
	return s
}

// ratio formats a ratio of two measures per run: the median and range.
func (r *report) ratio(f func(pass) float64) (string, float64) {
	v := make([]float64, len(r.runs))
	for i, rn := range r.runs {
		v[i] = f(rn)
	}
	sorted := slices.Sorted(slices.Values(v))
	med := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		med = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	if len(v) == 1 {
		return fmt.Sprintf("%.3f", med), med
	}
	return fmt.Sprintf("%.3f (%.3f–%.3f)", med, sorted[0], sorted[len(sorted)-1]), med
}

func verdict(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

func (r *report) markdown() string {
	var b strings.Builder
	row := func(n, what, hermes, ref, target, met string) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", n, what, hermes, ref, target, met)
	}
	first := r.runs[0]
	n := len(first.latency.Hermes.Total)

	fmt.Fprintf(&b, "Machine: %s. Run: %s, %s; load average %s at the start, %s at the end.\n\n", machine(),
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), r.took.Round(time.Second), r.loadStart, loadavg())
	fmt.Fprintf(&b, "Versions: %s; codex %s (pinned); codex-acp %s.\n\n", version(r.env.Hermes, "--version"), version(r.env.Codex, "--version"), acpVersion(r.env.ACP))
	fmt.Fprintf(&b, "Rows marked (min–max) ran %d times, interleaved: the value is the median of the runs' medians, the range is theirs.\n\n", len(r.runs))
	b.WriteString("| # | Measure | hermes-lsp | Reference | Target | Met |\n|---|---|---|---|---|---|\n")

	// 1. Host overhead.
	hm := r.over(func(rn pass) time.Duration { return rn.latency.Hermes.Total.Median() })
	bm := r.over(func(rn pass) time.Duration { return rn.latency.Bare.Total.Median() })
	hp := r.over(func(rn pass) time.Duration { return rn.latency.Hermes.Total.P95() })
	bp := r.over(func(rn pass) time.Duration { return rn.latency.Bare.Total.P95() })
	row("1", fmt.Sprintf("Turn latency, median (real codex, fake model, %d turns each per run)", n), hm.ms(), "bare client "+bm.ms(), "", "")
	row("1", "Turn latency, p95", hp.ms(), "bare client "+bp.ms(), "", "")
	ratio, med := r.ratio(func(rn pass) float64 {
		return float64(rn.latency.Hermes.Total.Median()) / float64(rn.latency.Bare.Total.Median())
	})
	row("1", "Ratio of medians", ratio, "", "≤ 1.05", verdict(med <= 1.05))
	added := r.over(func(rn pass) time.Duration { return rn.latency.Hermes.Total.Median() - rn.latency.Bare.Total.Median() })
	row("1", "Added latency at p50", added.signedMs(), "", "< 2 ms", verdict(added.median() < 2*time.Millisecond))
	paired := r.over(func(rn pass) time.Duration {
		d := make(bench.Samples, len(rn.latency.Hermes.Total))
		for i := range d {
			d[i] = rn.latency.Hermes.Total[i] - rn.latency.Bare.Total[i]
		}
		return d.Median()
	})
	row("1", "Median of the per-round differences (hermes-lsp − bare, same round)", paired.signedMs(), "", "", "")
	row("1", "Time to first answer update, median", r.over(func(rn pass) time.Duration { return rn.latency.Hermes.First.Median() }).ms(),
		"bare client "+r.over(func(rn pass) time.Duration { return rn.latency.Bare.First.Median() }).ms(), "", "")
	hh := r.over(func(rn pass) time.Duration { return rn.host.Hermes.Total.Median() })
	hb := r.over(func(rn pass) time.Duration { return rn.host.Bare.Total.Median() })
	row("1", fmt.Sprintf("Host only: turn on a zero-latency fake codex, median (%d turns each per run)", len(first.host.Hermes.Total)), hh.ms(), "bare client "+hb.ms(), "", "")
	hostAdded := r.over(func(rn pass) time.Duration { return rn.host.Hermes.Total.Median() - rn.host.Bare.Total.Median() })
	row("1", "Host only: added turn latency, median", hostAdded.signedMs(), "", "≤ +1.0 ms", verdict(hostAdded.median() <= time.Millisecond))
	firstAdded := r.over(func(rn pass) time.Duration { return rn.host.Hermes.First.Median() - rn.host.Bare.First.Median() })
	row("1", "Host only: added time to first answer update, median (the server creates the progress token, as for VS Code)", firstAdded.signedMs(),
		"hermes-lsp "+r.over(func(rn pass) time.Duration { return rn.host.Hermes.First.Median() }).ms()+", bare client "+r.over(func(rn pass) time.Duration { return rn.host.Bare.First.Median() }).ms(),
		"≤ +0.5 ms", verdict(firstAdded.median() <= time.Millisecond/2))
	tokenAdded := r.over(func(rn pass) time.Duration { return rn.host.HermesToken.First.Median() - rn.host.Bare.First.Median() })
	row("1", "… with the editor's own token (workDoneToken: no create round trip): added time to first update / added turn latency",
		tokenAdded.signedMs()+" / "+r.over(func(rn pass) time.Duration { return rn.host.HermesToken.Total.Median() - rn.host.Bare.Total.Median() }).signedMs(),
		"", "", "")
	row("1", "… an LSP round trip on the same pipes (a request the server answers at once), median", r.over(func(rn pass) time.Duration { return rn.host.RoundTrip.Median() }).ms(),
		"", "", "")
	if len(first.parHermes) > 0 {
		ph := r.over(func(rn pass) time.Duration { return rn.parHermes.Median() })
		pb := r.over(func(rn pass) time.Duration { return rn.parBare.Median() })
		parAdded := r.over(func(rn pass) time.Duration { return rn.parHermes.Median() - rn.parBare.Median() })
		row("1", fmt.Sprintf("Parallel folders: a turn in each of %d folders at once (zero-latency fake codex), median per turn (%d turns each per run)", r.folders, len(first.parHermes)),
			ph.ms(), fmt.Sprintf("%d bare clients at once %s", r.folders, pb.ms()), "", "")
		row("1", "Parallel folders: added latency per turn, median", parAdded.signedMs(),
			"hermes-lsp's CPU time per turn "+r.over(func(rn pass) time.Duration { return rn.parCPU }).ms()+
				"; the measuring editor's "+r.over(func(rn pass) time.Duration { return rn.parEditorCPU }).ms()+
				"; the bare clients' "+r.over(func(rn pass) time.Duration { return rn.parClientCPU }).ms(), "≤ +2 ms", verdict(parAdded.median() <= 2*time.Millisecond))
	}

	r.peerRows(row)
	r.floodRows(row)
	r.startupRows(row, hm.median(), bm.median())

	// 5. Documents.
	if e := r.edit; e != nil {
		added := e.AfterEdit.Median() - e.Alone.Median()
		row("5", fmt.Sprintf("didChange of one character on a %d MB document: a request right behind it, median (%d edits)", e.Size>>20, len(e.AfterEdit)),
			bench.Ms(e.AfterEdit.Median()), "the request alone "+bench.Ms(e.Alone.Median()), "≤ 1 ms added", verdict(added <= time.Millisecond))
	}
	return b.String()
}

// loadavg is the 1-minute load average: other work on the machine shows in the real-codex rows.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// warmupTurns are the turns each client runs before those measured (bench's warmup).
const warmupTurns = 3

// medianKB is the median of sizes in kB.
func medianKB(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	s := make(bench.Samples, len(v))
	for i, x := range v {
		s[i] = time.Duration(x)
	}
	return int64(s.Median())
}

// machine names the CPUs, the kernel and Go.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = ", Linux " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%d CPUs (nproc), %s%s, %s", runtime.NumCPU(), model, kernel, runtime.Version())
}

// version is what bin prints for flag.
func version(bin string, flag string) string {
	out, err := exec.Command(bin, flag).Output()
	if err != nil {
		return filepath.Base(bin) + " (version unknown)"
	}
	return strings.TrimSpace(string(out))
}

// acpVersion is the version of the codex-acp package bin belongs to.
func acpVersion(bin string) string {
	if bin == "" {
		return "not installed"
	}
	// bin is .../node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp; the version is in
	// that package's package.json.
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(bin)), "package.json"))
	if err != nil {
		return "unknown"
	}
	if _, rest, ok := strings.Cut(string(b), `"version"`); ok {
		if _, v, ok := strings.Cut(rest, `"`); ok {
			if v, _, ok := strings.Cut(v, `"`); ok {
				return v
			}
		}
	}
	return "unknown"
}
