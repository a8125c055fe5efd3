-- The plugin's features beyond a turn, in a real headless Neovim, driven by neovim_test.go
-- (the features/ subtests of TestNeovimApprovalGatedTurn) on Debian's 0.7.2 and on a 0.11+:
--   :checkhealth hermes (hermes-lsp doctor through vim.health, or the 0.7 health API, and the agent);
--   :Hermes status's agent line; the agent settings as sent (empty objects stay objects);
--   :help hermes through the shipped doc/tags; :Hermes's completion; :Hermes login's handling of the answer;
--   the UTF-16 ranges (make_given_range_params, str_utfindex/str_byteindex);
--   on 0.11+, vim.lsp.enable("hermes") through lsp/hermes.lua (else the plugin's own start), with
--   LspAttach, :Hermes status through the client it started, and the client in the health report.
-- The outcome is a JSON summary written to $HERMES_NVIM_SUMMARY.
local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local getenv, wait_for = harness.getenv, harness.wait_for

local v = vim.version()
local summary = { nvimVersion = string.format("%d.%d.%d", v.major, v.minor, v.patch), notifications = {} }

local function buffer_text(b)
  return table.concat(vim.api.nvim_buf_get_lines(b or 0, 0, -1, false), "\n")
end

local function run()
  local server = getenv("HERMES_NVIM_SERVER")
  local file = getenv("HERMES_NVIM_FILE")

  vim.notify = function(msg, level)
    table.insert(summary.notifications, { message = msg, level = level or vim.NIL })
  end
  local hermes = require("hermes")
  hermes.setup({
    cmd = { server, "--log-file", getenv("HERMES_NVIM_SERVER_LOG"), "--log-level", "debug" },
    settings = vim.json.decode(getenv("HERMES_NVIM_SETTINGS")),
    -- On 0.11+ vim.lsp.enable attaches; on 0.7 the plugin's own autostart does.
    autostart = vim.fn.has("nvim-0.11") == 0,
  })

  summary.enabled = false
  local attached = {}
  if vim.fn.has("nvim-0.8") == 1 then
    vim.api.nvim_create_autocmd("LspAttach", {
      callback = function(args)
        table.insert(attached, args.data.client_id)
      end,
    })
  end
  if vim.fn.has("nvim-0.11") == 1 then
    vim.lsp.enable("hermes")
    summary.enabled = vim.lsp.is_enabled == nil or vim.lsp.is_enabled("hermes")
  end
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for("a hermes client to initialize and attach", 15000, function()
    local cs = hermes.clients()
    return #cs == 1 and cs[1].initialized and vim.lsp.buf_is_attached(bufnr, cs[1].id)
  end)
  local client = hermes.clients()[1]
  summary.clientName = client.name
  summary.rootDir = client.config.root_dir
  summary.lspAttach = #attached > 0 and attached[1] == client.id
  summary.showDocument = client.config.capabilities.window.showDocument.support == true
  summary.turnEventsSetting = client.config.settings.hermes.turnEvents == true

  -- :Hermes status runs through that client (hermes.status names the folder).
  local before = #summary.notifications
  vim.cmd("Hermes status")
  wait_for(":Hermes status", 10000, function()
    for i = before + 1, #summary.notifications do
      if summary.notifications[i].message:find("Hermes " .. summary.rootDir, 1, true) then
        summary.statusMessage = summary.notifications[i].message
        return true
      end
    end
    return false
  end)

  -- The agent settings as the server gets them: an empty env, or an empty agent, stay JSON objects.
  local servers = require("hermes.client")
  local configured = hermes.config.settings
  local acp = { kind = "acp", command = "gemini", args = { "--acp" }, env = {} }
  hermes.config.settings = vim.tbl_extend("force", configured, { agent = acp })
  summary.agentSettings = vim.json.encode(servers.settings().agent)
  hermes.config.settings = vim.tbl_extend("force", configured, { agent = {} })
  summary.emptyAgentSettings = vim.json.encode(servers.settings().agent)
  hermes.config.settings = configured
  -- How :Hermes status and :checkhealth name an agent, and the agent flags of a server command.
  local status = require("hermes.status")
  summary.agentLine = status.agent_line({
    kind = "acp",
    name = "gemini-cli\27[2J\n",
    version = "0.61.0",
    supports = { "threads" },
    lacks = { "compact", "login" },
  })
  summary.codexLine =
    status.agent_line({ kind = "codex", name = "codex", version = "0.171.0", supports = {}, lacks = {} })
  summary.agentFlags = require("hermes.health").agent_flags({
    "hermes-lsp",
    "--log-level",
    "debug",
    "--agent",
    "acp",
    "--agent-command=gemini",
    "-agent-arg",
    "--acp",
    "--stdio",
  })

  -- :checkhealth hermes, with this buffer current (the doctor runs in its folder).
  vim.cmd("checkhealth hermes")
  summary.health = buffer_text()
  vim.cmd("bwipeout!")

  -- :help hermes with the plugin on the runtimepath, as a plugin manager or a plain clone installs
  -- it: through the doc/tags it ships (no :helptags).
  summary.help = {}
  for _, tag in ipairs({
    "hermes",
    "hermes.nvim",
    ":Hermes",
    "hermes-setup",
    "hermes-commands",
    "hermes-config",
    "hermes-health",
    "hermes-lsp-enable",
    "hermes-lazy",
    "hermes-agent",
  }) do
    local ok = pcall(vim.cmd, "help " .. tag)
    summary.help[tag] = ok and vim.fn.expand("%:p") or vim.NIL
    if ok then
      vim.cmd("helpclose")
    end
  end

  -- :Hermes's completion: the subcommands, then their arguments.
  summary.completion = {
    subcommands = vim.fn.getcompletion("Hermes ", "cmdline"),
    approve = vim.fn.getcompletion("Hermes approve ", "cmdline"),
    review = vim.fn.getcompletion("Hermes review ", "cmdline"),
    prefix = vim.fn.getcompletion("Hermes t", "cmdline"),
    alias = vim.fn.getcompletion("HermesApprove s", "cmdline"),
  }

  -- :Hermes login: the method, and what the plugin does with an answer the server did not open.
  local execute = servers.execute
  local logins = {}
  servers.execute = function(c, name, arg, callback)
    if name ~= "hermes.login" then
      return execute(c, name, arg, callback)
    end
    table.insert(logins, arg.method)
    callback(nil, {
      method = arg.method,
      loginId = "l1",
      url = "https://auth.example/device",
      userCode = "ABCD-1234",
      opened = false,
    })
  end
  vim.env.SSH_CONNECTION = "10.0.0.1 22 10.0.0.2 22"
  before = #summary.notifications
  vim.cmd("Hermes login")
  summary.loginMethods = logins
  summary.loginMessage = (summary.notifications[before + 1] or {}).message or vim.NIL
  servers.execute = execute

  -- UTF-16 columns and ranges (x é 😀 y: 1, 1, 2 and 1 code units; 1, 2, 4 and 1 bytes).
  local compat = require("hermes.compat")
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, { "xé😀y", "" })
  summary.utf16 = {
    col = compat.utf16_col("xé😀y", 7), -- after 😀: 4
    byte = compat.byte_col("xé😀y", 4), -- 7
    past = compat.byte_col("xé😀y", 99), -- 8
    chars = compat.range_params(b, 1, 1, 1, 3), -- é..😀: 1 to 4
    line = compat.range_params(b, 1, 0, 1, nil), -- the whole line: 0 to 5
    empty = compat.range_params(b, 2, 0, 2, nil), -- an empty line: 0 to 0
  }

  harness.stop_server(hermes, client)
  summary.serverStopped = true
end

local ok, err = xpcall(run, debug.traceback)
summary.error = not ok and tostring(err) or vim.NIL
local f = assert(io.open(getenv("HERMES_NVIM_SUMMARY"), "w"))
f:write(vim.json.encode(summary))
f:close()
vim.cmd(ok and "qa!" or "cquit 1")
