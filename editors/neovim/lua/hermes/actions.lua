-- The plugin's commands: ask (a range sends the selection), stop, status, approvals, transcript,
-- new thread, compact, auto-approve, the Hermes buffer and the statusline.
local approvals = require("hermes.approvals")
local servers = require("hermes.client")
local compat = require("hermes.compat")
local handlers = require("hermes.handlers")
local view = require("hermes.view")

local M = {}

local api = vim.api
local levels = vim.log.levels

local function notify(msg, level)
  handlers.notify(msg, level)
end

local function ensure_setup()
  require("hermes").ensure_setup()
end

local function uri_of(bufnr)
  if bufnr and servers.is_file_buffer(bufnr) then
    return vim.uri_from_bufnr(bufnr)
  end
  return nil
end

local function line_text(bufnr, row)
  return api.nvim_buf_get_lines(bufnr, row - 1, row, false)[1] or ""
end

-- range_of turns a command's range into an LSP range: the lines, or from a characterwise visual
-- selection its columns.
local function range_of(bufnr, opts)
  if not opts or not opts.range or opts.range == 0 then
    return nil
  end
  local l1, l2 = opts.line1, opts.line2
  local s = { line = l1 - 1, character = 0 }
  local e = { line = l2 - 1, character = compat.utf16_col(line_text(bufnr, l2), #line_text(bufnr, l2)) }
  local vs, ve = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  if opts.range == 2 and vim.fn.visualmode() == "v" and vs[2] == l1 and ve[2] == l2 then
    s.character = compat.utf16_col(line_text(bufnr, l1), vs[3] - 1)
    local last = line_text(bufnr, l2)
    -- '> is the last selected byte; the range ends after its character.
    local stop = math.min(#last, ve[3])
    while stop < #last and bit.band(last:byte(stop + 1), 0xC0) == 0x80 do
      stop = stop + 1
    end
    e.character = compat.utf16_col(last, stop)
  end
  return { start = s, ["end"] = e }
end

-- ask starts a turn (or steers the running one) in the folder of the current buffer.
function M.ask(prompt, opts)
  ensure_setup()
  opts = opts or {}
  local bufnr = opts.bufnr or api.nvim_get_current_buf()
  local range = opts.range_lsp
  if prompt == nil or vim.trim(prompt) == "" then
    vim.ui.input({ prompt = "Hermes: " }, function(input)
      if input and vim.trim(input) ~= "" then
        vim.schedule(function()
          M.ask(input, vim.tbl_extend("force", opts, { bufnr = bufnr }))
        end)
      end
    end)
    return
  end
  local client, filebuf = servers.client_for(bufnr)
  if not client then
    return
  end
  local arg = { prompt = prompt }
  local uri = uri_of(filebuf)
  if uri then
    arg.uri = uri
    if range then
      arg.range = range
    end
  end
  servers.execute(client, "hermes.ask", arg, function(err, result)
    if err then
      notify("Hermes: " .. tostring(err.message or err), levels.ERROR)
      return
    end
    require("hermes").last = { client_id = client.id, result = result }
    if type(result) == "table" and result.steered then
      notify("Hermes: steered the running turn", levels.INFO)
    end
    if opts.callback then
      opts.callback(result)
    end
  end, filebuf)
end

-- ask_command is :HermesAsk.
function M.ask_command(opts)
  local bufnr = api.nvim_get_current_buf()
  M.ask(opts.args, { bufnr = bufnr, range_lsp = range_of(bufnr, opts) })
end

-- with_client runs fn(client, bufnr) for the client of the current buffer.
local function with_client(fn)
  ensure_setup()
  local client, filebuf = servers.client_for(api.nvim_get_current_buf())
  if client then
    fn(client, filebuf)
  end
end

local function folder_arg(filebuf)
  local uri = uri_of(filebuf)
  if uri then
    return { uri = uri }
  end
  return vim.empty_dict()
end

-- stop interrupts the running turn of the current buffer's folder (:HermesStop).
function M.stop()
  with_client(function(client, filebuf)
    servers.execute(client, "hermes.cancel", folder_arg(filebuf), function(err, result)
      if err then
        notify("Hermes: " .. tostring(err.message or err), levels.ERROR)
      elseif type(result) == "table" and (result.cancelled or 0) > 0 then
        notify("Hermes: stopping the turn", levels.INFO)
      else
        notify("Hermes: no turn is running", levels.INFO)
      end
    end, filebuf)
  end)
end

-- status collects hermes.status of every running server: callback({ {client, folder}... }).
function M.status(callback)
  local all = servers.clients()
  local out, left = {}, #all
  if left == 0 then
    return callback(out)
  end
  for _, c in ipairs(all) do
    servers.execute(c, "hermes.status", nil, function(err, result)
      if not err and type(result) == "table" and type(result.folders) == "table" then
        for _, f in ipairs(result.folders) do
          table.insert(out, { client = c, folder = f })
        end
      end
      left = left - 1
      if left == 0 then
        callback(out)
      end
    end)
  end
end

local function status_lines(list)
  if #list == 0 then
    return { "Hermes: no folder (no server is running)" }
  end
  local ls = {}
  for _, item in ipairs(list) do
    local f = item.folder
    local parts = { "Hermes " .. tostring(f.folder) .. ":" }
    if f.threadId and f.threadId ~= "" then
      table.insert(parts, "thread " .. f.threadId)
    else
      table.insert(parts, "no thread yet")
    end
    if type(f.turn) == "table" then
      table.insert(parts, "· turn " .. tostring(f.turn.id) .. " " .. tostring(f.turn.state))
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
      table.insert(parts, string.format("· %d compaction(s)", f.compactions))
    end
    table.insert(ls, table.concat(parts, " "))
    for _, a in ipairs(type(f.pendingApprovals) == "table" and f.pendingApprovals or {}) do
      table.insert(ls, string.format("  approval %s waiting (%s): %s", a.approvalId, a.kind, a.summary))
    end
  end
  return ls
end

-- show_status is :HermesStatus.
function M.show_status()
  ensure_setup()
  M.status(function(list)
    require("hermes").last_status = list
    notify(table.concat(status_lines(list), "\n"), levels.INFO)
  end)
end

-- approve_command is :HermesApprove [once|session|deny|stop]: it picks a pending approval (from
-- hermes.status) and the decision through vim.ui.select.
function M.approve_command(decision)
  ensure_setup()
  decision = decision and vim.trim(decision) or ""
  if decision ~= "" and not approvals.decision_of(decision) then
    notify("Hermes: :HermesApprove once|session|deny|stop", levels.ERROR)
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
      notify("Hermes: no approval is waiting", levels.INFO)
      return
    end
    local function decide(p)
      local function send(d)
        servers.execute(p.client, "hermes.approve", { approvalId = p.approval.approvalId, decision = d }, function(err)
          if err then
            notify("Hermes: " .. tostring(err.message or err), levels.ERROR)
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

-- transcript opens the folder's transcript (:HermesTranscript).
function M.transcript()
  with_client(function(client, filebuf)
    servers.execute(client, "hermes.showTranscript", folder_arg(filebuf), nil, filebuf)
  end)
end

local function simple(name, done)
  return function()
    with_client(function(client, filebuf)
      servers.execute(client, name, folder_arg(filebuf), function(err, result)
        if err then
          notify("Hermes: " .. tostring(err.message or err), levels.ERROR)
        elseif done then
          done(result)
        end
      end, filebuf)
    end)
  end
end

M.new_thread = simple("hermes.newThread")
M.compact = simple("hermes.compact")
M.toggle_yolo = simple("hermes.toggleYolo")

-- undo_turn restores the files the folder's last turn changed with patches (:HermesUndo; force,
-- :HermesUndo!, restores files changed since too).
function M.undo_turn(force)
  with_client(function(client, filebuf)
    local arg = folder_arg(filebuf)
    if force then
      arg = vim.tbl_extend("force", type(arg) == "table" and arg or {}, { force = true })
    end
    servers.execute(client, "hermes.undoTurn", arg, function(err, result)
      if err then
        notify("Hermes: " .. tostring(err.message or err), levels.ERROR)
        return
      end
      if type(result) == "table" then
        for _, s in ipairs(type(result.skipped) == "table" and result.skipped or {}) do
          notify(string.format("Hermes: %s left as it is: %s", s.path, s.reason), levels.WARN)
        end
      end
      vim.cmd("checktime")
    end, filebuf)
  end)
end

-- open shows the Hermes buffer of the current folder.
function M.open()
  local bufnr = api.nvim_get_current_buf()
  local folder = view.folder_of_buffer(bufnr)
  if not folder and servers.is_file_buffer(bufnr) then
    folder = servers.folder_of(bufnr)
  end
  folder = folder or view.folders()[1]
  if folder then
    view.open(folder, true)
  else
    notify("Hermes: no turn yet", levels.INFO)
  end
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
