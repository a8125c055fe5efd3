package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// Env is what every measurement shares: the binaries, the fake model on loopback and a temporary
// directory for throwaway homes, so that no one's ~/.codex is read or written.
type Env struct {
	Hermes string // bin/hermes-lsp
	Codex  string // the pinned codex app-server binary
	ACP    string // the codex-acp binary, or "" when it is not installed
	// Self is this program's binary: with "app-server" as its first argument it plays a fake codex
	// (see ServeFakeCodex).
	Self  string
	Model *fakemodel.Server
	Tmp   string

	homes int

	mu           sync.Mutex
	modelRequest time.Time // when the fake model last received a /v1/responses request
}

// NewEnv starts the fake model and makes the temporary directory.
func NewEnv(hermes, codexBin, acp, self string) (*Env, error) {
	for _, p := range []string{hermes, codexBin, self} {
		if _, err := os.Stat(p); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "hermes-bench-")
	if err != nil {
		return nil, err
	}
	model, err := fakemodel.Start()
	if err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	e := &Env{Hermes: hermes, Codex: codexBin, ACP: acp, Self: self, Model: model, Tmp: tmp}
	model.SetDefault(func(r fakemodel.Request) fakemodel.Reply {
		e.mu.Lock()
		e.modelRequest = time.Now()
		e.mu.Unlock()
		return fakemodel.DefaultReply(r)
	})
	return e, nil
}

// LastModelRequest is when the fake model last received a model request (its body read whole).
// With one turn running at a time, less the turn's Began it is how long the client and codex took
// before asking the model.
func (e *Env) LastModelRequest() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.modelRequest
}

// Close stops the fake model and removes the temporary directory.
func (e *Env) Close() error {
	err := e.Model.Close()
	if rerr := os.RemoveAll(e.Tmp); err == nil {
		err = rerr
	}
	return err
}

// Home is a throwaway user: HOME, CODEX_HOME (whose config.toml points codex at the fake model), a
// workspace folder and a hermes state dir.
type Home struct {
	Home, CodexHome, Work, State string
}

// NewHome makes a fresh Home under the temporary directory.
func (e *Env) NewHome(name string) (Home, error) {
	e.homes++
	root := filepath.Join(e.Tmp, fmt.Sprintf("%02d-%s", e.homes, name))
	h := Home{
		Home:      root,
		CodexHome: filepath.Join(root, ".codex"),
		Work:      filepath.Join(root, "project"),
		State:     filepath.Join(root, "state"),
	}
	for _, d := range []string{h.CodexHome, h.Work, h.State} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return h, err
		}
	}
	if err := os.WriteFile(filepath.Join(h.Work, "README.md"), []byte("# project\n"), 0o644); err != nil {
		return h, err
	}
	// hermes-lsp refuses model providers in its codex.args setting, so the codex it starts finds the
	// fake model in CODEX_HOME/config.toml. The bare clients and codex-acp read it too; they may also
	// get the same values as -c options (ConfigArgs), which changes nothing.
	if err := e.Model.WriteCodexConfig(h.CodexHome); err != nil {
		return h, err
	}
	return h, nil
}

// CodexEnv is the environment codex (or codex-acp) gets on top of this process's: the throwaway
// HOME, and no API key, so only the fake model is ever asked.
func (h Home) CodexEnv() map[string]string {
	return map[string]string{"HOME": h.Home, "OPENAI_API_KEY": "", "CODEX_API_KEY": ""}
}

// ConfigArgs turns -c values into arguments: "-c", kv, ... They are for the clients that start codex
// themselves (the bare client, codex-acp), never for hermes-lsp's settings: hermes-lsp refuses most
// -c keys there, model providers included.
func ConfigArgs(values []string) []string {
	out := make([]string, 0, 2*len(values))
	for _, kv := range values {
		out = append(out, "-c", kv)
	}
	return out
}
