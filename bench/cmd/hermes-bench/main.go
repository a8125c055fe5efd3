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
	"path/filepath"
	"runtime/pprof"
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
		only      = flag.String("only", "", "run only these sections, comma-separated: latency, host, parallel, flood, startup, edit (for exploring; the table needs all)")
		editMB    = flag.Int("edit-mb", 50, "the size of the document of the didChange row, in MB")
		runs      = flag.Int("runs", 3, "times the latency comparisons (real codex, host only, parallel folders) run; the table gives their median and range")
		folders   = flag.Int("folders", 10, "folders (and bare clients) of the parallel row")
		parRounds = flag.Int("parallel-rounds", 20, "rounds of the parallel row, each a turn in every folder at once")
		edits     = flag.Int("edits", 50, "measured edits of that document")
		cpuProf   = flag.String("cpuprofile", "", "write this program's CPU profile (the measuring editor's, the bare clients') to `FILE`")
	)
	flag.Parse()
	log := os.Stderr
	if *cpuProf != "" {
		f, err := os.Create(*cpuProf)
		if err != nil {
			fmt.Fprintln(log, "hermes-bench:", err)
			return 2
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(log, "hermes-bench:", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}

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

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	began := time.Now()
	r := &report{env: env, loadStart: loadavg(), folders: *folders}

	want := func(section string) bool {
		return *only == "" || slices.Contains(strings.Split(*only, ","), section)
	}
	for i := range *runs {
		var rn pass
		if want("latency") {
			fmt.Fprintf(log, "hermes-bench: run %d/%d: host overhead and peer, %d turns per client on the real codex\n", i+1, *runs, *turns)
			if rn.latency, err = bench.Latency(ctx, env, *turns, log); err != nil {
				fmt.Fprintln(log, "hermes-bench: latency:", err)
				return 1
			}
			fmt.Fprintf(log, "  turn median hermes %s, bare %s; RSS after the turns %d kB, 5 s later %d kB\n",
				bench.Ms(rn.latency.Hermes.Total.Median()), bench.Ms(rn.latency.Bare.Total.Median()), rn.latency.HermesIdleRSS, rn.latency.HermesRestRSS)
		}
		if want("host") {
			fmt.Fprintf(log, "hermes-bench: run %d/%d: host only, %d turns per client on the zero-latency fake codex\n", i+1, *runs, *hostTurns)
			if rn.host, err = bench.HostOnly(ctx, env, *hostTurns); err != nil {
				fmt.Fprintln(log, "hermes-bench: host only:", err)
				return 1
			}
			fmt.Fprintf(log, "  turn median hermes %s (own token %s), bare %s; first update median hermes %s (own token %s), bare %s; LSP round trip %s\n",
				bench.Ms(rn.host.Hermes.Total.Median()), bench.Ms(rn.host.HermesToken.Total.Median()), bench.Ms(rn.host.Bare.Total.Median()),
				bench.Ms(rn.host.Hermes.First.Median()), bench.Ms(rn.host.HermesToken.First.Median()), bench.Ms(rn.host.Bare.First.Median()), bench.Ms(rn.host.RoundTrip.Median()))
		}
		if want("parallel") {
			fmt.Fprintf(log, "hermes-bench: run %d/%d: %d folders at once, %d rounds, on the zero-latency fake codex\n", i+1, *runs, *folders, *parRounds)
			par, err := bench.Parallel(ctx, env, *folders, *parRounds)
			if err != nil {
				fmt.Fprintln(log, "hermes-bench: parallel:", err)
				return 1
			}
			rn.parHermes, rn.parBare, rn.parCPU, rn.parEditorCPU, rn.parClientCPU = par.Hermes, par.Bare, par.HermesCPU, par.EditorCPU, par.ClientCPU
			fmt.Fprintf(log, "  turn median hermes %s, bare %s; hermes-lsp CPU per turn %s, the editor's %s, the bare clients' %s\n",
				bench.Ms(rn.parHermes.Median()), bench.Ms(rn.parBare.Median()), bench.Ms(rn.parCPU), bench.Ms(rn.parEditorCPU), bench.Ms(rn.parClientCPU))
		}
		r.runs = append(r.runs, rn)
	}
	if want("flood") {
		// The flood, a tenth of it (is memory flat?), and its two halves alone (what grows?), each as
		// many times as the latency runs: the rows give the median.
		specs := []bench.FakeSpec{{Deltas: *deltas / 10, Tools: *tools / 10}, {Deltas: *deltas, Tools: *tools}, {Deltas: *deltas}, {Tools: *tools}}
		for range *runs {
			var floods []bench.FloodResult
			for _, spec := range specs {
				fmt.Fprintf(log, "hermes-bench: event flood, %d deltas and %d tool items in one turn\n", spec.Deltas, spec.Tools)
				fr, err := bench.Flood(ctx, env, spec)
				if err != nil {
					fmt.Fprintln(log, "hermes-bench: flood:", err)
					return 1
				}
				fmt.Fprintf(log, "  %+v\n", fr)
				floods = append(floods, fr)
			}
			r.floods = append(r.floods, floods)
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
