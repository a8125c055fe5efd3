package codex_test

import (
	"os"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/internal/fakemcp"
)

func TestMain(m *testing.M) {
	// The real-codex tests of MCP elicitation run this binary as codex's MCP server.
	fakemcp.Main()
	os.Exit(m.Run())
}
