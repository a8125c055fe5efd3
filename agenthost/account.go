package agenthost

// This file is codex's account: who it is signed in as (account/read) and a ChatGPT sign-in started
// from the editor (account/login/start, ended by account/login/completed).

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// Account returns who codex is signed in as, asking the running codex; it starts none (nil, nil
// when codex is not running).
func (h *Host) Account(ctx context.Context) (*codex.AccountState, error) {
	h.codexMu.Lock()
	client := h.agent
	h.codexMu.Unlock()
	if client == nil {
		return nil, nil
	}
	return client.ReadAccount(ctx)
}

// LoginOutcome is how a sign-in ended: Err is codex's reason when it failed.
type LoginOutcome struct {
	Err error
}

// Login is a sign-in in progress.
type Login struct {
	// Started is codex's answer: the page to open, and the code to enter for a device code.
	Started *codex.LoginStarted
	// Already is the account codex had when it was asked to sign in: then nothing was started
	// (Started is nil) and Done is closed.
	Already *codex.AccountInfo

	done chan LoginOutcome
}

// Done delivers the outcome once codex reports the sign-in's end (account/login/completed). A
// sign-in whose codex exits first never ends: wait with a deadline.
func (l *Login) Done() <-chan LoginOutcome { return l.done }

// Login starts codex when needed and a ChatGPT sign-in of loginType (codex.LoginTypeChatGPT or
// codex.LoginTypeChatGPTDeviceCode), unless codex is signed in already.
func (h *Host) Login(ctx context.Context, loginType string) (*Login, error) {
	ctx, cancel := context.WithTimeout(ctx, h.config().StartTimeout)
	defer cancel()
	client, _, err := h.codexClient(ctx)
	if err != nil {
		return nil, err
	}
	st, err := client.ReadAccount(ctx)
	if err != nil {
		return nil, err
	}
	if st.Account != nil {
		done := make(chan LoginOutcome, 1)
		done <- LoginOutcome{}
		return &Login{Already: st.Account, done: done}, nil
	}
	started, err := client.StartLogin(ctx, loginType)
	if err != nil {
		return nil, err
	}
	l := &Login{Started: started, done: make(chan LoginOutcome, 1)}
	h.loginsMu.Lock()
	if h.logins == nil {
		h.logins = map[string]chan LoginOutcome{}
	}
	h.logins[started.LoginID] = l.done
	h.loginsMu.Unlock()
	return l, nil
}

// noteLogin delivers account/login/completed to the sign-in it names. It runs on the client's
// read goroutine; codex answers account/login/start before the browser can finish, so the sign-in
// is registered by then.
func (h *Host) noteLogin(ev codex.Event) {
	if ev.Method != codex.NotifyAccountLoginCompleted {
		return
	}
	var n codex.AccountLoginCompletedNotification
	if err := json.Unmarshal(ev.Params, &n); err != nil {
		h.log.Warn("codex: "+ev.Method, "err", err)
		return
	}
	h.loginsMu.Lock()
	done, ok := h.logins[n.LoginID]
	delete(h.logins, n.LoginID)
	h.loginsMu.Unlock()
	if !ok {
		h.log.Info("codex: a sign-in ended that this server did not start", "loginId", n.LoginID, "success", n.Success)
		return
	}
	var out LoginOutcome
	if !n.Success {
		reason := n.Error
		if reason == "" {
			reason = "codex did not say why"
		}
		out.Err = fmt.Errorf("sign-in failed: %s", reason)
	}
	done <- out
}
