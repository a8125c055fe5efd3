-- :checkhealth hermes: runs `hermes-lsp doctor --json` (the binary of the configured server command)
-- with the settings the plugin would send (codex.path and the agent among them) and the agent flags
-- of that command, in the current buffer's folder, and reports each check; then the agent, the
-- attached hermes clients and the plugin's configuration.
local M = {}

-- The health API: vim.health.start/ok/... from 0.9 on (the report_* names are deprecated in 0.10),
-- require("health").report_* on 0.7 and 0.8.
local function api()
  local h = vim.health
  if h and h.start then
    return h
  end
  local old = (h and h.report_start) and h or require("health")
  -- A nil advice must not reach health#report_warn as v:null.
  local function with_advice(f)
    return function(msg, advice)
      if advice then
        return f(msg, advice)
      end
      return f(msg)
    end
  end
  return {
    start = old.report_start,
    ok = old.report_ok,
    warn = with_advice(old.report_warn),
    error = with_advice(old.report_error),
    info = old.report_info,
  }
end

M.timeout_ms = 40000 -- doctor gives codex 30 s to start and answer

local function plugin()
  return require("hermes")
end

-- folder is where the doctor runs: the root of the current buffer's client, else the folder the
-- plugin would choose for the buffer's file, else the current directory.
local function folder()
  local client = require("hermes.client")
  local bufnr = vim.api.nvim_get_current_buf()
  local f = client.folder_of(bufnr)
  if f then
    return f
  end
  if client.is_file_buffer(bufnr) then
    local path = vim.api.nvim_buf_get_name(bufnr)
    local ok, root = pcall(plugin().config.root_dir or client.find_root, bufnr, path)
    if ok and root and vim.fn.isdirectory(root) == 1 then
      return root
    end
  end
  return vim.fn.getcwd()
end

-- agent_flags are the flags of the server command (cmd) that name the agent (--agent,
-- --agent-command, --agent-arg, each as `--flag VALUE` or `--flag=VALUE`, one dash or two), which
-- the doctor takes as the server does: they win over the settings.
function M.agent_flags(cmd)
  local out, i = {}, 2
  while i <= #cmd do
    local a = cmd[i]
    local name, value = tostring(a):match("^%-%-?([%w-]+)=(.*)$")
    name = name or tostring(a):match("^%-%-?([%w-]+)$")
    if name == "agent" or name == "agent-command" or name == "agent-arg" then
      table.insert(out, a)
      if value == nil and cmd[i + 1] ~= nil then
        table.insert(out, cmd[i + 1])
        i = i + 1
      end
    end
    i = i + 1
  end
  return out
end

-- doctor runs the server's doctor: the decoded report, or nil and why not.
function M.doctor(bin, dir)
  local settings = require("hermes.client").settings()
  local file = vim.fn.tempname() .. ".json"
  vim.fn.writefile({ vim.json.encode(settings) }, file)
  -- The settings file carries codex.path and the agent too (no --codex): the report then names the
  -- editor's settings as their source, as it is for the server the plugin starts; the agent flags of
  -- the server command go with it, as they do to the server.
  local argv = { bin, "doctor", "--json" }
  vim.list_extend(argv, M.agent_flags(plugin().config.cmd))
  vim.list_extend(argv, { "--settings", file, dir })
  local out, code, stderr = require("hermes.compat").run(argv, dir, plugin().config.cmd_env, M.timeout_ms)
  os.remove(file)
  if code == nil then
    return nil, string.format("`%s` did not finish in %d s", table.concat(argv, " "), M.timeout_ms / 1000)
  end
  local ok, report = pcall(vim.json.decode, out)
  if not ok or type(report) ~= "table" or type(report.checks) ~= "table" then
    -- A hermes-lsp without the doctor (before it existed) says so on stderr.
    return nil,
      string.format(
        "`%s` exited %s without a report: %s",
        table.concat(argv, " "),
        tostring(code),
        vim.trim(stderr ~= "" and stderr or out)
      )
  end
  return report
end

local function fix_of(c)
  return (type(c.fix) == "string" and c.fix ~= "") and { c.fix } or nil
end

local function report_checks(h, report)
  for _, c in ipairs(report.checks) do
    local msg = string.format("%s: %s", tostring(c.name), tostring(c.detail or ""))
    if c.status == "OK" then
      h.ok(msg)
    elseif c.status == "WARN" then
      h.warn(msg, fix_of(c))
    else
      h.error(msg, fix_of(c))
    end
  end
end

local function value_text(v)
  if type(v) == "table" then
    return vim.json.encode(v)
  end
  return tostring(v)
end

local function report_clients(h)
  h.start("hermes: attached clients")
  local clients = require("hermes.client").clients()
  if #clients == 0 then
    h.info("no hermes-lsp client is running (open a file of a folder, or :Hermes status)")
  end
  for _, c in ipairs(clients) do
    local bufs = 0
    for _ in pairs(c.attached_buffers or {}) do
      bufs = bufs + 1
    end
    h.ok(
      string.format(
        "%s (id %d): root %s, %d buffer(s)%s",
        c.name,
        c.id,
        tostring(c.config.root_dir),
        bufs,
        c.initialized and "" or ", initializing"
      )
    )
  end
end

-- report_agent reports the agent each running server says runs its turns (hermes.status's agent),
-- or, with no server running, the agent the settings name.
local function report_agent(h)
  h.start("hermes: agent")
  local client = require("hermes.client")
  local clients = client.clients()
  if #clients == 0 then
    local agent = client.settings().agent
    local kind = type(agent) == "table" and agent.kind or nil
    local flags = M.agent_flags(plugin().config.cmd)
    if #flags > 0 then
      h.info("the server command names it: " .. table.concat(flags, " ") .. "; no server is running to say more")
    elseif kind == nil or kind == "" or kind == "codex" then
      h.info("codex (agent.kind); no server is running to say more")
    else
      h.info(
        string.format(
          "%s agent %s %s (agent.kind, agent.command, agent.args); no server is running to say more",
          tostring(kind):upper(),
          tostring(agent.command),
          vim.json.encode(agent.args or {})
        )
      )
    end
    return
  end
  local status = require("hermes.status")
  for _, c in ipairs(clients) do
    local params = { command = client.command_name("hermes.status") }
    local ok, r =
      pcall(require("hermes.compat").client_call, c, "request_sync", "workspace/executeCommand", params, 5000)
    local agent = ok and type(r) == "table" and type(r.result) == "table" and r.result.agent or nil
    local line = status.agent_line(agent)
    local root = tostring(c.config.root_dir)
    if not line then
      local why = not ok and tostring(r) or (type(r) == "table" and r.err and tostring(r.err.message)) or "no answer"
      h.warn(root .. ": hermes.status named no agent: " .. why)
    else
      h.ok(root .. ": " .. line)
      if agent.kind ~= "codex" and type(agent.lacks) == "table" and #agent.lacks > 0 then
        h.info("a command of a feature the agent lacks is refused, with what to do instead")
      end
    end
  end
end

local function report_config(h, report)
  h.start("hermes: settings")
  local cfg = plugin().config
  h.info("cmd: " .. table.concat(cfg.cmd, " "))
  h.info(
    string.format(
      "autostart: %s; filetypes: %s; root_markers: %s",
      tostring(cfg.autostart),
      cfg.filetypes and table.concat(cfg.filetypes, ",") or "all",
      table.concat(cfg.root_markers or {}, ",")
    )
  )
  if report and type(report.settings) == "table" and #report.settings > 0 then
    for _, s in ipairs(report.settings) do
      h.info(string.format("%s = %s (%s)", tostring(s.key), value_text(s.value), tostring(s.source)))
    end
  else
    h.info("settings sent to the server: " .. vim.json.encode(require("hermes.client").settings()))
  end
end

function M.check()
  local h = api()
  plugin().ensure_setup()
  local cfg = plugin().config
  h.start("hermes: server and codex")
  local v = vim.version()
  h.info(
    string.format(
      "Neovim %d.%d.%d%s",
      v.major,
      v.minor,
      v.patch,
      vim.fn.has("nvim-0.11") == 1 and " (vim.lsp.enable('hermes') available)" or ""
    )
  )
  local bin = cfg.cmd[1]
  if vim.fn.executable(bin) ~= 1 then
    h.error("hermes-lsp not found: " .. tostring(bin) .. " is not an executable", {
      "go install github.com/hermes-lsp/hermes-lsp/cmd/hermes-lsp@latest (puts it in $(go env GOPATH)/bin)",
      "or `make build` in a clone of the repository (bin/hermes-lsp), and put it on $PATH",
      "or give its path: require('hermes').setup({ cmd = { '/path/to/hermes-lsp' } })",
    })
    report_clients(h)
    report_config(h, nil)
    return
  end
  local dir = folder()
  h.info("folder: " .. dir)
  local report, err = M.doctor(bin, dir)
  if not report then
    h.error(
      "hermes-lsp doctor: " .. tostring(err),
      { "update hermes-lsp: the doctor came in with this plugin's version" }
    )
  else
    report_checks(h, report)
  end
  report_agent(h)
  report_clients(h)
  report_config(h, report)
end

return M
