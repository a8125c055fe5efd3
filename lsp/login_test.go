package lsp_test

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// TestLogin signs in from the editor: codex's sign-in page opens in the browser where the editor can
// open one (VS Code: window/showDocument, external) and is shown where it cannot (Helix); the end
// of the sign-in is shown, and hermes.status names the account.
func TestLogin(t *testing.T) {
	for _, tc := range []struct {
		profile    lsptest.Profile
		method     string
		wantURL    string
		wantOpened bool
	}{
		{lsptest.VSCode, "", codextest.FakeAuthURL, true},
		{lsptest.Helix2501, hermesproto.LoginChatGPT, codextest.FakeAuthURL, false},
		{lsptest.Neovim07, hermesproto.LoginDeviceCode, codextest.FakeVerificationURL, false},
	} {
		t.Run(tc.profile.Name+"/"+tc.method, func(t *testing.T) {
			f := start(t, tc.profile, nil)
			var res hermesproto.LoginResult
			command(t, f, hermesproto.CmdLogin, map[string]any{"method": tc.method}, &res)
			if res.URL != tc.wantURL || res.Opened != tc.wantOpened || res.LoginID != "login-1" || res.AlreadySignedIn != nil {
				t.Fatalf("login result %+v", res)
			}
			docs := f.ed.ShowDocuments()
			if tc.wantOpened && (len(docs) != 1 || string(docs[0].URI) != tc.wantURL || !docs[0].External) {
				t.Errorf("showDocument: %+v, want %s external", docs, tc.wantURL)
			}
			if !tc.wantOpened {
				waitMessage(t, f, tc.wantURL)
				if tc.method == hermesproto.LoginDeviceCode {
					waitMessage(t, f, codextest.FakeUserCode)
				}
			}
			var st hermesproto.Status
			command(t, f, hermesproto.CmdStatus, nil, &st)
			if st.SignedIn == nil || *st.SignedIn || st.Account != nil {
				t.Errorf("status before the sign-in ended: signedIn %v account %+v", st.SignedIn, st.Account)
			}

			f.fake.CompleteLogin(&codex.AccountInfo{Type: "chatgpt", Email: "dev@example.com", PlanType: "plus"}, "")
			waitMessage(t, f, "codex is signed in as dev@example.com (plus)")
			command(t, f, hermesproto.CmdStatus, nil, &st)
			if st.SignedIn == nil || !*st.SignedIn || st.Account == nil || st.Account.Email != "dev@example.com" {
				t.Errorf("status after the sign-in: signedIn %v account %+v", st.SignedIn, st.Account)
			}

			command(t, f, hermesproto.CmdLogin, nil, &res)
			if res.AlreadySignedIn == nil || res.AlreadySignedIn.Email != "dev@example.com" || len(f.fake.Logins()) != 1 {
				t.Errorf("a second sign-in: %+v (sign-ins started %v)", res, f.fake.Logins())
			}
		})
	}
}

// TestLoginFailsAndBadMethod: a sign-in codex reports failed says so (codex's words without their
// control characters) and how to retry; an unknown
// method is refused with the ones there are.
func TestLoginFailsAndBadMethod(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdLogin, map[string]any{"method": "password"}); err == nil || !strings.Contains(err.Error(), `"deviceCode"`) {
		t.Errorf("unknown method: %v", err)
	}
	var res hermesproto.LoginResult
	command(t, f, hermesproto.CmdLogin, nil, &res)
	f.fake.CompleteLogin(nil, "the browser\x1b[2J closed\r\n")
	waitMessage(t, f, "sign-in failed: the browser closed . Run hermes.login again")
}

// waitMessage waits for a window/showMessage containing text.
func waitMessage(t *testing.T, f *fixture, text string) {
	t.Helper()
	err := f.ed.Await(testCtx(t), func(s *lsptest.State) bool {
		for _, m := range s.ShowMessages {
			if strings.Contains(m.Message, text) {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no message says %q: %v", text, err)
	}
}

// TestLoginOpensOnlyHTTPS: codex's sign-in page is opened (window/showDocument, external) only when
// it is https:, or http: on this machine (codex's own login server); any other page a hostile codex
// names is neither opened nor handed to the client to open, but shown as text with a warning,
// control and format characters removed.
func TestLoginOpensOnlyHTTPS(t *testing.T) {
	long := "https://auth.openai.com/" + strings.Repeat("a", 5000)
	for _, tc := range []struct {
		url   string
		shown string // the URL as the warning shows it; "" means the page is opened
		why   string
	}{
		{url: "https://auth.openai.com/oauth/authorize?x=1"},
		{url: "http://localhost:1455/auth/callback"},
		{url: "http://127.0.0.1:1455/auth/callback"},
		{url: "http://[::1]:1455/auth/callback"},
		{url: "file:///etc/passwd", shown: "file:///etc/passwd"},
		{url: "javascript:alert(1)", shown: "javascript:alert(1)"},
		{url: "command:workbench.action.terminal.new", shown: "command:workbench.action.terminal.new"},
		{url: "vscode://vscode.git/clone?url=https://evil.example/r.git", shown: "vscode://vscode.git/clone?url=https://evil.example/r.git"},
		{url: "http://evil.example/login", shown: "http://evil.example/login"},
		{url: "http://localhost.evil.example/login", shown: "http://localhost.evil.example/login"},
		{url: "https:/auth.openai.com/no-host", shown: "https:/auth.openai.com/no-host"},
		{url: "https://auth.openai.com/\x1b[2J\x1b]8;;file:///etc\x07x\r\ny", shown: "https://auth.openai.com/x y"},
		{url: "https://evil.example/\u202egnp.exe", shown: "https://evil.example/gnp.exe"},
		{url: long, shown: long[:4095] + "…", why: "it is longer than 4096 characters"},
	} {
		t.Run(tc.url[:min(len(tc.url), 40)], func(t *testing.T) {
			f := start(t, lsptest.VSCode, nil)
			f.fake.SetLoginURL(tc.url)
			var res hermesproto.LoginResult
			command(t, f, hermesproto.CmdLogin, nil, &res)
			docs := f.ed.ShowDocuments()
			if tc.shown == "" {
				if res.URL != tc.url || !res.Opened || len(docs) != 1 || string(docs[0].URI) != tc.url || !docs[0].External {
					t.Errorf("%q not opened: result %+v, showDocument %+v", tc.url, res, docs)
				}
				return
			}
			if res.URL != "" || res.Opened || len(docs) != 0 {
				t.Fatalf("%q opened or handed to the client: result %+v, showDocument %+v", tc.url, res, docs)
			}
			why := tc.why
			if why == "" {
				why = "it is not an https address"
			}
			waitMessage(t, f, "Hermes did not open the sign-in link because "+why+": "+tc.shown+". Open it yourself only if you trust it.")
			for _, m := range f.ed.State().ShowMessages {
				if strings.Contains(m.Message, "did not open") && m.Type != protocol.MessageTypeWarning {
					t.Errorf("the warning is of type %v", m.Type)
				}
			}
		})
	}
}

// TestLoginDeviceCodeHostileURL: a device-code sign-in whose page is not https: is shown as text
// with its code, never opened.
func TestLoginDeviceCodeHostileURL(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	f.fake.SetLoginURL("file:///etc/passwd")
	var res hermesproto.LoginResult
	command(t, f, hermesproto.CmdLogin, map[string]any{"method": hermesproto.LoginDeviceCode}, &res)
	if res.URL != "" || res.Opened || res.UserCode != codextest.FakeUserCode || len(f.ed.ShowDocuments()) != 0 {
		t.Fatalf("result %+v, showDocument %+v", res, f.ed.ShowDocuments())
	}
	waitMessage(t, f, "Hermes did not open the sign-in link because it is not an https address: file:///etc/passwd. Open it yourself only if you trust it. The code to enter there: "+codextest.FakeUserCode+".")
}
