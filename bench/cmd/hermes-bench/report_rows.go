package main

// This file makes the table's rows of sections 2 to 4: the peer, the flood and startup.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/bench"
)

type rowFunc func(n, what, hermes, ref, target, met string)

// peerRows compares hermes-lsp with codex-acp on the same turns (section 2).
func (r *report) peerRows(row rowFunc) {
	for _, rn := range r.runs {
		if lat := rn.latency; lat.ACPError != "" || len(lat.ACP.Total) == 0 {
			reason := lat.ACPError
			if reason == "" {
				reason = "no turns"
			}
			row("2", "Time to first answer update; turn latency", "—", "codex-acp blocked: "+reason, "hermes-lsp no slower", "—")
			return
		}
	}
	hf := r.over(func(rn pass) time.Duration { return rn.latency.Hermes.First.Median() })
	af := r.over(func(rn pass) time.Duration { return rn.latency.ACP.First.Median() })
	row("2", "Time to first answer update, median", hf.ms(), "codex-acp "+af.ms(), "no slower", verdict(hf.median() <= af.median()))
	row("2", "Time to first answer update, p95", r.over(func(rn pass) time.Duration { return rn.latency.Hermes.First.P95() }).ms(),
		"codex-acp "+r.over(func(rn pass) time.Duration { return rn.latency.ACP.First.P95() }).ms(), "", "")
	hm := r.over(func(rn pass) time.Duration { return rn.latency.Hermes.Total.Median() })
	am := r.over(func(rn pass) time.Duration { return rn.latency.ACP.Total.Median() })
	row("2", "Turn latency, median", hm.ms(), "codex-acp "+am.ms(), "no slower", verdict(hm.median() <= am.median()))
	row("2", "Turn latency, p95", r.over(func(rn pass) time.Duration { return rn.latency.Hermes.Total.P95() }).ms(),
		"codex-acp "+r.over(func(rn pass) time.Duration { return rn.latency.ACP.Total.P95() }).ms(), "", "")
	if st := r.startup; st != nil && st.ACPError == "" && len(st.ACPFirst) > 0 {
		row("2", "First turn of a fresh process (after initialize), median: without / with prewarm", bench.Ms(st.FirstCold.Median())+" / "+bench.Ms(st.FirstPrewarmed.Median()),
			"codex-acp "+bench.Ms(st.ACPFirst.Median())+" (session/new + prompt; its codex runs in-process from the start)", "", "")
		row("2", "Process start to initialize reply, median", bench.Ms(st.SpawnToInit.Median()), "codex-acp "+bench.Ms(st.ACPInitialize.Median()), "", "")
	}
}

// floodRows are the event flood (section 3).
func (r *report) floodRows(row rowFunc) {
	if len(r.floods) == 0 || len(r.floods[0]) != 4 {
		return
	}
	// Each kind of flood ran once per run: the run whose value is the median, per measure.
	median := func(kind int, by func(bench.FloodResult) int64) bench.FloodResult {
		runs := make([]bench.FloodResult, len(r.floods))
		for i, f := range r.floods {
			runs[i] = f[kind]
		}
		slices.SortFunc(runs, func(a, b bench.FloodResult) int { return cmp.Compare(by(a), by(b)) })
		return runs[len(runs)/2]
	}
	byCPU := func(f bench.FloodResult) int64 { return int64(f.CPU) }
	byPeak := func(f bench.FloodResult) int64 { return f.RSSPeak }
	small, big := median(0, byCPU), median(1, byCPU)
	label := func(f bench.FloodResult) string {
		return fmt.Sprintf("%dk deltas + %dk tools", f.Spec.Deltas/1000, f.Spec.Tools/1000)
	}
	runs := fmt.Sprintf(" (median of %d)", len(r.floods))
	row("3", "Flood turn ("+label(big)+"), ask to progress end"+runs, fmt.Sprintf("%.2f s", big.Turn.Seconds()),
		fmt.Sprintf("%s: %.2f s", label(small), small.Turn.Seconds()), "", "")
	rate := float64(big.Progress) / big.Turn.Seconds()
	row("3", "Progress messages the editor receives per second: most in any second / mean",
		fmt.Sprintf("%d / %.1f", big.MaxProgressPerSec, rate), fmt.Sprintf("%s: %d / %.1f", label(small), small.MaxProgressPerSec, float64(small.Progress)/small.Turn.Seconds()),
		"≤ 20 / s", verdict(big.MaxProgressPerSec <= 20 && small.MaxProgressPerSec <= 20))
	row("3", "All messages the editor receives during the turn (per second)",
		fmt.Sprintf("%d (%.1f / s)", big.EditorMsgs, float64(big.EditorMsgs)/big.Turn.Seconds()),
		fmt.Sprintf("%s: %d", label(small), small.EditorMsgs), "", "")
	perEvent := func(f bench.FloodResult) float64 {
		return float64(f.CPU.Nanoseconds()) / 1000 / float64(f.Spec.Notifications())
	}
	var each []string
	for _, f := range r.floods {
		each = append(each, fmt.Sprintf("%.1f", perEvent(f[1])))
	}
	row("3", "Host CPU time for the turn (codex excluded), per codex event"+runs, fmt.Sprintf("%.2f s (%.1f µs per event; runs: %s)", big.CPU.Seconds(), perEvent(big), strings.Join(each, ", ")),
		fmt.Sprintf("%s: %.2f s", label(small), small.CPU.Seconds()), "≤ 5 µs per event", verdict(perEvent(big) <= 5))
	smallPeak, bigPeak := median(0, byPeak), median(1, byPeak)
	flat := bigPeak.RSSPeak <= smallPeak.RSSPeak+smallPeak.RSSPeak/4+8*1024 // within 25 % + 8 MiB for 10x the events
	row("3", "Host RSS: idle → peak during the turn (kernel high-water mark)"+runs,
		fmt.Sprintf("%s → %s (%s)", bench.MiB(bigPeak.RSSIdle), bench.MiB(bigPeak.RSSPeak), bench.MiB(bigPeak.HWM)),
		fmt.Sprintf("%s: %s → %s", label(smallPeak), bench.MiB(smallPeak.RSSIdle), bench.MiB(smallPeak.RSSPeak)),
		"flat: 10x the events, peak within 25 % + 8 MiB", verdict(flat))
	deltasOnly, toolsOnly := median(2, byPeak), median(3, byPeak)
	row("3", "… the deltas alone / the tools alone: idle → peak", fmt.Sprintf("%s: %s → %s", label(deltasOnly), bench.MiB(deltasOnly.RSSIdle), bench.MiB(deltasOnly.RSSPeak)),
		fmt.Sprintf("%s: %s → %s", label(toolsOnly), bench.MiB(toolsOnly.RSSIdle), bench.MiB(toolsOnly.RSSPeak)), "", "")
}

// startupRows are startup and memory (section 4); warm and bareWarm are the warm turns' medians.
func (r *report) startupRows(row rowFunc, warm, bareWarm time.Duration) {
	st := r.startup
	if st == nil {
		return
	}
	row("4", fmt.Sprintf("initialize reply, median / p95 (%d fresh servers, timed once each is up)", len(st.Initialize)),
		bench.Ms(st.Initialize.Median())+" / "+bench.Ms(st.Initialize.P95()), "process start to serving "+bench.Ms(st.Spawn.Median()),
		"< 10 ms", verdict(st.Initialize.Median() < 10*time.Millisecond))
	pw := st.FirstPrewarmed.Median()
	row("4", fmt.Sprintf("First turn with prewarm, median (%d fresh servers)", len(st.FirstPrewarmed)), bench.Ms(pw),
		fmt.Sprintf("%.2fx a warm turn (%s)", float64(pw)/float64(warm), bench.Ms(warm)), "≤ 1.2x a warm turn", verdict(float64(pw) <= 1.2*float64(warm)))
	row("4", "… codex's own first turn on a started codex, its thread started 250 ms before (bare client)", "", bench.Ms(st.BareWarm.Median())+
		fmt.Sprintf(" (%.2fx its warm turn)", float64(st.BareWarm.Median())/float64(bareWarm)), "", "")
	firstNext := func(first, next bench.Samples) string {
		f, n := first.Median(), next.Median()
		return fmt.Sprintf("%s / %s (%s)", bench.Ms(f), bench.Ms(n), bench.SignedMs(f-n))
	}
	row("4", "… the first turn against the same processes' next two, one at a time: first / next, median",
		firstNext(st.FirstPrewarmed, st.PrewarmedNext), "bare client "+firstNext(st.BareWarm, st.BareNext), "", "")
	row("4", "… … of which before the model's request (from hermes.ask; from turn/start): first / next",
		firstNext(st.ToModel.FirstPrewarmed, st.ToModel.PrewarmedNext), "bare client "+firstNext(st.ToModel.BareWarm, st.ToModel.BareNext), "", "")
	row("4", fmt.Sprintf("First turn without prewarm, median (%d fresh servers)", len(st.FirstCold)), bench.Ms(st.FirstCold.Median()),
		fmt.Sprintf("%.2fx a warm turn; bare client from process start: %s", float64(st.FirstCold.Median())/float64(warm), bench.Ms(st.BareCold.Median())), "", "")
	idle := medianKB(st.IdleRSS)
	row("4", "Idle RSS of hermes-lsp after initialize (codex not counted)", bench.MiB(idle), "", "≤ 20 MB", verdict(idle*1024 <= 20_000_000))
	var soon, rest []int64
	for _, rn := range r.runs {
		soon, rest = append(soon, rn.latency.HermesIdleRSS), append(rest, rn.latency.HermesRestRSS)
	}
	restKB := medianKB(rest)
	row("4", fmt.Sprintf("Idle RSS of hermes-lsp after %d turns: 0.5 s / 5.5 s after the last (codex not counted; median of the runs)", len(r.runs[0].latency.Hermes.Total)+warmupTurns),
		bench.MiB(medianKB(soon))+" / "+bench.MiB(restKB), "", "≤ 20 MiB", verdict(restKB <= 20*1024))
}
