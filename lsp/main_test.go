package lsp_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

func TestMain(m *testing.M) {
	// testbin removes the server binary the process tests build once they have all run.
	goleak.VerifyTestMain(testbin.Managed(m))
}
