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

# The other supported codex releases that make test-compat tests (see codex/version.go for the range
# and its known problems): one folder each under tools/codex-compat, named by the release, with its
# package.json and lock file; installed like the pin, into the folder's git-ignored node_modules.
COMPAT_DIR      := tools/codex-compat
COMPAT_VERSIONS := $(sort $(notdir $(wildcard $(COMPAT_DIR)/*)))
compat_bin       = $(COMPAT_DIR)/$(1)/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex
# The releases whose schema codex/schema keeps besides the pin's (codex/schema/<release>/: the oldest
# supported release's, which the fake app-server checks what hermes-lsp sends against).
SCHEMA_BUNDLE   := codex_app_server_protocol.schemas.json
SCHEMA_VERSIONS := $(sort $(notdir $(patsubst %/,%,$(dir $(wildcard codex/schema/*/$(SCHEMA_BUNDLE))))))

.PHONY: all build test test-short test-compat lint cross tools clean

all: build

build:
	$(GO) build -o bin/hermes-lsp ./cmd/hermes-lsp
	$(GO) build -o bin/hermes-demo ./cmd/hermes-demo

## tools: install the pinned codex from npm into tools/codex/node_modules, and the Node LSP client
## libraries into tools/nodeclient/node_modules, when missing or older than their lock files; and
## Neovim (0.7 or later, for the plugin's test) and Emacs with lsp-mode and eglot (the Emacs client's
## test) through apt when missing (tools/need-debian.sh).
tools: $(CODEX_BIN) $(NODECLIENT_STAMP) nvim nvim11 nvim010 emacs

.PHONY: nvim nvim11 nvim010 emacs
# Emacs with lsp-mode and eglot, for editors/emacs's test (Debian's packages).
emacs:
	@bash tools/need-debian.sh emacs emacs-nox elpa-lsp-mode elpa-eglot
	@bash tools/need-debian.sh '/usr/share/emacs/site-lisp/elpa/lsp-mode-*' elpa-lsp-mode elpa-eglot
	@bash tools/need-debian.sh '/usr/share/emacs/site-lisp/elpa/eglot-*' elpa-eglot
nvim:
	@bash tools/need-debian.sh nvim neovim
# A Neovim 0.11+ for the plugin test's vim.lsp.enable part (Debian forky's, with its own glibc, into
# the git-ignored tools/neovim; nothing to do when it is there).
nvim11:
	@bash editors/neovim/fetch-nvim.sh >/dev/null
# Neovim 0.10 (Debian trixie's), whose inlay hints the plugin's test checks apart (git-ignored
# tools/neovim-0.10).
nvim010:
	@bash editors/neovim/fetch-nvim.sh trixie tools/neovim-0.10 >/dev/null

$(CODEX_BIN): $(CODEX_DIR)/package.json $(CODEX_DIR)/package-lock.json
	cd $(CODEX_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@test -x $(CODEX_BIN) || { echo "codex binary missing after npm ci: $(CODEX_BIN)"; exit 1; }
	@touch $(CODEX_BIN)

$(COMPAT_DIR)/%/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex: $(COMPAT_DIR)/%/package.json $(COMPAT_DIR)/%/package-lock.json
	cd $(COMPAT_DIR)/$* && npm ci --no-audit --no-fund --loglevel=error
	@test -x $@ || { echo "codex binary missing after npm ci: $@"; exit 1; }
	@touch $@

$(NODECLIENT_STAMP): $(NODECLIENT_DIR)/package.json $(NODECLIENT_DIR)/package-lock.json
	cd $(NODECLIENT_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@test -f $(NODECLIENT_STAMP) || { echo "npm ci left no $(NODECLIENT_STAMP)"; exit 1; }
	@touch $(NODECLIENT_STAMP)

## test: every test, including the ones against the real pinned codex, after lint and the cross builds.
test: tools lint cross
	$(GO) test $(TEST_FLAGS) ./...

## test-compat: the real-codex tests on each other supported codex release (COMPAT_VERSIONS, from
## tools/codex-compat; the pin's run in make test), installed from npm like the pin, with
## HERMES_CODEX_BIN pointing at it. The tests are those of codex, agenthost, lsp, cmd and internal
## that run codex (internal/cmd/realtests finds them); a test that cannot pass on a release says why
## and skips itself (codextest.Real's RequirePinned, SkipIfKnown). The editors' end-to-end tests stay
## on the pin: what differs between releases is codex's protocol, which the lsp tests' Node client
## drives the same way.
test-compat: $(foreach v,$(COMPAT_VERSIONS),$(call compat_bin,$(v))) $(NODECLIENT_STAMP)
	@tests=$$($(GO) run ./internal/cmd/realtests codex agenthost lsp cmd internal) && \
	for v in $(COMPAT_VERSIONS); do \
	  echo "test-compat: codex $$v"; \
	  HERMES_CODEX_BIN=$(abspath $(COMPAT_DIR))/$$v/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex \
	    $(GO) test $(TEST_FLAGS) -run "$$tests" ./codex/... ./agenthost/... ./lsp/... ./cmd/... ./internal/... || exit 1; \
	done

## test-short: the fast layer only (skips the real-codex tests).
test-short:
	$(GO) test -short $(TEST_FLAGS) ./...

## lint: the Go checks (lint-go) and the editors' (lint-editors: eslint and prettier for the VS Code
## extension, luacheck and stylua for the Neovim plugin, byte-compile and checkdoc for the Emacs client).
lint: lint-go lint-editors

## lint-go: gofmt, go vet (and of internal/agentstest's agents-tagged tests), the file boundary (internal/cmd/lintfiles: the server's code outside
## package workspace touches no file by name unless it is marked //hermes:ownfile <why>), and the
## jsonrpc2 pin.
.PHONY: lint-go lint-editors
lint-go:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null; git ls-files --others --exclude-standard '*.go' 2>/dev/null)); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags agents ./internal/agentstest/ ./lsp/
	$(GO) run ./internal/cmd/lintfiles ./cmd/hermes-lsp
	@! grep -q 'go.lsp.dev/jsonrpc2 v1' go.mod || { echo "go.lsp.dev/jsonrpc2 must stay at v0.10.0 (protocol v0.12.0 does not build against v1)"; exit 1; }

## cross: build and vet everything (vet compiles the tests too, with the Helix, screenshot and agents tags) for
## the systems this machine does not run: macOS and Windows on amd64 and arm64, Linux on arm64. Only
## Linux/amd64 runs the tests; the others are checked to build. The builds share the build cache.
CROSS_TARGETS := darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 linux/arm64

cross:
	@for t in $(CROSS_TARGETS); do \
	  echo "cross: $$t"; \
	  export GOOS=$${t%/*} GOARCH=$${t#*/}; \
	  $(GO) build ./... && $(GO) vet ./... && $(GO) vet -tags helix ./editors/helix/ && $(GO) vet -tags screenshot ./editors/neovim/ && $(GO) vet -tags agents ./internal/agentstest/ ./lsp/ || exit 1; \
	done

clean:
	rm -rf bin $(CODEX_DIR)/node_modules $(COMPAT_DIR)/*/node_modules tools/agents/node_modules tools/agents-claude/node_modules

## demo: one agent turn in the terminal (`bin/hermes-demo`): a real hermes-lsp server, driven over LSP by
## the binary's own terminal client, on the pinned codex, in a temporary copy of examples/calc. It uses an
## offline scripted model on loopback unless there are OpenAI credentials (`codex login` or OPENAI_API_KEY)
## and a prompt: `make demo PROMPT="..."`. With no terminal on stdin (CI) every approval is answered
## "Allow once". More flags in DEMO_FLAGS (see `bin/hermes-demo -h`), e.g. DEMO_FLAGS=--keep.
.PHONY: demo
demo: build $(CODEX_BIN)
	bin/hermes-demo $(DEMO_FLAGS)

# --- editors/vscode: the VS Code extension (see editors/vscode/README.md) ----------------------------
## vscode: the extension's npm packages (editors/vscode/package-lock.json), its unit tests (node --test)
## and its package editors/vscode/hermes-lsp-<version>.vsix (type-check + esbuild bundle + @vscode/vsce).
## e2e-vscode: that, then the real-editor test (editors/vscode/e2e_test.go): code-server 4.139.1 in
## headless Debian chromium (puppeteer-core) with the .vsix, the built server and the pinned codex against
## the fake model. editors/vscode/e2e/setup.sh installs chromium, libkrb5-dev and pkg-config (apt), Node 24,
## code-server and puppeteer-core (npm, into the git-ignored editors/vscode/.e2e; about 5 minutes the first
## time). Screenshots of each step go to artifacts/vscode/.
VSCODE_DIR   := editors/vscode
VSCODE_STAMP := $(VSCODE_DIR)/node_modules/.package-lock.json

.PHONY: vscode e2e-vscode

$(VSCODE_STAMP): $(VSCODE_DIR)/package.json $(VSCODE_DIR)/package-lock.json
	cd $(VSCODE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@test -f $(VSCODE_STAMP) || { echo "npm ci left no $(VSCODE_STAMP)"; exit 1; }
	@touch $(VSCODE_STAMP)

vscode: $(VSCODE_STAMP)
	cd $(VSCODE_DIR) && npm test && npm run package

DIST_VSIX = dist/hermes-lsp-linux-x64-$(VERSION).vsix
e2e-vscode: $(CODEX_BIN) vscode
	@test -f $(DIST_VSIX) || $(MAKE) --no-print-directory dist
	bash $(VSCODE_DIR)/e2e/setup.sh >/dev/null
	HERMES_VSCODE_VSIX=$(abspath $(DIST_VSIX)) HERMES_E2E_VSCODE=1 $(GO) test -count=1 -timeout 20m -v -run TestVSCodeExtensionInCodeServer ./$(VSCODE_DIR)/
# --- end of editors/vscode ---------------------------------------------------------------------------

# --- dist: what users install ------------------------------------------------------------------------
## dist: hermes-lsp for linux, darwin and windows on amd64 and arm64 into dist/ (with dist/SHA256SUMS),
## and a VS Code package per platform (dist/hermes-lsp-<target>-<version>.vsix, `vsce package --target`)
## that bundles the matching server binary (tools/dist.sh). VERSION defaults to the extension's.
VERSION ?= $(shell node -p "require('./$(VSCODE_DIR)/package.json').version")
.PHONY: dist
dist: $(VSCODE_STAMP)
	GO=$(GO) bash tools/dist.sh $(VERSION)
# --- end of dist -------------------------------------------------------------------------------------

# --- fault suite: fuzzing (docs/benchmarks.md) -------------------------------------------------------
## fuzz: the Go fuzz targets, each for FUZZTIME (default 20s): FuzzConnDecode (codex's JSON-lines
## decoder: codex/conn_fuzz_test.go), FuzzAskArgs (hermes.ask's and the other commands' arguments and
## URIs: lsp/commands_fuzz_test.go) and FuzzFraming (the bounded LSP base-protocol stream's reading of
## arbitrary input: lsp/framing/framing_fuzz_test.go) and FuzzReviewText (codex's rendered review,
## the model's text, parsed into bounded, clean findings: codex/review_test.go). Their seed corpora already run in `make test` as
## ordinary tests; a failing input is written to the package's testdata/fuzz/ for `go test` to replay.
## tools/fuzz.sh runs each: it fails on a finding, not on Go's fuzzing deadline race (see the script).
FUZZTIME ?= 20s
.PHONY: fuzz
fuzz:
	GO=$(GO) bash tools/fuzz.sh FuzzConnDecode ./codex $(FUZZTIME)
	GO=$(GO) bash tools/fuzz.sh FuzzAskArgs ./lsp $(FUZZTIME)
	GO=$(GO) bash tools/fuzz.sh FuzzFraming ./lsp/framing $(FUZZTIME)
	GO=$(GO) bash tools/fuzz.sh FuzzReviewText ./codex $(FUZZTIME)
# --- end of fault suite: fuzzing ---------------------------------------------------------------------

# --- editors/neovim and editors/helix ----------------------------------------------------------------
## test-neovim: the Neovim plugin's end-to-end test alone (it is also part of `make test`): headless nvim
## (Debian's 0.7.2 in CI; make installs it when missing; with 0.12 and 0.10 from Debian forky and trixie) through the plugin's commands, the real codex, the fake model.
## test-helix: the Helix test (editors/helix/helix_test.go, build tag helix) in Helix 25.01 and 25.07:
## Debian trixie's and sid's hx, which editors/helix/fetch-hx.sh downloads from Debian's archive into
## the git-ignored tools/helix/<suite> (with their glibc: Helix is not in bookworm). HX=/path/to/hx
## runs it in that Helix only.
.PHONY: test-neovim test-helix
test-neovim: $(CODEX_BIN) nvim nvim11 nvim010
	$(GO) test -count=1 -timeout 5m -v -run TestNeovim ./editors/neovim/

HELIX_SUITES := trixie sid
test-helix: $(CODEX_BIN)
	@bash tools/need-debian.sh tmux tmux
	@if [ -n "$(HX)" ]; then \
	  HERMES_HX="$(HX)" $(GO) test -tags helix -count=1 -timeout 5m -v -run TestHelix ./editors/helix/; \
	else \
	  for s in $(HELIX_SUITES); do \
	    bash editors/helix/fetch-hx.sh $$s tools/helix/$$s && \
	    HERMES_HX="$(abspath tools/helix)/$$s/hx" $(GO) test -tags helix -count=1 -timeout 5m -v -run TestHelix ./editors/helix/ || exit 1; \
	  done; \
	fi

## screenshots: docs/images' pictures of the editors: Helix 25.07's hover on an instruction line (the
## Helix test) and Neovim's Hermes buffer with its input area (editors/neovim/screenshot_test.go,
## build tag screenshot), screens captured through tmux and drawn by headless Chromium
## (tools/termshot). VS Code's chat view is taken by make e2e-vscode.
SHOTS := $(abspath artifacts/screens)
.PHONY: screenshots
screenshots: $(CODEX_BIN)
	mkdir -p $(SHOTS) docs/images
	bash editors/helix/fetch-hx.sh sid tools/helix/sid
	HERMES_SCREENSHOTS=$(SHOTS) HERMES_HX="$(abspath tools/helix)/sid/hx" $(GO) test -tags helix -count=1 -timeout 5m -run TestHelix ./editors/helix/
	HERMES_SCREENSHOTS=$(SHOTS) $(GO) test -tags screenshot -count=1 -timeout 5m -run TestNeovimScreenshot ./editors/neovim/
	node tools/termshot/termshot.mjs --in $(SHOTS)/helix-hover.ansi --out docs/images/helix-hover.png --cols 160 --rows 45
	node tools/termshot/termshot.mjs --in $(SHOTS)/neovim-chat.ansi --out docs/images/neovim-chat.png --cols 120 --rows 44
# --- end of editors/neovim and editors/helix ---------------------------------------------------------

# --- lint-editors: the editors' own code -------------------------------------------------------------
## lint-editors: the linters and formatters of the editors' code, each with its settings beside the
## code. VS Code (editors/vscode): ESLint with typescript-eslint's type-checked rules
## (eslint.config.mjs; it also forbids state at module scope) and prettier --check (.prettierrc),
## both pinned in the extension's package.json. Neovim (editors/neovim): luacheck (.luacheckrc;
## Debian's lua-check, through tools/need-debian.sh) and stylua --check (stylua.toml; pinned in
## tools/stylua/package.json, whose npm package carries the binary, installed into the git-ignored
## tools/stylua/node_modules). Emacs (editors/emacs/hermes-lsp.el): byte-compiled with every warning
## an error, then checkdoc, in Emacs batch with Debian's lsp-mode and eglot (editors/emacs/test/lint.el).
## `npx prettier --write .` in editors/vscode and `tools/stylua/node_modules/.bin/stylua editors/neovim`
## fix the formatting.
STYLUA_DIR   := tools/stylua
STYLUA_BIN   := $(STYLUA_DIR)/node_modules/.bin/stylua
STYLUA_STAMP := $(STYLUA_DIR)/node_modules/.package-lock.json
.PHONY: lint-editors luacheck

$(STYLUA_STAMP): $(STYLUA_DIR)/package.json $(STYLUA_DIR)/package-lock.json
	cd $(STYLUA_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@test -x $(STYLUA_BIN) || { echo "stylua missing after npm ci: $(STYLUA_BIN)"; exit 1; }
	@touch $(STYLUA_STAMP)

luacheck:
	@bash tools/need-debian.sh luacheck lua-check

lint-editors: $(VSCODE_STAMP) $(STYLUA_STAMP) luacheck emacs
	cd $(VSCODE_DIR) && node_modules/.bin/eslint --max-warnings 0 . && node_modules/.bin/prettier --check --log-level warn .
	cd editors/neovim && luacheck --no-color --quiet . && $(abspath $(STYLUA_BIN)) --check .
	emacs --batch -Q -l editors/emacs/test/lint.el editors/emacs/hermes-lsp.el
# --- end of lint-editors -----------------------------------------------------------------------------

# --- bench: benchmarks (docs/benchmarks.md) ----------------------------------------------------------
## bench: hermes-lsp against a bare codex app-server client (no host) and against codex-acp, an event
## flood from a fake codex, and startup; all offline, on the fake model on loopback. Prints a markdown
## table (docs/benchmarks.md keeps a run, with its machine and date). codex-acp is pinned in
## bench/acp/package.json (and its lock file) and installed into the git-ignored bench/acp/node_modules;
## if that fails, its rows say blocked. BENCH_FLAGS go to the program (go run ./bench/cmd/hermes-bench -h).
## Then the Go benchmarks of the hot paths (decoding codex's notifications, a turn through the host and
## the server, a document edit, a folder's resolution), with their allocations; GOBENCH_FLAGS go to go test.
GOBENCH_PKGS  := ./codex ./agenthost ./agenthost/acpagent ./lsp ./lsp/framing ./bench ./workspace ./internal/stackhint
GOBENCH_FLAGS ?= -benchtime 1s
ACP_DIR   := bench/acp
ACP_STAMP := $(ACP_DIR)/node_modules/.package-lock.json
ACP_BIN   := $(ACP_DIR)/node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp
.PHONY: bench

$(ACP_STAMP): $(ACP_DIR)/package.json $(ACP_DIR)/package-lock.json
	cd $(ACP_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@test -x $(ACP_BIN) || { echo "codex-acp binary missing after npm ci: $(ACP_BIN)"; exit 1; }
	@touch $(ACP_STAMP)

bench: build $(CODEX_BIN)
	@$(MAKE) --no-print-directory $(ACP_STAMP) || echo "bench: codex-acp could not be installed; its rows will say blocked"
	$(GO) run ./bench/cmd/hermes-bench -hermes bin/hermes-lsp -codex $(CODEX_BIN) -acp $(ACP_BIN) $(BENCH_FLAGS)
	$(GO) test -run '^$$' -bench . -benchmem $(GOBENCH_FLAGS) $(GOBENCH_PKGS)
# --- end of bench ------------------------------------------------------------------------------------

# --- test-agents: real ACP agents, offline (internal/agentstest) ------------------------------------
## test-agents: real Agent Client Protocol agents, each run end to end against its fake model,
## offline (build tag agents): over raw ACP (internal/agentstest's TestAgents: initialize,
## session/new, a plain answer, an edit of a file asking permission, stopReason end_turn), as the host
## runs them (TestAgentsThroughACPAgent) and through the whole server with a fake editor
## (lsp's TestAgentsInTheEditor: the ask, the edit approved in the editor, hermes.status naming the
## agent, the edit undone from the host's checkpoint, compaction refused in words): codex-acp
## (@agentclientprotocol/codex-acp, which runs its own codex app-server, with CODEX_HOME pointing it at
## internal/fakemodel) and Gemini CLI (`gemini --acp` reading canned responses: --fake-responses-non-strict).
## They are pinned in tools/agents/package.json (and its lock file) and installed from npm into the
## git-ignored tools/agents/node_modules (about 560 MB, 15 s), so they are not part of make test.
## test-agents-claude: the same for Claude's adapter (@agentclientprotocol/claude-agent-acp, which
## brings Claude Code's own binary) against internal/fakemodel's Messages API (ANTHROPIC_BASE_URL):
## pinned in tools/agents-claude (about 400 MB more, under Claude Code's own license), opt-in.
AGENTS_DIR          := tools/agents
AGENTS_STAMP        := $(AGENTS_DIR)/node_modules/.package-lock.json
AGENTS_CLAUDE_DIR   := tools/agents-claude
AGENTS_CLAUDE_STAMP := $(AGENTS_CLAUDE_DIR)/node_modules/.package-lock.json
AGENTS_TEST         := $(GO) test -tags agents $(TEST_FLAGS) -v ./internal/agentstest/ ./lsp/
.PHONY: test-agents test-agents-claude

$(AGENTS_STAMP): $(AGENTS_DIR)/package.json $(AGENTS_DIR)/package-lock.json
	cd $(AGENTS_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@for b in codex-acp gemini; do test -x $(AGENTS_DIR)/node_modules/.bin/$$b || { echo "$$b missing after npm ci in $(AGENTS_DIR)"; exit 1; }; done
	@touch $(AGENTS_STAMP)

$(AGENTS_CLAUDE_STAMP): $(AGENTS_CLAUDE_DIR)/package.json $(AGENTS_CLAUDE_DIR)/package-lock.json
	cd $(AGENTS_CLAUDE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@test -x $(AGENTS_CLAUDE_DIR)/node_modules/.bin/claude-agent-acp || { echo "claude-agent-acp missing after npm ci in $(AGENTS_CLAUDE_DIR)"; exit 1; }
	@touch $(AGENTS_CLAUDE_STAMP)

test-agents: $(AGENTS_STAMP)
	HERMES_AGENTS_REQUIRE=codex-acp,gemini $(AGENTS_TEST) -run 'TestAgents[A-Za-z]*/(codex-acp|gemini)$$'

test-agents-claude: $(AGENTS_CLAUDE_STAMP)
	HERMES_AGENTS_REQUIRE=claude $(AGENTS_TEST) -run 'TestAgents[A-Za-z]*/claude$$'
# --- end of test-agents ------------------------------------------------------------------------------

# --- generate: the protocols' types -------------------------------------------------------------------
## generate: (1) codex/schema from the pinned codex (`codex app-server generate-json-schema`), and
## codex/schema/<release>/ from that release's tools/codex-compat install (the oldest supported), (2)
## codex/protocol_gen.go from it with go-jsonschema (codex/internal/protogen), (3)
## editors/vscode/src/hermesproto_{commands,events,questions,changes}.ts from the Go package hermesproto with tygo (configured by
## hermesproto/tygo*.yaml), (4) acp/schema/schema.json from the npm package acp/schema/VERSION names
## (`npm pack`: ACP's stable v1 schema) and acp/protocol_gen.go from it (acp/internal/protogen). Both
## generators are pinned by tool directives in go.mod. Run it after moving codex's pin or its oldest
## supported release, changing hermesproto, or moving ACP's schema: TestSchemaMatchesCodex,
## TestGeneratedGoIsCurrent (codex's and acp's) and TestGeneratedTypeScript (all in `make test`) fail
## until you do.
.PHONY: generate
generate: $(CODEX_BIN) $(foreach v,$(SCHEMA_VERSIONS),$(call compat_bin,$(v)))
	@tmp=$$(mktemp -d) && $(CODEX_BIN) app-server generate-json-schema --out $$tmp >/dev/null && \
	  cp $$tmp/$(SCHEMA_BUNDLE) codex/schema/ && rm -rf $$tmp
	@for v in $(SCHEMA_VERSIONS); do \
	  tmp=$$(mktemp -d) && $(call compat_bin,$$v) app-server generate-json-schema --out $$tmp >/dev/null && \
	  cp $$tmp/$(SCHEMA_BUNDLE) codex/schema/$$v/ && rm -rf $$tmp || exit 1; \
	done
	$(GO) run ./codex/internal/protogen
	$(GO) tool tygo generate --config hermesproto/tygo.yaml
	$(GO) tool tygo generate --config hermesproto/tygo-events.yaml
	$(GO) tool tygo generate --config hermesproto/tygo-questions.yaml
	$(GO) tool tygo generate --config hermesproto/tygo-changes.yaml
	$(GO) run ./editors/helix/genlanguages
	@tmp=$$(mktemp -d) && read pkg version file < acp/schema/VERSION && \
	  (cd $$tmp && npm pack --silent "$$pkg@$$version" >/dev/null && tar xzf ./*.tgz) && \
	  cp "$$tmp/package/$$file" acp/schema/schema.json && rm -rf $$tmp
	$(GO) run ./acp/internal/protogen
# --- end of generate ---------------------------------------------------------------------------------
