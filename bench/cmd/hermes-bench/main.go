// Command hermes-bench measures hermes-lsp against a bare codex app-server client, against codex-acp,
// under an event flood and at startup, all offline on the fake model, and prints a markdown table
// (docs/benchmarks.md keeps one run). `make bench` builds what it needs and runs it.
//
// With "app-server" as its first argument it is instead a fake codex app-server on stdio that answers
// at once (see bench.ServeFakeCodex): the zero-latency codex of the host-only and flood measurements.
package main

import (
	"context"
	"flag"
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

func main() {
	if len(os.Args) > 1 && os.Args[1] == "app-server" {
		if err := bench.ServeFakeCodex(os.Stdin, os.Stdout, bench.FakeSpecFromEnv()); err != nil {
			fmt.Fprintln(os.Stderr, "fake codex:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(run())
}

func run() int {
	var (
		hermesBin = flag.String("hermes", "bin/hermes-lsp", "the hermes-lsp binary")
		codexBin  = flag.String("codex", os.Getenv("HERMES_CODEX_BIN"), "the pinned codex binary (default $HERMES_CODEX_BIN)")
		acpBin    = flag.String("acp", "bench/acp/node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp", "the codex-acp binary (empty: skip the peer)")
		turns     = flag.Int("turns", 100, "measured turns per client for host overhead and the peer")
		hostTurns = flag.Int("host-turns", 200, "measured turns per client on the zero-latency fake codex")
		inits     = flag.Int("inits", 20, "fresh servers for the initialize time and idle memory")
		firsts    = flag.Int("first-turns", 5, "fresh servers for each kind of first turn")
		deltas    = flag.Int("flood-deltas", 100_000, "answer deltas of the flood turn")
		tools     = flag.Int("flood-tools", 10_000, "tool items of the flood turn")
		out       = flag.String("o", "", "also write the markdown to this file")
		only      = flag.String("only", "", "run only these sections, comma-separated: latency, host, flood, startup, edit (for exploring; the table needs all)")
		editMB    = flag.Int("edit-mb", 50, "the size of the document of the didChange row, in MB")
		edits     = flag.Int("edits", 50, "measured edits of that document")
	)
	flag.Parse()
	log := os.Stderr

	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(log, "hermes-bench:", err)
		return 1
	}
	acp := *acpBin
	if acp != "" {
		if abs, err := filepath.Abs(acp); err == nil {
			acp = abs
		}
		if _, err := os.Stat(acp); err != nil {
			fmt.Fprintf(log, "hermes-bench: codex-acp not found (%v); the peer rows say blocked\n", err)
			acp = ""
		}
	}
	if *codexBin == "" {
		fmt.Fprintln(log, "hermes-bench: no codex binary: run `make tools` and pass -codex (or set HERMES_CODEX_BIN)")
		return 2
	}
	hermes, err := filepath.Abs(*hermesBin)
	if err != nil {
		fmt.Fprintln(log, "hermes-bench:", err)
		return 1
	}
	codexPath, err := filepath.Abs(*codexBin)
	if err != nil {
		fmt.Fprintln(log, "hermes-bench:", err)
		return 1
	}
	env, err := bench.NewEnv(hermes, codexPath, acp, self)
	if err != nil {
		fmt.Fprintln(log, "hermes-bench:", err)
		return 1
	}
	defer env.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	began := time.Now()
	r := &report{env: env, loadStart: loadavg()}

	want := func(section string) bool {
		return *only == "" || slices.Contains(strings.Split(*only, ","), section)
	}
	if want("latency") {
		fmt.Fprintf(log, "hermes-bench: host overhead and peer, %d turns per client on the real codex\n", *turns)
		if r.latency, err = bench.Latency(ctx, env, *turns, log); err != nil {
			fmt.Fprintln(log, "hermes-bench: latency:", err)
			return 1
		}
		if *only != "" {
			for i := range r.latency.Hermes.Total {
				acp := time.Duration(0)
				if i < len(r.latency.ACP.Total) {
					acp = r.latency.ACP.Total[i]
				}
				fmt.Fprintf(log, "  round %d: hermes %v bare %v acp %v\n", i, r.latency.Hermes.Total[i].Round(time.Microsecond), r.latency.Bare.Total[i].Round(time.Microsecond), acp.Round(time.Microsecond))
			}
			fmt.Fprintf(log, "  hermes-lsp RSS after the turns: %d kB, 5 s later %d kB\n", r.latency.HermesIdleRSS, r.latency.HermesRestRSS)
		}
	}
	if want("host") {
		fmt.Fprintf(log, "hermes-bench: host only, %d turns per client on the zero-latency fake codex\n", *hostTurns)
		if r.hostHermes, r.hostBare, err = bench.HostOnly(ctx, env, *hostTurns); err != nil {
			fmt.Fprintln(log, "hermes-bench: host only:", err)
			return 1
		}
		fmt.Fprintf(log, "  turn median hermes %s, bare %s; first update median hermes %s, bare %s\n",
			bench.Ms(r.hostHermes.Total.Median()), bench.Ms(r.hostBare.Total.Median()), bench.Ms(r.hostHermes.First.Median()), bench.Ms(r.hostBare.First.Median()))
	}
	if want("flood") {
		// The flood, a tenth of it (is memory flat?), and its two halves alone (what grows?).
		specs := []bench.FakeSpec{{Deltas: *deltas / 10, Tools: *tools / 10}, {Deltas: *deltas, Tools: *tools}, {Deltas: *deltas}, {Tools: *tools}}
		for _, spec := range specs {
			fmt.Fprintf(log, "hermes-bench: event flood, %d deltas and %d tool items in one turn\n", spec.Deltas, spec.Tools)
			fr, err := bench.Flood(ctx, env, spec)
			if err != nil {
				fmt.Fprintln(log, "hermes-bench: flood:", err)
				return 1
			}
			fmt.Fprintf(log, "  %+v\n", fr)
			r.floods = append(r.floods, fr)
		}
	}
	if want("startup") {
		fmt.Fprintf(log, "hermes-bench: startup, %d initializes and %d first turns of each kind\n", *inits, *firsts)
		if r.startup, err = bench.Startup(ctx, env, *inits, *firsts, log); err != nil {
			fmt.Fprintln(log, "hermes-bench: startup:", err)
			return 1
		}
	}
	if want("edit") {
		fmt.Fprintf(log, "hermes-bench: a one-character didChange of a %d MB document, %d times\n", *editMB, *edits)
		if r.edit, err = bench.LargeEdit(ctx, env, *editMB<<20, *edits); err != nil {
			fmt.Fprintln(log, "hermes-bench: edit:", err)
			return 1
		}
		fmt.Fprintf(log, "  a request behind the edit: median %s, p95 %s; alone: median %s\n",
			bench.Ms(r.edit.AfterEdit.Median()), bench.Ms(r.edit.AfterEdit.P95()), bench.Ms(r.edit.Alone.Median()))
	}
	r.took = time.Since(began)
	if *only != "" {
		return 0 // a partial run makes no table
	}

	md := r.markdown()
	fmt.Print(md)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
			fmt.Fprintln(log, "hermes-bench:", err)
			return 1
		}
	}
	return 0
}

type report struct {
	env                  *bench.Env
	latency              *bench.LatencyResult
	hostHermes, hostBare bench.TurnSamples
	floods               []bench.FloodResult
	startup              *bench.StartupResult
	edit                 *bench.EditResult
	took                 time.Duration
	loadStart            string
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

func (r *report) markdown() string {
	var b strings.Builder
	row := func(n, what, hermes, ref, target, met string) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", n, what, hermes, ref, target, met)
	}
	verdict := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "**no**"
	}
	lat := r.latency
	n := len(lat.Hermes.Total)

	fmt.Fprintf(&b, "Machine: %s. Run: %s, %s; load average %s at the start, %s at the end.\n\n", machine(),
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), r.took.Round(time.Second), r.loadStart, loadavg())
	fmt.Fprintf(&b, "Versions: %s; codex %s (pinned); codex-acp %s.\n\n", version(r.env.Hermes, "--version"), version(r.env.Codex, "--version"), acpVersion(r.env.ACP))
	b.WriteString("| # | Measure | hermes-lsp | Reference | Target | Met |\n|---|---|---|---|---|---|\n")

	// 1. Host overhead.
	hm, bm := lat.Hermes.Total.Median(), lat.Bare.Total.Median()
	hp, bp := lat.Hermes.Total.P95(), lat.Bare.Total.P95()
	ratio := float64(hm) / float64(bm)
	row("1", fmt.Sprintf("Turn latency, median (real codex, fake model, %d turns each)", n), bench.Ms(hm), "bare client "+bench.Ms(bm), "", "")
	row("1", "Turn latency, p95", bench.Ms(hp), "bare client "+bench.Ms(bp), "", "")
	row("1", "Ratio of medians", fmt.Sprintf("%.3f", ratio), "", "≤ 1.05", verdict(ratio <= 1.05))
	row("1", "Added latency at p50 / p95", bench.SignedMs(hm-bm)+" / "+bench.SignedMs(hp-bp), "", "< 2 ms at p50", verdict(hm-bm < 2*time.Millisecond))
	paired := make(bench.Samples, n)
	for i := range n {
		paired[i] = lat.Hermes.Total[i] - lat.Bare.Total[i]
	}
	row("1", "Median of the per-round differences (hermes-lsp − bare, same round)", bench.SignedMs(paired.Median()), "", "", "")
	row("1", "Time to first answer update, median", bench.Ms(lat.Hermes.First.Median()), "bare client "+bench.Ms(lat.Bare.First.Median()), "", "")
	hh, hb := r.hostHermes.Total, r.hostBare.Total
	row("1", fmt.Sprintf("Host only: turn on a zero-latency fake codex, median / p95 (%d turns each)", len(hh)),
		bench.Ms(hh.Median())+" / "+bench.Ms(hh.P95()), "bare client "+bench.Ms(hb.Median())+" / "+bench.Ms(hb.P95()),
		"", "added "+bench.SignedMs(hh.Median()-hb.Median()))
	row("1", "Host only: time to first answer update, median", bench.Ms(r.hostHermes.First.Median()), "bare client "+bench.Ms(r.hostBare.First.Median()),
		"", "added "+bench.SignedMs(r.hostHermes.First.Median()-r.hostBare.First.Median()))

	// 2. Peer.
	if lat.ACPError != "" || len(lat.ACP.Total) == 0 {
		reason := lat.ACPError
		if reason == "" {
			reason = "no turns"
		}
		row("2", "Time to first answer update; turn latency", "—", "codex-acp blocked: "+reason, "hermes-lsp no slower", "—")
	} else {
		hf, af := lat.Hermes.First.Median(), lat.ACP.First.Median()
		row("2", "Time to first answer update, median", bench.Ms(hf), "codex-acp "+bench.Ms(af), "no slower", verdict(hf <= af))
		row("2", "Time to first answer update, p95", bench.Ms(lat.Hermes.First.P95()), "codex-acp "+bench.Ms(lat.ACP.First.P95()), "", "")
		am, ap := lat.ACP.Total.Median(), lat.ACP.Total.P95()
		row("2", "Turn latency, median", bench.Ms(hm), "codex-acp "+bench.Ms(am), "no slower", verdict(hm <= am))
		row("2", "Turn latency, p95", bench.Ms(hp), "codex-acp "+bench.Ms(ap), "", "")
	}
	st := r.startup
	if st.ACPError == "" && len(st.ACPFirst) > 0 {
		row("2", "First turn of a fresh process (after initialize), median: without / with prewarm", bench.Ms(st.FirstCold.Median())+" / "+bench.Ms(st.FirstPrewarmed.Median()),
			"codex-acp "+bench.Ms(st.ACPFirst.Median())+" (session/new + prompt; its codex runs in-process from the start)", "", "")
		row("2", "Process start to initialize reply, median", bench.Ms(st.SpawnToInit.Median()), "codex-acp "+bench.Ms(st.ACPInitialize.Median()), "", "")
	}

	// 3. Flood.
	if len(r.floods) == 4 {
		small, big, deltasOnly, toolsOnly := r.floods[0], r.floods[1], r.floods[2], r.floods[3]
		label := func(f bench.FloodResult) string {
			return fmt.Sprintf("%dk deltas + %dk tools", f.Spec.Deltas/1000, f.Spec.Tools/1000)
		}
		row("3", "Flood turn ("+label(big)+"), ask to progress end", fmt.Sprintf("%.2f s", big.Turn.Seconds()),
			fmt.Sprintf("%s: %.2f s", label(small), small.Turn.Seconds()), "", "")
		rate := float64(big.Progress) / big.Turn.Seconds()
		row("3", "Progress messages the editor receives per second: most in any second / mean",
			fmt.Sprintf("%d / %.1f", big.MaxProgressPerSec, rate), fmt.Sprintf("%s: %d / %.1f", label(small), small.MaxProgressPerSec, float64(small.Progress)/small.Turn.Seconds()),
			"≤ 20 / s", verdict(big.MaxProgressPerSec <= 20 && small.MaxProgressPerSec <= 20))
		row("3", "All messages the editor receives during the turn (per second)",
			fmt.Sprintf("%d (%.1f / s)", big.EditorMsgs, float64(big.EditorMsgs)/big.Turn.Seconds()),
			fmt.Sprintf("%s: %d", label(small), small.EditorMsgs), "", "")
		events := big.Spec.Deltas + 4*big.Spec.Tools + 6
		row("3", "Host CPU time for the turn (codex excluded)", fmt.Sprintf("%.2f s (%.1f µs per codex event)", big.CPU.Seconds(), float64(big.CPU.Microseconds())/float64(events)),
			fmt.Sprintf("%s: %.2f s", label(small), small.CPU.Seconds()), "", "")
		flat := big.RSSPeak <= small.RSSPeak+small.RSSPeak/4+8*1024 // within 25 % + 8 MiB for 10x the events
		row("3", "Host RSS: idle → peak during the turn (kernel high-water mark)",
			fmt.Sprintf("%s → %s (%s)", bench.MiB(big.RSSIdle), bench.MiB(big.RSSPeak), bench.MiB(big.HWM)),
			fmt.Sprintf("%s: %s → %s", label(small), bench.MiB(small.RSSIdle), bench.MiB(small.RSSPeak)),
			"flat: 10x the events, peak within 25 % + 8 MiB", verdict(flat))
		row("3", "… the deltas alone / the tools alone: idle → peak", fmt.Sprintf("%s: %s → %s", label(deltasOnly), bench.MiB(deltasOnly.RSSIdle), bench.MiB(deltasOnly.RSSPeak)),
			fmt.Sprintf("%s: %s → %s", label(toolsOnly), bench.MiB(toolsOnly.RSSIdle), bench.MiB(toolsOnly.RSSPeak)), "", "")
	}

	// 4. Startup.
	row("4", fmt.Sprintf("initialize reply, median / p95 (%d fresh servers, timed once each is up)", len(st.Initialize)),
		bench.Ms(st.Initialize.Median())+" / "+bench.Ms(st.Initialize.P95()), "process start to serving "+bench.Ms(st.Spawn.Median()),
		"< 10 ms", verdict(st.Initialize.Median() < 10*time.Millisecond))
	warm := lat.Hermes.Total.Median()
	pw := st.FirstPrewarmed.Median()
	row("4", fmt.Sprintf("First turn with prewarm, median (%d fresh servers)", len(st.FirstPrewarmed)), bench.Ms(pw),
		fmt.Sprintf("%.2fx a warm turn (%s)", float64(pw)/float64(warm), bench.Ms(warm)), "≤ 1.2x a warm turn", verdict(float64(pw) <= 1.2*float64(warm)))
	row("4", "… codex's own first turn on a started codex (bare client: thread/start + turn)", "", bench.Ms(st.BareWarm.Median())+
		fmt.Sprintf(" (%.2fx its warm turn)", float64(st.BareWarm.Median())/float64(lat.Bare.Total.Median())), "", "")
	row("4", fmt.Sprintf("First turn without prewarm, median (%d fresh servers)", len(st.FirstCold)), bench.Ms(st.FirstCold.Median()),
		fmt.Sprintf("%.2fx a warm turn; bare client from process start: %s", float64(st.FirstCold.Median())/float64(warm), bench.Ms(st.BareCold.Median())), "", "")
	idle := medianKB(st.IdleRSS)
	row("4", "Idle RSS of hermes-lsp after initialize (codex not counted)", bench.MiB(idle), "", "≤ 20 MB", verdict(idle*1024 <= 20_000_000))
	row("4", fmt.Sprintf("Idle RSS of hermes-lsp after %d turns: 0.5 s / 5.5 s after the last (codex not counted)", n+warmupTurns),
		bench.MiB(lat.HermesIdleRSS)+" / "+bench.MiB(lat.HermesRestRSS), "", "≤ 20 MB", verdict(lat.HermesRestRSS*1024 <= 20_000_000))

	// 5. Documents.
	if e := r.edit; e != nil {
		added := e.AfterEdit.Median() - e.Alone.Median()
		row("5", fmt.Sprintf("didChange of one character on a %d MB document: a request right behind it, median (%d edits)", e.Size>>20, len(e.AfterEdit)),
			bench.Ms(e.AfterEdit.Median()), "the request alone "+bench.Ms(e.Alone.Median()), "≤ 1 ms added", verdict(added <= time.Millisecond))
	}
	return b.String()
}

const warmupTurns = 3

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

func version(bin string, flag string) string {
	out, err := exec.Command(bin, flag).Output()
	if err != nil {
		return filepath.Base(bin) + " (version unknown)"
	}
	return strings.TrimSpace(string(out))
}

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
