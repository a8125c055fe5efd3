module github.com/hermes-lsp/hermes-lsp

go 1.26.0

require (
	github.com/adrg/xdg v0.5.3
	github.com/openai/openai-go/v3 v3.102.0
	github.com/sourcegraph/conc v0.3.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
