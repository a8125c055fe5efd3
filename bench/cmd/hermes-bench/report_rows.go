package main

// This file makes the table's rows of sections 2 to 4: the peer, the flood and startup.

import (
	"fmt"
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
	if len(r.floods) != 4 {
		return
	}
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
	perEvent := float64(big.CPU.Nanoseconds()) / 1000 / float64(big.Spec.Notifications())
	row("3", "Host CPU time for the turn (codex excluded), per codex event", fmt.Sprintf("%.2f s (%.1f µs per event)", big.CPU.Seconds(), perEvent),
		fmt.Sprintf("%s: %.2f s", label(small), small.CPU.Seconds()), "≤ 5 µs per event", verdict(perEvent <= 5))
	flat := big.RSSPeak <= small.RSSPeak+small.RSSPeak/4+8*1024 // within 25 % + 8 MiB for 10x the events
	row("3", "Host RSS: idle → peak during the turn (kernel high-water mark)",
		fmt.Sprintf("%s → %s (%s)", bench.MiB(big.RSSIdle), bench.MiB(big.RSSPeak), bench.MiB(big.HWM)),
		fmt.Sprintf("%s: %s → %s", label(small), bench.MiB(small.RSSIdle), bench.MiB(small.RSSPeak)),
		"flat: 10x the events, peak within 25 % + 8 MiB", verdict(flat))
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
	row("4", "… codex's own first turn on a started codex, its thread started (bare client)", "", bench.Ms(st.BareWarm.Median())+
		fmt.Sprintf(" (%.2fx its warm turn)", float64(st.BareWarm.Median())/float64(bareWarm)), "", "")
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
