-- What the servers report: hermes.status for :HermesStatus (the folders, and the agent that runs
-- the turns) and :HermesApprove (which answers a waiting approval found there), and the statusline.
local approvals = require("hermes.approvals")
local questions = require("hermes.questions")
local servers = require("hermes.client")
local handlers = require("hermes.handlers")

local M = {}

local levels = vim.log.levels

-- status collects hermes.status of every running server: callback({ {client, folder}... },
-- { {client, agent}... }), the agent of each server that named one.
function M.status(callback)
  local all = servers.clients()
  local out, agents, left = {}, {}, #all
  if left == 0 then
    return callback(out, agents)
  end
  for _, c in ipairs(all) do
    servers.execute(c, "hermes.status", nil, function(err, result)
      if not err and type(result) == "table" and type(result.folders) == "table" then
        for _, f in ipairs(result.folders) do
          table.insert(out, { client = c, folder = f })
        end
      end
      if not err and type(result) == "table" and type(result.agent) == "table" then
        table.insert(agents, { client = c, agent = result.agent })
      end
      left = left - 1
      if left == 0 then
        callback(out, agents)
      end
    end)
  end
end

-- said is a word the agent chose (its name, its version) fit for one line: control characters
-- removed, at most 60 characters.
local function said(s)
  if type(s) ~= "string" then
    return ""
  end
  s = vim.trim((s:gsub("%c", "")))
  if vim.fn.strchars(s) > 60 then
    s = vim.fn.strcharpart(s, 0, 59) .. "…"
  end
  return s
end

-- agent_line names a server's agent from hermes.status's agent: "codex 0.171.0", or for an agent of
-- another kind "gemini-cli 0.61.0 (ACP; lacks compact, login)"; nil for anything else.
function M.agent_line(agent)
  if type(agent) ~= "table" then
    return nil
  end
  local name = said(agent.name)
  local version = said(agent.version)
  local line = (name ~= "" and name or "unnamed") .. (version ~= "" and " " .. version or "")
  if agent.kind ~= "codex" then
    local note = said(agent.kind):upper()
    local lacks = {}
    for _, f in ipairs(type(agent.lacks) == "table" and agent.lacks or {}) do
      table.insert(lacks, said(f))
    end
    if #lacks > 0 then
      note = note .. "; lacks " .. table.concat(lacks, ", ")
    end
    line = line .. " (" .. note .. ")"
  end
  return line
end

-- status_lines is what :HermesStatus says of each folder: its thread by title (titles: threadId ->
-- title), the turn's state, usage and waiting approvals; then the agent of each server (agents, as
-- M.status gives them), once per distinct agent.
local function status_lines(list, titles, agents)
  local ls = {}
  if #list == 0 then
    table.insert(ls, #agents == 0 and "Hermes: no folder (no server is running)" or "Hermes: no folder yet")
  end
  for _, item in ipairs(list) do
    local f = item.folder
    local parts = { "Hermes " .. tostring(f.folder) .. ":" }
    if f.threadId and f.threadId ~= "" then
      local title = titles[f.threadId]
      table.insert(parts, title and string.format("thread %q", title) or "thread (untitled)")
    else
      table.insert(parts, "no thread yet")
    end
    if type(f.turn) == "table" then
      table.insert(parts, "· last turn " .. tostring(f.turn.state))
    end
    if type(f.usage) == "table" and (f.usage.totalTokens or 0) > 0 then
      table.insert(parts, string.format("· %s tokens", f.usage.totalTokens))
    end
    if (f.contextPercent or 0) > 0 then
      table.insert(parts, string.format("· %d%% context", f.contextPercent))
    end
    if f.yolo then
      table.insert(parts, "· auto-approve ON")
    end
    if f.fallback and f.fallback ~= "" and f.fallback ~= vim.NIL then
      table.insert(parts, "· fallback " .. tostring(f.fallback))
    end
    if (f.compactions or 0) > 0 then
      local ineffective = ""
      if (f.ineffectiveCompactions or 0) > 0 then
        ineffective = string.format(" (last %d ineffective)", f.ineffectiveCompactions)
      end
      table.insert(parts, string.format("· %d compaction(s)%s", f.compactions, ineffective))
    end
    table.insert(ls, table.concat(parts, " "))
    for _, a in ipairs(type(f.pendingApprovals) == "table" and f.pendingApprovals or {}) do
      table.insert(ls, string.format("  approval %s waiting (%s): %s", a.approvalId, a.kind, a.summary))
    end
  end
  local seen = {}
  for _, a in ipairs(agents) do
    local line = M.agent_line(a.agent)
    if line and not seen[line] then
      seen[line] = true
      table.insert(ls, "Hermes agent: " .. line)
    end
  end
  return ls
end

-- show_status is :HermesStatus.
function M.show_status()
  require("hermes").ensure_setup()
  M.status(function(list, agents)
    require("hermes").last_status = list
    -- The threads by their title (hermes.threads of each folder): an id says nothing to a person.
    local titles, left = {}, #list
    local function done()
      handlers.notify_full(table.concat(status_lines(list, titles, agents), "\n"), levels.INFO)
    end
    if left == 0 then
      return done()
    end
    for _, item in ipairs(list) do
      local arg = { uri = vim.uri_from_fname(item.folder.folder) }
      servers.execute(item.client, "hermes.threads", arg, function(err, threads)
        for _, t in ipairs(not err and type(threads) == "table" and threads or {}) do
          if type(t.title) == "string" and t.title ~= "" then
            titles[t.threadId] = t.title
          end
        end
        left = left - 1
        if left == 0 then
          done()
        end
      end)
    end
  end)
end

-- approve_command is :HermesApprove [once|session|deny|stop]: it picks a pending approval (from
-- hermes.status) and the decision through vim.ui.select.
function M.approve_command(decision)
  require("hermes").ensure_setup()
  decision = decision and vim.trim(decision) or ""
  if decision ~= "" and not approvals.decision_of(decision) then
    handlers.notify("Hermes: :Hermes approve once|session|deny|stop", levels.ERROR)
    return
  end
  M.status(function(list)
    local pending = {}
    for _, item in ipairs(list) do
      for _, a in ipairs(type(item.folder.pendingApprovals) == "table" and item.folder.pendingApprovals or {}) do
        table.insert(pending, { client = item.client, approval = a })
      end
    end
    if #pending == 0 then
      handlers.notify("Hermes: no approval is waiting", levels.INFO)
      return
    end
    local function decide(p)
      -- Questions are asked again, one by one, unless declined or stopped from the command line.
      if questions.asks(p.approval) and decision ~= "deny" and decision ~= "stop" then
        return approvals.ask_again(p.client.id, p.approval)
      end
      local function send(d)
        servers.execute(p.client, "hermes.approve", { approvalId = p.approval.approvalId, decision = d }, function(err)
          if err then
            handlers.notify_error(err)
          end
        end)
      end
      if decision ~= "" then
        return send(approvals.decision_of(decision))
      end
      local titles = {}
      for _, c in ipairs(approvals.choices) do
        table.insert(titles, c.title)
      end
      vim.ui.select(titles, { prompt = approvals.prompt(p.approval), kind = "hermes.approval" }, function(choice)
        local d = choice and approvals.decision_of(choice)
        if d then
          vim.schedule(function()
            send(d)
          end)
        end
      end)
    end
    if #pending == 1 then
      return decide(pending[1])
    end
    vim.ui.select(pending, {
      prompt = "Hermes: which approval?",
      kind = "hermes.approval.pick",
      format_item = function(p)
        return string.format("%s (%s): %s", p.approval.approvalId, p.approval.kind, p.approval.summary)
      end,
    }, function(choice)
      if choice then
        vim.schedule(function()
          decide(choice)
        end)
      end
    end)
  end)
end

-- statusline is for 'statusline' / lualine: what the running turn does now, or a waiting approval.
function M.statusline()
  for _, c in ipairs(servers.clients()) do
    for _, p in pairs(handlers.progress[c.id] or {}) do
      if not p.done then
        -- A report may hold only the usage (" · 1.2k tokens") before the first step.
        local msg = tostring(p.message or ""):gsub("^%s*·%s*", "")
        if msg == "" then
          msg = p.title or "working"
        end
        return "Hermes: " .. msg
      end
    end
  end
  local waiting = approvals.pending()
  if #waiting > 0 then
    return "Hermes: approval waiting: " .. tostring(waiting[1].summary)
  end
  return ""
end

-- An approval the server named in a message but no turn event announced: ask about it from
-- hermes.status.
handlers.on_unknown_approval = function(client_id, id)
  local c = servers.live_client(client_id)
  if not c then
    return
  end
  servers.execute(c, "hermes.status", nil, function(err, result)
    if err or type(result) ~= "table" then
      return
    end
    for _, f in ipairs(result.folders or {}) do
      for _, a in ipairs(f.pendingApprovals or {}) do
        if a.approvalId == id then
          approvals.on_waiting(client_id, a)
        end
      end
    end
  end)
end

return M
