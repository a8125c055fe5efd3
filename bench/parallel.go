package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// Parallel runs rounds in which n turns run at once: on the zero-latency fake codex, one turn in
// each of n workspace folders of one hermes-lsp (whose one codex serves them all, as codex does),
// against one turn on each of n bare clients (each with its codex). The rounds alternate which goes
// first; the first round of each is warm-up. Each turn is timed from its own ask to its own end;
// hermes-lsp's are asked with a progress token each (workDoneToken), so the n ends can be told apart.
// It returns the turns' times, the server's own CPU time (codex excluded) per measured turn, the
// measuring editor's (this process's, over the hermes-lsp rounds only) and the bare clients' (over
// theirs) per measured turn.
func Parallel(ctx context.Context, env *Env, n, rounds int) (res ParallelResult, err error) {
	var hermes, bare Samples
	hh, err := env.NewHome("parallel-hermes")
	if err != nil {
		return res, err
	}
	folders := make([]string, n)
	for i := range folders {
		folders[i] = filepath.Join(hh.Work, fmt.Sprintf("folder-%d", i))
		if err := os.MkdirAll(folders[i], 0o755); err != nil {
			return res, err
		}
	}
	h, err := StartHermes(ctx, env.Hermes, hh)
	if err != nil {
		return res, err
	}
	defer h.Close()
	if _, err := h.Ed.Initialize(ctx, folders, HermesSettings(hh, env.Self, nil, nil)); err != nil {
		return res, err
	}
	clients := make([]*Bare, n)
	for i := range clients {
		home, err := env.NewHome(fmt.Sprintf("parallel-bare-%d", i))
		if err != nil {
			return res, err
		}
		if clients[i], err = StartBare(ctx, env.Self, nil, home); err != nil {
			return res, err
		}
		defer clients[i].Close()
	}

	hermesRound := func(round int) (Samples, error) {
		tokens := make([]protocol.ProgressToken, n)
		began := make([]time.Time, n)
		for i := range tokens {
			tokens[i] = *protocol.NewProgressToken(fmt.Sprintf("parallel-%d-%d", round, i))
		}
		h.Ed.Forget() // the last round's records would make every wait below copy them
		asked := make(chan error, n)
		var wg sync.WaitGroup
		for i := range n {
			began[i] = time.Now()
			wg.Go(func() {
				args := map[string]any{"prompt": Prompt, "uri": string(uri.File(folders[i]))}
				_, err := h.Ed.ExecuteCommandWithToken(ctx, "hermes.ask", tokens[i], args)
				asked <- err
			})
		}
		// One waiter for the n ends, stamping each when it is first seen: n waiters would each copy
		// the editor's state on every message, a cost of this editor that no real one has.
		took := make(Samples, n)
		err := h.Ed.Await(ctx, func(s *lsptest.State) bool {
			done := 0
			for i, token := range tokens {
				if took[i] == 0 && s.ProgressEnded(token) {
					took[i] = time.Since(began[i])
				}
				if took[i] != 0 {
					done++
				}
			}
			return done == n
		})
		wg.Wait()
		close(asked)
		for aerr := range asked {
			if aerr != nil {
				return nil, aerr
			}
		}
		return took, err
	}
	var cpu0, editorCPU, clientCPU time.Duration
	bareRound := func(round int) (Samples, error) {
		before := SelfCPU()
		took, err := atOnce(n, func(i int) (time.Duration, error) {
			tt, err := clients[i].Turn(ctx, Prompt)
			return tt.Total, err
		})
		if round > 0 {
			clientCPU += SelfCPU() - before
		}
		return took, err
	}
	for round := range rounds + 1 {
		if round == 1 {
			if cpu0, err = ProcCPU(h.Pid()); err != nil {
				return res, err
			}
		}
		timedHermes := func(round int) (Samples, error) {
			before := SelfCPU()
			took, err := hermesRound(round)
			if round > 0 {
				editorCPU += SelfCPU() - before
			}
			return took, err
		}
		first, second := timedHermes, bareRound
		if round%2 != 0 {
			first, second = second, first
		}
		a, err := first(round)
		if err != nil {
			return res, err
		}
		b, err := second(round)
		if err != nil {
			return res, err
		}
		if round == 0 {
			continue // warm-up: threads start, codex loads
		}
		if round%2 != 0 {
			a, b = b, a
		}
		hermes, bare = append(hermes, a...), append(bare, b...)
	}
	cpu1, err := ProcCPU(h.Pid())
	if err != nil {
		return res, err
	}
	turns := time.Duration(max(1, len(hermes)))
	return ParallelResult{Hermes: hermes, Bare: bare, HermesCPU: (cpu1 - cpu0) / turns, EditorCPU: editorCPU / turns,
		ClientCPU: clientCPU / time.Duration(max(1, len(bare)))}, nil
}

// ParallelResult is what Parallel measured.
type ParallelResult struct {
	Hermes, Bare Samples       // each turn's time, ask to end
	HermesCPU    time.Duration // hermes-lsp's CPU time per turn
	EditorCPU    time.Duration // the measuring editor's CPU time per turn (this process)
	// ClientCPU is the bare clients' CPU time per turn (this process, over the bare rounds): what
	// stands for the editor's on their side.
	ClientCPU time.Duration
}

// atOnce runs turn(0..n-1) at the same time and returns their durations.
func atOnce(n int, turn func(i int) (time.Duration, error)) (Samples, error) {
	took := make(Samples, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { took[i], errs[i] = turn(i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return took, nil
}
