package bench

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Prompt is what every turn of the latency measurements asks; the fake model answers it with its
// default reply, streamed in six deltas.
const Prompt = "Say hello."

// TurnSamples are the timings of one client's turns.
type TurnSamples struct {
	First, Total Samples
}

func (ts *TurnSamples) add(tt TurnTiming) {
	ts.First = append(ts.First, tt.First)
	ts.Total = append(ts.Total, tt.Total)
}

// LatencyResult holds the turn timings of hermes-lsp, the bare client and codex-acp on the same
// codex and model, taken in turns (round-robin) so that drift hits them alike.
type LatencyResult struct {
	Hermes, Bare, ACP TurnSamples
	// ACPError says why codex-acp was not measured, if it was not.
	ACPError string
	// HermesIdleRSS is the server's resident memory (kB) half a second after its last turn, codex
	// running; HermesRestRSS the same five seconds later (the Go runtime returns freed memory lazily).
	HermesIdleRSS, HermesRestRSS int64
}

// warmup turns run first on each client and are not counted: codex's first turns in a process pay
// for loading what later ones reuse.
const warmup = 3

// Latency runs n measured turns on each client, on the real codex (or codex-acp) against the fake
// model. Progress goes to log.
func Latency(ctx context.Context, env *Env, n int, log io.Writer) (*LatencyResult, error) {
	res := &LatencyResult{}
	// -c options for the clients that start codex themselves (the bare client, codex-acp); each home's
	// config.toml holds the same values, and it is all hermes-lsp's codex gets.
	args := ConfigArgs(env.Model.CodexConfig())

	hh, err := env.NewHome("latency-hermes")
	if err != nil {
		return nil, err
	}
	h, err := StartHermes(ctx, env.Hermes, hh)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	// hermes-lsp gets no -c options: its codex finds the fake model in hh.CodexHome/config.toml.
	if _, err := h.Initialize(ctx, HermesSettings(hh, env.Codex, nil, nil)); err != nil {
		return nil, err
	}

	bh, err := env.NewHome("latency-bare")
	if err != nil {
		return nil, err
	}
	b, err := StartBare(ctx, env.Codex, args, bh)
	if err != nil {
		return nil, fmt.Errorf("bare client: %w", err)
	}
	defer b.Close()

	var acp *ACP
	var session string
	switch {
	case env.ACP == "":
		res.ACPError = "codex-acp is not installed (npm ci in bench/acp failed or was skipped)"
	default:
		ah, err := env.NewHome("latency-acp")
		if err != nil {
			return nil, err
		}
		acp, err = StartACP(env.ACP, args, ah)
		if err == nil {
			defer acp.Close()
			actx, cancel := context.WithTimeout(ctx, 30*time.Second)
			if _, err = acp.Initialize(actx); err == nil {
				session, err = acp.NewSession(actx, ah.Work)
			}
			cancel()
		}
		if err != nil {
			res.ACPError = "codex-acp did not start a session: " + err.Error()
			acp = nil
		}
	}

	type client struct {
		name string
		turn func(context.Context) (TurnTiming, error)
		into *TurnSamples
	}
	clients := []client{
		{"hermes-lsp", func(ctx context.Context) (TurnTiming, error) { return h.Ask(ctx, Prompt) }, &res.Hermes},
		{"bare", func(ctx context.Context) (TurnTiming, error) { return b.Turn(ctx, Prompt) }, &res.Bare},
	}
	if acp != nil {
		clients = append(clients, client{"codex-acp", func(ctx context.Context) (TurnTiming, error) { return acp.Prompt(ctx, session, Prompt) }, &res.ACP})
	}
	for i := -warmup; i < n; i++ {
		for j := range clients {
			c := clients[(i+warmup+j)%len(clients)] // each round starts with the next client
			tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			tt, err := c.turn(tctx)
			cancel()
			if err != nil {
				if c.name == "codex-acp" {
					res.ACPError = fmt.Sprintf("codex-acp turn %d failed: %v", i, err)
					clients = clients[:2]
					break
				}
				return nil, fmt.Errorf("%s turn %d: %w", c.name, i, err)
			}
			if i >= 0 {
				c.into.add(tt)
			}
		}
		if (i+1)%10 == 0 {
			fmt.Fprintf(log, "  latency: %d/%d rounds\n", i+1, n)
		}
	}
	time.Sleep(500 * time.Millisecond) // the last turn's message and transcript are done
	if m, err := ProcMem(h.Pid()); err == nil {
		res.HermesIdleRSS = m.RSS
	}
	time.Sleep(5 * time.Second)
	if m, err := ProcMem(h.Pid()); err == nil {
		res.HermesRestRSS = m.RSS
	}
	return res, nil
}

// HostOnly compares hermes-lsp with the bare client on a codex that takes no time at all (the fake
// app-server of this binary): what is left is the host's own cost per turn.
func HostOnly(ctx context.Context, env *Env, n int) (*HostResult, error) {
	res := &HostResult{}
	hh, err := env.NewHome("hostonly-hermes")
	if err != nil {
		return nil, err
	}
	h, err := StartHermes(ctx, env.Hermes, hh)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	if _, err := h.Initialize(ctx, HermesSettings(hh, env.Self, nil, nil)); err != nil {
		return nil, err
	}
	bh, err := env.NewHome("hostonly-bare")
	if err != nil {
		return nil, err
	}
	b, err := StartBare(ctx, env.Self, nil, bh)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	clients := []func(i int) error{
		func(i int) error {
			tt, err := h.Ask(ctx, Prompt)
			if i >= 0 {
				res.Hermes.add(tt)
			}
			return err
		},
		func(i int) error {
			tt, err := b.Turn(ctx, Prompt)
			if i >= 0 {
				res.Bare.add(tt)
			}
			return err
		},
		func(i int) error {
			tt, err := h.AskWithToken(ctx, Prompt, fmt.Sprintf("host-%d", i))
			if i >= 0 {
				res.HermesToken.add(tt)
			}
			return err
		},
		func(i int) error {
			took, err := h.RoundTrip(ctx)
			if i >= 0 {
				res.RoundTrip = append(res.RoundTrip, took)
			}
			return err
		},
	}
	for i := -warmup; i < n; i++ {
		for k := range clients {
			if err := clients[(k+i+warmup)%len(clients)](i); err != nil { // each round starts with the next
				return nil, err
			}
		}
	}
	return res, nil
}

// HostResult is the host-only comparison on the zero-latency fake codex.
type HostResult struct {
	// Hermes asks as VS Code does (the server creates the progress token); HermesToken passes its
	// own token (workDoneToken), which spares the server's window/workDoneProgress/create round trip.
	Hermes, HermesToken, Bare TurnSamples
	// RoundTrip is an LSP request the server answers at once (a hover on no document): the editor's
	// and the pipes' own cost, which every message of a turn pays.
	RoundTrip Samples
}

// StartupResult is hermes-lsp's startup.
type StartupResult struct {
	// Initialize is the initialize request's round trip on a fresh server, once it is up; Spawn the
	// time from starting the process to its being up (its log says it serves on stdio).
	Initialize, Spawn Samples
	// SpawnToInit is Spawn plus Initialize: from starting the process to the initialize answer.
	SpawnToInit Samples
	// IdleRSS is the server's resident memory (kB) after initialize, codex not started.
	IdleRSS []int64
	// FirstCold and FirstPrewarmed are the first turn of a fresh server without prewarm and with
	// it (asked 250 ms after prewarm has loaded the folder's thread); PrewarmedNext the next two
	// turns of each prewarmed server, asked one after the other as the first was.
	FirstCold, FirstPrewarmed, PrewarmedNext Samples
	// BareCold is codex's own first turn for the bare client: start codex, initialize, start a thread,
	// run the turn. BareWarm is its first turn on a thread it started 250 ms before, as prewarm
	// leaves codex, and BareNext the next two turns on it. They are what codex itself costs.
	BareCold, BareWarm, BareNext Samples
	// ToModel are the same turns' times from the prompt (hermes.ask; turn/start) to the fake model's
	// receiving the turn's request: the client's and codex's part before the model.
	ToModel struct{ FirstPrewarmed, PrewarmedNext, BareWarm, BareNext Samples }
	// ACPInitialize and ACPFirst are codex-acp's time from process start to the initialize answer (it
	// logs nothing that says it is up) and its first turn (session/new included), for comparison;
	// ACPError says why they are missing.
	ACPInitialize, ACPFirst Samples
	ACPError                string
}

// nextTurns is how many turns follow the first on a prewarmed server (and on the bare client's
// started thread): what the first turn is compared with, on the same processes.
const nextTurns = 2

// bareWarmTurns is the bare client as prewarm leaves codex: started, its thread started 250 ms
// before the first turn, then the next turns.
func bareWarmTurns(ctx context.Context, env *Env, args []string, home Home, res *StartupResult) error {
	b, err := StartBareClient(ctx, env.Codex, args, home)
	if err != nil {
		return err
	}
	defer b.Close()
	if err := b.StartThread(ctx, home.Work); err != nil {
		return err
	}
	time.Sleep(250 * time.Millisecond)
	for i := range 1 + nextTurns {
		tt, err := b.Turn(ctx, Prompt)
		if err != nil {
			return err
		}
		toModel := env.LastModelRequest().Sub(tt.Began)
		if i == 0 {
			res.BareWarm = append(res.BareWarm, tt.Total)
			res.ToModel.BareWarm = append(res.ToModel.BareWarm, toModel)
		} else {
			res.BareNext = append(res.BareNext, tt.Total)
			res.ToModel.BareNext = append(res.ToModel.BareNext, toModel)
		}
	}
	return nil
}

// Startup measures runs fresh servers of each kind.
func Startup(ctx context.Context, env *Env, inits, runs int, log io.Writer) (*StartupResult, error) {
	res := &StartupResult{}
	for range inits {
		home, err := env.NewHome("init")
		if err != nil {
			return nil, err
		}
		h, err := StartHermes(ctx, env.Hermes, home)
		if err != nil {
			return nil, err
		}
		// The process is up once it logs that it serves; initialize is timed from then on.
		if err := h.WaitLog(ctx, "serving on stdio"); err != nil {
			h.Close()
			return nil, err
		}
		res.Spawn = append(res.Spawn, time.Since(h.Spawned))
		d, err := h.Initialize(ctx, HermesSettings(home, env.Codex, nil, nil))
		if err != nil {
			h.Close()
			return nil, err
		}
		res.Initialize = append(res.Initialize, d)
		res.SpawnToInit = append(res.SpawnToInit, res.Spawn[len(res.Spawn)-1]+d)
		time.Sleep(200 * time.Millisecond) // initialized: the configuration pull is done
		if m, err := ProcMem(h.Pid()); err == nil {
			res.IdleRSS = append(res.IdleRSS, m.RSS)
		}
		h.Close()
	}
	fmt.Fprintf(log, "  startup: %d initializes\n", inits)

	// -c options for the clients that start codex themselves (the bare client, codex-acp); each home's
	// config.toml holds the same values, and it is all hermes-lsp's codex gets.
	args := ConfigArgs(env.Model.CodexConfig())
	// One codex home for all runs, as a person has one ~/.codex; a fresh state dir per run, so each
	// first turn starts a new thread.
	shared, err := env.NewHome("first-turn")
	if err != nil {
		return nil, err
	}
	for i := range 2 * runs {
		prewarm := i%2 == 1
		h, err := StartHermes(ctx, env.Hermes, shared)
		if err != nil {
			return nil, err
		}
		settings := HermesSettings(shared, env.Codex, nil, map[string]any{
			"prewarm": prewarm, "stateDir": fmt.Sprintf("%s-%d", shared.State, i),
		})
		if _, err := h.Initialize(ctx, settings); err != nil {
			h.Close()
			return nil, err
		}
		if prewarm {
			// Prewarm is done when the folder's thread is loaded; the bare client below waits as long
			// after starting its thread.
			if err := h.WaitLog(ctx, "loaded the folder's thread ahead"); err != nil {
				h.Close()
				return nil, err
			}
			time.Sleep(250 * time.Millisecond) // a person opens a file before asking
		}
		tt, err := h.Ask(ctx, Prompt)
		if err != nil {
			h.Close()
			return nil, err
		}
		if !prewarm {
			res.FirstCold = append(res.FirstCold, tt.Total)
			h.Close()
			continue
		}
		res.FirstPrewarmed = append(res.FirstPrewarmed, tt.Total)
		res.ToModel.FirstPrewarmed = append(res.ToModel.FirstPrewarmed, env.LastModelRequest().Sub(tt.Began))
		for range nextTurns {
			if tt, err = h.Ask(ctx, Prompt); err != nil {
				h.Close()
				return nil, err
			}
			res.PrewarmedNext = append(res.PrewarmedNext, tt.Total)
			res.ToModel.PrewarmedNext = append(res.ToModel.PrewarmedNext, env.LastModelRequest().Sub(tt.Began))
		}
		h.Close()
	}
	fmt.Fprintf(log, "  startup: %d first turns\n", 2*runs)

	for i := range 2 * runs {
		if i%2 == 1 {
			if err := bareWarmTurns(ctx, env, args, shared, res); err != nil {
				return nil, err
			}
			continue
		}
		began := time.Now()
		b, err := StartBareClient(ctx, env.Codex, args, shared)
		if err != nil {
			return nil, err
		}
		err = b.StartThread(ctx, shared.Work)
		if err == nil {
			_, err = b.Turn(ctx, Prompt)
		}
		took := time.Since(began)
		_ = b.Close()
		if err != nil {
			return nil, err
		}
		res.BareCold = append(res.BareCold, took)
	}
	fmt.Fprintf(log, "  startup: %d first turns of the bare client\n", 2*runs)
	fmt.Fprintf(log, "  first turn with prewarm %s, next %s (before the model %s, next %s); bare client on a started thread %s, next %s (%s, %s)\n",
		Ms(res.FirstPrewarmed.Median()), Ms(res.PrewarmedNext.Median()), Ms(res.ToModel.FirstPrewarmed.Median()), Ms(res.ToModel.PrewarmedNext.Median()),
		Ms(res.BareWarm.Median()), Ms(res.BareNext.Median()), Ms(res.ToModel.BareWarm.Median()), Ms(res.ToModel.BareNext.Median()))

	if env.ACP == "" {
		res.ACPError = "codex-acp is not installed"
		return res, nil
	}
	for range runs {
		a, err := StartACP(env.ACP, args, shared)
		if err != nil {
			res.ACPError = err.Error()
			return res, nil
		}
		actx, cancel := context.WithTimeout(ctx, 60*time.Second)
		began := time.Now()
		d, err := a.Initialize(actx)
		var session string
		if err == nil {
			session, err = a.NewSession(actx, shared.Work)
		}
		if err == nil {
			_, err = a.Prompt(actx, session, Prompt)
		}
		first := time.Since(began) - d
		cancel()
		a.Close()
		if err != nil {
			res.ACPError = err.Error()
			return res, nil
		}
		res.ACPInitialize = append(res.ACPInitialize, d)
		res.ACPFirst = append(res.ACPFirst, first)
	}
	return res, nil
}
