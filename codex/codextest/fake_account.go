package codextest

// This file is the fake's account: account/read, account/login/start, and the
// account/login/completed and account/updated notifications a sign-in ends with.

import (
	"fmt"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// Pages the fake's sign-ins open.
const (
	FakeAuthURL         = "https://auth.openai.com/oauth/authorize?client_id=fake"
	FakeVerificationURL = "https://auth.openai.com/codex/device"
	FakeUserCode        = "FAKE-1234"
)

// SetAccount sets the account account/read reports; nil is signed out (the default).
func (f *Fake) SetAccount(a *codex.AccountInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.account = a
}

// SetLoginURL makes account/login/start answer with url as its page (authUrl or verificationUrl),
// as a hostile or broken codex might; "" restores FakeAuthURL and FakeVerificationURL.
func (f *Fake) SetLoginURL(url string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loginURL = url
}

// Logins returns the ids of the sign-ins started so far, in order.
func (f *Fake) Logins() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.logins...)
}

// CompleteLogin ends the last sign-in as codex does once the browser is done: with a != nil the
// account is set and account/login/completed says success (then account/updated); with a == nil
// it says the error.
func (f *Fake) CompleteLogin(a *codex.AccountInfo, errMsg string) {
	f.mu.Lock()
	id := ""
	if n := len(f.logins); n > 0 {
		id = f.logins[n-1]
	}
	if a != nil {
		f.account = a
	}
	f.mu.Unlock()
	c := f.current()
	if c == nil {
		return
	}
	done := map[string]any{"loginId": id, "success": a != nil, "error": nil}
	if a == nil {
		done["error"] = errMsg
	}
	c.notify(codex.NotifyAccountLoginCompleted, done)
	if a != nil {
		c.notify(codex.NotifyAccountUpdated, map[string]any{"authMode": "chatgpt", "planType": a.PlanType})
	}
}

// handleAccount answers the account requests; it reports whether m was one.
func (c *fakeConn) handleAccount(m Message) bool {
	switch m.Method {
	case codex.MethodAccountRead:
		c.f.mu.Lock()
		var account any // JSON null when signed out
		if a := c.f.account; a != nil {
			account = map[string]any{"type": a.Type, "email": a.Email, "planType": a.PlanType}
		}
		c.f.mu.Unlock()
		c.reply(m.ID, map[string]any{"account": account, "requiresOpenaiAuth": true})
	case codex.MethodAccountLoginStart:
		var p struct {
			Type string `json:"type"`
		}
		if !c.decode(m, &p) {
			return true
		}
		c.f.mu.Lock()
		id := fmt.Sprintf("login-%d", len(c.f.logins)+1)
		switch p.Type {
		case codex.LoginTypeChatGPT, codex.LoginTypeChatGPTDeviceCode:
			c.f.logins = append(c.f.logins, id)
		}
		authURL, verificationURL := FakeAuthURL, FakeVerificationURL
		if c.f.loginURL != "" {
			authURL, verificationURL = c.f.loginURL, c.f.loginURL
		}
		c.f.mu.Unlock()
		switch p.Type {
		case codex.LoginTypeChatGPT:
			c.reply(m.ID, map[string]any{"type": p.Type, "loginId": id, "authUrl": authURL})
		case codex.LoginTypeChatGPTDeviceCode:
			c.reply(m.ID, map[string]any{"type": p.Type, "loginId": id, "verificationUrl": verificationURL, "userCode": FakeUserCode})
		default:
			c.fail(m.ID, codex.CodeInvalidRequest, "Invalid request: unknown variant `%s`", p.Type)
		}
	default:
		return false
	}
	return true
}
