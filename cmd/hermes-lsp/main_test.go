package main

import (
	"os"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

func TestMain(m *testing.M) {
	// TestDoctorACPAgent runs this binary as an ACP agent.
	acptest.Main(map[string]acptest.Script{"doctor": {Config: acptest.Config{Name: "doctor-agent", Version: "2.0.0", List: true, LoadSession: true}}})
	os.Exit(testbin.Main(m))
}
