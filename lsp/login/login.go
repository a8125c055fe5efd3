// Package login is hermes.login: codex's own ChatGPT sign-in started from the editor, its page
// opened in the user's browser (window/showDocument, external) or shown, and its end reported; and
// the account hermes.status names.
package login

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
)

// Config is what a sign-in needs of the server.
type Config struct {
	// Editor opens the sign-in page and shows how the sign-in goes.
	Editor *editor.Client
	Log    *slog.Logger
	// Host returns the agent host, nil before initialize.
	Host func() *agenthost.Host
	// Go runs f on a goroutine the server owns and waits for (the wait for the sign-in's end),
	// with a context that ends with the connection.
	Go func(name string, f func(ctx context.Context))
}

// loginWait bounds the wait for the browser's part of a sign-in; codex's own login server gives up
// sooner.
const loginWait = 15 * time.Minute

// accountWait bounds hermes.status's question to codex about its account.
const accountWait = 2 * time.Second

// Start is hermes.login: it starts codex's sign-in by the method a asks for and answers at once; a
// goroutine of cfg.Go reports the sign-in's end. An unknown method is an InvalidParams error.
func Start(ctx context.Context, cfg Config, a hermesproto.LoginArgs) (hermesproto.LoginResult, error) {
	loginType := codex.LoginTypeChatGPT
	switch a.Method {
	case "", hermesproto.LoginChatGPT:
	case hermesproto.LoginDeviceCode:
		loginType = codex.LoginTypeChatGPTDeviceCode
	default:
		return hermesproto.LoginResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("hermes.login: unknown method %q: use %q (a browser on this machine) or %q (any browser, with a code)",
			a.Method, hermesproto.LoginChatGPT, hermesproto.LoginDeviceCode))
	}
	h := cfg.Host()
	if h == nil {
		return hermesproto.LoginResult{}, errors.New("the server is not initialized")
	}
	l, err := h.Login(ctx, loginType)
	if err != nil {
		return hermesproto.LoginResult{}, fmt.Errorf("could not start the codex sign-in: %w (`hermes-lsp doctor` checks the codex binary and its login)", err)
	}
	if l.Already != nil {
		cfg.Editor.ShowMessage(ctx, protocol.MessageTypeInfo, "Hermes: codex is already signed in as "+accountName(l.Already)+".")
		acc := wireAccount(l.Already)
		return hermesproto.LoginResult{AlreadySignedIn: &acc}, nil
	}
	res := hermesproto.LoginResult{
		Method:   a.Method,
		LoginID:  safetext.LineCut(l.Started.LoginID, maxLoginText),
		URL:      l.Started.URL(),
		UserCode: safetext.LineCut(l.Started.UserCode, maxLoginText),
	}
	if res.Method == "" {
		res.Method = hermesproto.LoginChatGPT
	}
	if why := loginURLProblem(res.URL); why != "" {
		// Not opened, and not in the answer either: every client opens the URL it gets when the
		// server did not. The user reads it as text and decides.
		msg := "Hermes did not open the sign-in link because " + why + ": " + safetext.LineCut(res.URL, maxLoginURL) + ". Open it yourself only if you trust it."
		if res.UserCode != "" {
			msg += " The code to enter there: " + res.UserCode + "."
		}
		cfg.Log.Warn("hermes.login: sign-in link not opened", "why", why)
		cfg.Editor.ShowMessage(ctx, protocol.MessageTypeWarning, msg)
		res.URL = ""
		cfg.Go("login", func(ctx context.Context) { awaitEnd(ctx, cfg.Editor, h, l) })
		return res, nil
	}
	res.Opened = cfg.Editor.OpenExternal(ctx, res.URL)
	switch {
	case res.UserCode != "":
		cfg.Editor.ShowMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("Hermes: to sign in to codex, open %s and enter the code %s.", res.URL, res.UserCode))
	case !res.Opened:
		cfg.Editor.ShowMessage(ctx, protocol.MessageTypeInfo, "Hermes: to sign in to codex, open "+res.URL+" in a browser on this machine.")
	}
	cfg.Go("login", func(ctx context.Context) { awaitEnd(ctx, cfg.Editor, h, l) })
	return res, nil
}

// awaitEnd reports the sign-in's end.
func awaitEnd(ctx context.Context, ed *editor.Client, h *agenthost.Host, l *agenthost.Login) {
	timer := time.NewTimer(loginWait)
	defer timer.Stop()
	select {
	case out := <-l.Done():
		if out.Err != nil {
			// codex's words: one line, no terminal escapes.
			ed.ShowMessage(ctx, protocol.MessageTypeError, "Hermes: "+safetext.LineCut(out.Err.Error(), maxLoginURL)+". Run hermes.login again to retry.")
			return
		}
		name := "your account"
		actx, cancel := context.WithTimeout(ctx, accountWait)
		defer cancel()
		if st, err := h.Account(actx); err == nil && st != nil && st.Account != nil {
			name = accountName(st.Account)
		}
		ed.ShowMessage(ctx, protocol.MessageTypeInfo, "Hermes: codex is signed in as "+name+".")
	case <-timer.C:
		ed.ShowMessage(ctx, protocol.MessageTypeWarning, "Hermes: the codex sign-in did not finish in 15 minutes. Run hermes.login again to retry.")
	case <-ctx.Done():
	}
}

// Bounds of what codex's sign-in answer may hold: a URL longer than maxLoginURL is not opened (and
// shown cut); the code and the login's id are cut to maxLoginText.
const (
	maxLoginURL  = 4096
	maxLoginText = 200
)

// loginURLProblem says why hermes.login will not open raw, codex's sign-in page, or "" when it
// may: an https: URL with a host, or an http: one to this machine (localhost, 127.0.0.0/8, [::1]),
// where codex's own login server listens. codex's answer is hostile like anything it writes: a
// file:, javascript:, command: or vscode: URL, or http: to another host, is never opened for it.
func loginURLProblem(raw string) string {
	if len(raw) > maxLoginURL {
		return fmt.Sprintf("it is longer than %d characters", maxLoginURL)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" || safetext.LineCut(raw, maxLoginURL) != raw {
		return "it is not an https address"
	}
	switch u.Scheme {
	case "https":
		return ""
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); strings.EqualFold(host, "localhost") || (ip != nil && ip.IsLoopback()) {
			return ""
		}
	}
	return "it is not an https address"
}

// Account is hermes.status's account and whether codex is signed in: asked of the running codex,
// unknown (nil, nil) when codex does not run or does not answer in time.
func Account(ctx context.Context, log *slog.Logger, h *agenthost.Host) (*hermesproto.Account, *bool) {
	ctx, cancel := context.WithTimeout(ctx, accountWait)
	defer cancel()
	st, err := h.Account(ctx)
	if err != nil {
		if !errors.Is(err, context.DeadlineExceeded) {
			log.Debug("account/read", "err", err)
		}
		return nil, nil
	}
	if st == nil {
		return nil, nil
	}
	signedIn := st.Account != nil || !st.RequiresOpenAIAuth
	if st.Account == nil {
		return nil, &signedIn
	}
	acc := wireAccount(st.Account)
	return &acc, &signedIn
}

func wireAccount(a *codex.AccountInfo) hermesproto.Account {
	return hermesproto.Account{Type: a.Type, Email: a.Email, PlanType: a.PlanType}
}

// accountName is how a message names an account: its email, else its kind.
func accountName(a *codex.AccountInfo) string {
	switch {
	case a.Email != "" && a.PlanType != "":
		return a.Email + " (" + a.PlanType + ")"
	case a.Email != "":
		return a.Email
	case a.Type == "apiKey":
		return "an API key"
	default:
		return a.Type
	}
}
