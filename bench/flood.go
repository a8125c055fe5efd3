package bench

import (
	"context"
	"maps"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// FloodResult is one event flood through bin/hermes-lsp, measured from the editor and from /proc.
type FloodResult struct {
	Spec FakeSpec
	// Turn is from the ask to the end of the turn's progress.
	Turn time.Duration
	// EditorMsgs counts every message the editor received during the turn (notifications and
	// requests), Progress the turn's $/progress values.
	EditorMsgs, Progress int
	// MaxProgressPerSec is the most $/progress values the editor received in any one second.
	MaxProgressPerSec int
	// CPU is the server's own CPU time during the turn (codex's not included).
	CPU time.Duration
	// RSSIdle is the server's resident memory before the turn, RSSPeak the most sampled during it
	// (every 10 ms), HWM the kernel's high-water mark at the end (kB).
	RSSIdle, RSSPeak, HWM int64
}

// Flood runs one turn of spec's size from a fake codex (this binary in app-server mode) through a
// fresh server, with the settings a VS Code user has by default (progress, no turn events).
func Flood(ctx context.Context, env *Env, spec FakeSpec) (FloodResult, error) {
	res := FloodResult{Spec: spec}
	home, err := env.NewHome("flood")
	if err != nil {
		return res, err
	}
	h, err := StartHermes(ctx, env.Hermes, home)
	if err != nil {
		return res, err
	}
	defer h.Close()
	settings := HermesSettings(home, env.Self, nil, map[string]any{"prewarm": true})
	codexEnv := home.CodexEnv()
	maps.Copy(codexEnv, spec.Env())
	settings["codex"].(map[string]any)["env"] = codexEnv
	if _, err := h.Initialize(ctx, settings); err != nil {
		return res, err
	}
	if err := h.WaitLog(ctx, "codex started"); err != nil {
		return res, err
	}
	time.Sleep(100 * time.Millisecond) // let the start settle
	pid := h.Pid()
	idle, err := ProcMem(pid)
	if err != nil {
		return res, err
	}
	res.RSSIdle = idle.RSS
	cpu0, err := ProcCPU(pid)
	if err != nil {
		return res, err
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var peak int64
	wg.Go(func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			if m, err := ProcMem(pid); err == nil && m.RSS > peak {
				peak = m.RSS
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})

	count := func(s *lsptest.State) int {
		n := 0
		for _, v := range s.Notifications {
			n += len(v)
		}
		for _, v := range s.Requests {
			n += len(v)
		}
		return n
	}
	st := h.Ed.State()
	msgs0, created := count(st), len(st.CreatedTokens)
	began := time.Now()
	if _, err := h.Ed.ExecuteCommand(ctx, "hermes.ask", map[string]any{"prompt": "flood"}); err != nil {
		close(stop)
		wg.Wait()
		return res, err
	}
	var arrivals []time.Time
	seen := 0
	err = h.Ed.Await(ctx, func(s *lsptest.State) bool {
		if len(s.CreatedTokens) <= created {
			return false
		}
		events := s.Progress[s.CreatedTokens[created]]
		for ; seen < len(events); seen++ {
			arrivals = append(arrivals, time.Now())
		}
		return len(events) > 0 && events[len(events)-1].Kind == protocol.WorkDoneProgressKindEnd
	})
	res.Turn = time.Since(began)
	close(stop)
	wg.Wait()
	if err != nil {
		return res, err
	}
	cpu1, err := ProcCPU(pid)
	if err != nil {
		return res, err
	}
	end, err := ProcMem(pid)
	if err != nil {
		return res, err
	}
	res.CPU = cpu1 - cpu0
	res.RSSPeak = max(peak, end.RSS)
	res.HWM = end.HWM
	res.EditorMsgs = count(h.Ed.State()) - msgs0
	res.Progress = len(arrivals)
	for i := range arrivals {
		n := 0
		for j := i; j < len(arrivals) && arrivals[j].Sub(arrivals[i]) < time.Second; j++ {
			n++
		}
		res.MaxProgressPerSec = max(res.MaxProgressPerSec, n)
	}
	return res, nil
}
