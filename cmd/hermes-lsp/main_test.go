package main

import (
	"os"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m))
}
