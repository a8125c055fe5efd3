package lsp_test

import (
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/hermesproto"
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
			command(t, f, lsp.CmdLogin, map[string]any{"method": tc.method}, &res)
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
			command(t, f, lsp.CmdStatus, nil, &st)
			if st.SignedIn == nil || *st.SignedIn || st.Account != nil {
				t.Errorf("status before the sign-in ended: signedIn %v account %+v", st.SignedIn, st.Account)
			}

			f.fake.CompleteLogin(&codex.AccountInfo{Type: "chatgpt", Email: "dev@example.com", PlanType: "plus"}, "")
			waitMessage(t, f, "codex is signed in as dev@example.com (plus)")
			command(t, f, lsp.CmdStatus, nil, &st)
			if st.SignedIn == nil || !*st.SignedIn || st.Account == nil || st.Account.Email != "dev@example.com" {
				t.Errorf("status after the sign-in: signedIn %v account %+v", st.SignedIn, st.Account)
			}

			command(t, f, lsp.CmdLogin, nil, &res)
			if res.AlreadySignedIn == nil || res.AlreadySignedIn.Email != "dev@example.com" || len(f.fake.Logins()) != 1 {
				t.Errorf("a second sign-in: %+v (sign-ins started %v)", res, f.fake.Logins())
			}
		})
	}
}

// TestLoginFailsAndBadMethod: a sign-in codex reports failed says so and how to retry; an unknown
// method is refused with the ones there are.
func TestLoginFailsAndBadMethod(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	if _, err := f.ed.ExecuteCommand(ctx, lsp.CmdLogin, map[string]any{"method": "password"}); err == nil || !strings.Contains(err.Error(), `"deviceCode"`) {
		t.Errorf("unknown method: %v", err)
	}
	var res hermesproto.LoginResult
	command(t, f, lsp.CmdLogin, nil, &res)
	f.fake.CompleteLogin(nil, "the browser closed")
	waitMessage(t, f, "sign-in failed: the browser closed. Run hermes.login again")
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
