package codex

import (
	"context"
	"encoding/json"
	"fmt"
)

// Account methods and notifications.
const (
	MethodAccountRead           = "account/read"
	MethodAccountLoginStart     = "account/login/start"
	NotifyAccountLoginCompleted = "account/login/completed"
	NotifyAccountUpdated        = "account/updated"
	LoginTypeChatGPT            = "chatgpt"
	LoginTypeChatGPTDeviceCode  = "chatgptDeviceCode"
)

// AccountInfo is the account codex uses, read leniently from account/read's union (ApiKeyAccount,
// ChatgptAccount, and the others codex adds): Type, and for "chatgpt" the email and plan.
type AccountInfo struct {
	Type     string `json:"type"`
	Email    string `json:"email,omitempty"`
	PlanType string `json:"planType,omitempty"`
}

// AccountState is account/read's answer: Account is nil when codex has none (not signed in).
// RequiresOpenAIAuth says the configured provider needs an OpenAI account (or key); false for a
// provider of its own (a local model, a fake one).
type AccountState struct {
	Account            *AccountInfo
	RequiresOpenAIAuth bool
}

// ReadAccount asks codex which account it uses (account/read).
func (c *Client) ReadAccount(ctx context.Context) (*AccountState, error) {
	var res GetAccountResponse
	if err := c.Call(ctx, MethodAccountRead, GetAccountParams{}, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", MethodAccountRead, err)
	}
	st := &AccountState{RequiresOpenAIAuth: res.RequiresOpenaiAuth}
	if len(res.Account) > 0 && string(res.Account) != "null" {
		var a AccountInfo
		if err := json.Unmarshal(res.Account, &a); err != nil {
			return nil, fmt.Errorf("%s: account %s: %w", MethodAccountRead, truncateBytes(res.Account, 200), err)
		}
		st.Account = &a
	}
	return st, nil
}

// LoginStarted is account/login/start's answer for a ChatGPT sign-in: the page to open (AuthURL
// for a browser on this machine; VerificationURL and UserCode for a device code) and the id that
// account/login/completed names.
type LoginStarted struct {
	Type            string `json:"type"`
	LoginID         string `json:"loginId"`
	AuthURL         string `json:"authUrl,omitempty"`
	VerificationURL string `json:"verificationUrl,omitempty"`
	UserCode        string `json:"userCode,omitempty"`
}

// URL is the page the user opens to sign in.
func (l *LoginStarted) URL() string {
	if l.AuthURL != "" {
		return l.AuthURL
	}
	return l.VerificationURL
}

// StartLogin starts a ChatGPT sign-in (account/login/start) of loginType, LoginTypeChatGPT or
// LoginTypeChatGPTDeviceCode. codex reports its end with account/login/completed.
func (c *Client) StartLogin(ctx context.Context, loginType string) (*LoginStarted, error) {
	if loginType != LoginTypeChatGPT && loginType != LoginTypeChatGPTDeviceCode {
		return nil, fmt.Errorf("%s: unknown sign-in type %q", MethodAccountLoginStart, loginType)
	}
	var res LoginStarted
	if err := c.Call(ctx, MethodAccountLoginStart, map[string]string{"type": loginType}, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", MethodAccountLoginStart, err)
	}
	if res.URL() == "" {
		return nil, fmt.Errorf("%s: codex answered without a page to open (type %q)", MethodAccountLoginStart, res.Type)
	}
	return &res, nil
}

func truncateBytes(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
