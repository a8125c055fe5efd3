module github.com/hermes-lsp/hermes-lsp

go 1.26

require github.com/sourcegraph/conc v0.3.0
