# hermes-lsp — build, test and tool targets. `make test` is the test command CI runs.

GO       ?= go
# The pinned codex lives in tools/codex/package.json (and its lock file): the one place its version is named.
CODEX_DIR := tools/codex
CODEX_BIN := $(CODEX_DIR)/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex
# Tests find the pinned binary through this variable (see codex.PinnedBinary).
export HERMES_CODEX_BIN := $(abspath $(CODEX_BIN))
# Microsoft's LSP client libraries (tools/nodeclient/package.json and its lock file), for the Node
# client test (lsp/nodeclient_test.go); npm ci writes the stamp below into node_modules.
NODECLIENT_DIR   := tools/nodeclient
NODECLIENT_STAMP := $(NODECLIENT_DIR)/node_modules/.package-lock.json

TEST_FLAGS ?= -race -count=1 -timeout 15m

.PHONY: all build test test-short lint tools clean

all: build

build:
	$(GO) build -o bin/hermes-lsp ./cmd/hermes-lsp

## tools: install the pinned codex from npm into tools/codex/node_modules, and the Node LSP client
## libraries into tools/nodeclient/node_modules, when missing or older than their lock files.
tools: $(CODEX_BIN) $(NODECLIENT_STAMP)

$(CODEX_BIN): $(CODEX_DIR)/package.json $(CODEX_DIR)/package-lock.json
	cd $(CODEX_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@test -x $(CODEX_BIN) || { echo "codex binary missing after npm ci: $(CODEX_BIN)"; exit 1; }
	@touch $(CODEX_BIN)

$(NODECLIENT_STAMP): $(NODECLIENT_DIR)/package.json $(NODECLIENT_DIR)/package-lock.json
	cd $(NODECLIENT_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@test -f $(NODECLIENT_STAMP) || { echo "npm ci left no $(NODECLIENT_STAMP)"; exit 1; }
	@touch $(NODECLIENT_STAMP)

## test: every test, including the ones against the real pinned codex.
test: tools lint
	$(GO) test $(TEST_FLAGS) ./...

## test-short: the fast layer only (skips the real-codex tests).
test-short:
	$(GO) test -short $(TEST_FLAGS) ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null; git ls-files --others --exclude-standard '*.go' 2>/dev/null)); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@! grep -q 'go.lsp.dev/jsonrpc2 v1' go.mod || { echo "go.lsp.dev/jsonrpc2 must stay at v0.10.0 (protocol v0.12.0 does not build against v1)"; exit 1; }

clean:
	rm -rf bin $(CODEX_DIR)/node_modules
