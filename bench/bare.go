package bench

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// Bare is the baseline: a codex app-server client with no host around it (this repository's codex
// package, in this process) on one thread, as a program embedding codex directly would run turns.
type Bare struct {
	client *codex.Client
	thread string
}

// StartBare starts codex app-server at bin with the -c args in home and starts a thread in its
// folder (see StartThread).
func StartBare(ctx context.Context, bin string, args []string, home Home) (*Bare, error) {
	b, err := StartBareClient(ctx, bin, args, home)
	if err != nil {
		return nil, err
	}
	if err := b.StartThread(ctx, home.Work); err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

// StartBareClient starts codex app-server at bin with the -c args in home and completes the
// initialize handshake; it starts no thread.
func StartBareClient(ctx context.Context, bin string, args []string, home Home) (*Bare, error) {
	env := home.CodexEnv()
	var envList []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		envList = append(envList, k+"="+env[k])
	}
	client, err := codex.Start(ctx, codex.Options{
		Process: codex.ProcessOptions{Binary: bin, Args: args, Env: envList, Home: home.CodexHome, Dir: home.Work},
	})
	if err != nil {
		return nil, err
	}
	return &Bare{client: client}, nil
}

// StartThread starts the thread the turns run on, in cwd, with the approval policy and sandbox
// hermes-lsp uses by default.
func (b *Bare) StartThread(ctx context.Context, cwd string) error {
	res, err := b.client.StartThread(ctx, codex.ThreadStartParams{
		Cwd: cwd, ApprovalPolicy: codex.ApprovalUntrusted, Sandbox: codex.SandboxWorkspaceWrite,
	})
	if err != nil {
		return err
	}
	b.thread = res.Thread.ID
	return nil
}

// Pid is codex's process id.
func (b *Bare) Pid() int { return b.client.Pid() }

// Turn runs one turn: First is the first answer delta, Total turn/completed.
func (b *Bare) Turn(ctx context.Context, prompt string) (TurnTiming, error) {
	began := time.Now()
	_, sub, err := b.client.StartTurn(ctx, codex.TurnStartParams{ThreadID: b.thread, Input: []codex.UserInput{codex.TextInput(prompt)}})
	if err != nil {
		return TurnTiming{}, err
	}
	defer sub.Close()
	tt := TurnTiming{Began: began}
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				return tt, fmt.Errorf("the turn's events ended: %v", sub.Err())
			}
			switch ev.Method {
			case codex.NotifyAgentMessageDelta:
				if tt.First == 0 {
					tt.First = time.Since(began)
				}
			case codex.NotifyTurnCompleted:
				tt.Total = time.Since(began)
				if tt.First == 0 {
					tt.First = tt.Total
				}
				return tt, nil
			}
		case <-ctx.Done():
			return tt, ctx.Err()
		}
	}
}

// Close stops codex.
func (b *Bare) Close() error { return b.client.Close() }
