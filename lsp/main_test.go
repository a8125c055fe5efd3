package lsp_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemcp"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

func TestMain(m *testing.M) {
	// The real-codex test of codex's questions runs this binary as codex's MCP server.
	fakemcp.Main()
	// The ACP tests run this binary as an agent of their own.
	acptest.Main(acpScripts)
	// testbin removes the server binary the process tests build once they have all run.
	goleak.VerifyTestMain(testbin.Managed(m))
}
