-- hermes.nvim: OpenAI Codex agent turns in Neovim (0.7 and later) through hermes-lsp.
--
--   require("hermes").setup{}          -- start or attach the server for buffers inside a folder
--   :HermesAsk [prompt]                -- a visual range sends the selection
--   :HermesStop  :HermesApprove [once|session|deny|stop]  :HermesStatus  :HermesTranscript
--   :HermesNewThread  :HermesCompact  :HermesYolo
--   require("hermes").statusline()     -- "Hermes: exec_command: go test ./... · 2.5k tokens"
local approvals = require("hermes.approvals")
local compat = require("hermes.compat")
local handlers = require("hermes.handlers")
local view = require("hermes.view")

local M = {}

local api = vim.api
local levels = vim.log.levels

M.defaults = {
  -- The server command.
  cmd = { "hermes-lsp" },
  -- Extra environment for the server.
  cmd_env = nil,
  -- The `hermes` settings (docs/protocol.md), sent as initializationOptions and as `settings.hermes`
  -- for workspace/configuration. turnEvents is always on: the Hermes buffer and the approvals use it.
  settings = {},
  -- nil: every filetype (any buffer of a file); or a list of filetypes to attach to.
  filetypes = nil,
  -- function(bufnr, path) -> folder or nil (nil: do not attach). Default: the nearest folder up from
  -- the file holding one of root_markers (the git root), else the current directory when the file is
  -- inside it, else the file's own folder.
  root_dir = nil,
  root_markers = { ".git" },
  -- Attach automatically to buffers as they are read; false: only through the commands.
  autostart = true,
  -- How the Hermes buffer opens when a turn starts ("botright split", "vsplit", "tabnew", ...); false:
  -- never on its own (see it with :HermesAsk's buffer, hermes://<folder>).
  window = "botright split",
  height = 12,
  -- How window/showDocument opens a file (the transcript, a diff).
  document_split = "belowright split",
  -- vim.notify when a turn starts and ends.
  notify_progress = true,
  -- Show the model's reasoning summaries in the Hermes buffer.
  reasoning = false,
  -- Passed through to the LSP client.
  on_attach = nil,
  capabilities = nil,
  name = "hermes",
  -- Milliseconds Neovim waits for the server (and codex) to stop when it quits.
  exit_timeout = 3000,
}

M.config = nil
local clients = {} -- folder -> client id
local augroup

local function notify(msg, level)
  handlers.notify(msg, level)
end

local function copy(t)
  return vim.deepcopy(t)
end

-- settings_for builds the `hermes` settings object the server gets.
local function settings_for()
  local s = vim.tbl_deep_extend("force", { openTranscript = false }, copy(M.config.settings or {}), { turnEvents = true })
  -- An empty Lua table is sent as a JSON array: the objects among the settings must stay objects.
  if type(s.codex) == "table" and type(s.codex.env) == "table" and next(s.codex.env) == nil then
    s.codex.env = vim.empty_dict()
  end
  if type(s.approvals) == "table" and next(s.approvals) == nil then
    s.approvals = vim.empty_dict()
  end
  return s
end

local function command_name(name)
  local prefix = M.config and M.config.settings and M.config.settings.commandPrefix or ""
  return prefix .. name
end

-- find_root is the default root_dir.
local function find_root(_, path)
  local uv = vim.loop or vim.uv
  local dir = vim.fn.fnamemodify(path, ":p:h")
  local d = dir
  while d and d ~= "" do
    for _, marker in ipairs(M.config.root_markers or {}) do
      if compat.exists(d .. "/" .. marker) then
        return d
      end
    end
    local parent = vim.fn.fnamemodify(d, ":h")
    if parent == d then
      break
    end
    d = parent
  end
  local cwd = uv.cwd()
  if cwd and (dir == cwd or dir:sub(1, #cwd + 1) == cwd .. "/") then
    return cwd
  end
  return dir
end

local function live_client(id)
  if not id then
    return nil
  end
  local c = vim.lsp.get_client_by_id(id)
  if c and not compat.is_stopped(c) then
    return c
  end
  return nil
end

-- clients returns the running hermes clients.
function M.clients()
  local out = {}
  for _, id in pairs(clients) do
    local c = live_client(id)
    if c then
      table.insert(out, c)
    end
  end
  table.sort(out, function(a, b)
    return a.id < b.id
  end)
  return out
end

local function client_config(folder)
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.window = caps.window or {}
  caps.window.workDoneProgress = true
  caps.window.showDocument = { support = true }
  if M.config.capabilities then
    caps = vim.tbl_deep_extend("force", caps, M.config.capabilities)
  end
  local settings = settings_for()
  local hs = {}
  for _, method in ipairs({ "window/showMessageRequest", "window/showDocument", "$/progress", "hermes/turnEvent", "window/showMessage" }) do
    hs[method] = handlers[method]
  end
  return {
    name = M.config.name,
    cmd = M.config.cmd,
    cmd_cwd = folder,
    cmd_env = M.config.cmd_env,
    root_dir = folder,
    workspace_folders = { { uri = vim.uri_from_fname(folder), name = folder } },
    init_options = settings,
    settings = { hermes = settings },
    capabilities = caps,
    handlers = hs,
    flags = { exit_timeout = M.config.exit_timeout },
    on_attach = M.config.on_attach,
    on_exit = function(code, signal, client_id)
      vim.schedule(function()
        for f, id in pairs(clients) do
          if id == client_id then
            clients[f] = nil
          end
        end
        handlers.progress[client_id] = nil
        approvals.forget_client(client_id)
        if code ~= 0 and not M._quitting then
          notify(string.format("Hermes: hermes-lsp exited (code %s, signal %s)", tostring(code), tostring(signal)), levels.WARN)
        end
        handlers.on_update()
      end)
    end,
  }
end

-- start returns the client of folder, starting it if needed.
function M.start(folder, bufnr)
  M.ensure_setup()
  folder = vim.fn.fnamemodify(folder, ":p"):gsub("/$", "")
  if folder == "" then
    folder = "/"
  end
  local c = live_client(clients[folder])
  if c then
    return c.id
  end
  local config = client_config(folder)
  local ok, id
  if compat.nvim_0_11 then
    -- vim.lsp.start_client is deprecated from 0.11 on; vim.lsp.start reuses a client of the same
    -- name and root_dir, as the table above does.
    ok, id = pcall(vim.lsp.start, config, { bufnr = bufnr or api.nvim_get_current_buf(), attach = bufnr ~= nil })
  else
    ok, id = pcall(vim.lsp.start_client, config)
  end
  if not ok or not id then
    notify("Hermes: could not start " .. table.concat(M.config.cmd, " ") .. ": " .. tostring(id), levels.ERROR)
    return nil
  end
  clients[folder] = id
  return id
end

-- is_file_buffer says whether bufnr is a buffer of a file hermes can attach to.
local function is_file_buffer(bufnr)
  if not api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" then
    return false
  end
  local name = api.nvim_buf_get_name(bufnr)
  return name ~= "" and not name:match("^%a[%w+.-]*://")
end

-- state_dir is where the server keeps transcripts and diffs (the stateDir setting).
local function state_dir()
  local d = M.config.settings and M.config.settings.stateDir
  if type(d) ~= "string" or d == "" then
    local xdg = os.getenv("XDG_STATE_HOME")
    if not xdg or xdg == "" then
      xdg = (os.getenv("HOME") or "") .. "/.local/state"
    end
    d = xdg .. "/hermes-lsp"
  end
  return (vim.fn.fnamemodify(d, ":p"):gsub("/$", ""))
end

local function under(path, dir)
  path = vim.fn.fnamemodify(path, ":p")
  return path == dir or path:sub(1, #dir + 1) == dir .. "/"
end

-- attach starts or attaches the server for a buffer inside a folder; it returns the client id.
function M.attach(bufnr, force)
  M.ensure_setup()
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  if not is_file_buffer(bufnr) then
    return nil
  end
  if not force and M.config.filetypes and not vim.tbl_contains(M.config.filetypes, vim.bo[bufnr].filetype) then
    return nil
  end
  local path = api.nvim_buf_get_name(bufnr)
  if under(path, state_dir()) then
    return nil -- the server's own transcripts and diffs
  end
  local folder = (M.config.root_dir or find_root)(bufnr, path)
  if not folder or folder == "" then
    return nil
  end
  local id = M.start(folder, bufnr)
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

-- client_for finds the client for the current buffer: attached, or the folder of a Hermes buffer,
-- or the server of the current directory (started if needed).
local function client_for(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local id = M.attach(bufnr, true)
  if id then
    return live_client(id), bufnr
  end
  local folder = view.folder_of_buffer(bufnr)
  if folder and live_client(clients[folder]) then
    return live_client(clients[folder]), nil
  end
  local all = M.clients()
  if #all == 1 then
    return all[1], nil
  end
  local cwd = (vim.loop or vim.uv).cwd()
  if live_client(clients[cwd]) then
    return live_client(clients[cwd]), nil
  end
  id = M.start(find_root(nil, cwd .. "/."), nil)
  return live_client(id), nil
end

-- when_ready calls fn(client) once the client finished initializing.
local function when_ready(client, fn, waited)
  waited = waited or 0
  if client.initialized then
    return fn(client)
  end
  if waited > 20000 or compat.is_stopped(client) then
    notify("Hermes: the server did not start", levels.ERROR)
    return
  end
  vim.defer_fn(function()
    when_ready(client, fn, waited + 50)
  end, 50)
end

-- execute runs a hermes command on a client: callback(err, result).
function M.execute(client, name, arg, callback, bufnr)
  local params = { command = command_name(name) }
  if arg ~= nil then
    params.arguments = { arg }
  end
  when_ready(client, function(c)
    compat.request(c, "workspace/executeCommand", params, function(err, result)
      if callback then
        callback(err, result)
      elseif err then
        notify("Hermes: " .. name .. ": " .. tostring(err.message or err), levels.ERROR)
      end
    end, bufnr)
  end)
end

approvals.approve = function(client_id, approval_id, decision, callback)
  local c = live_client(client_id)
  if not c then
    return callback({ message = "the server is gone" })
  end
  M.execute(c, "hermes.approve", { approvalId = approval_id, decision = decision }, function(err, result)
    callback(err, result)
  end)
end

local function uri_of(bufnr)
  if bufnr and is_file_buffer(bufnr) then
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
  M.ensure_setup()
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
  local client, filebuf = client_for(bufnr)
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
  M.execute(client, "hermes.ask", arg, function(err, result)
    if err then
      notify("Hermes: " .. tostring(err.message or err), levels.ERROR)
      return
    end
    M.last = { client_id = client.id, result = result }
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
  M.ensure_setup()
  local client, filebuf = client_for(api.nvim_get_current_buf())
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
    M.execute(client, "hermes.cancel", folder_arg(filebuf), function(err, result)
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
  local all = M.clients()
  local out, left = {}, #all
  if left == 0 then
    return callback(out)
  end
  for _, c in ipairs(all) do
    M.execute(c, "hermes.status", nil, function(err, result)
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
  M.ensure_setup()
  M.status(function(list)
    M.last_status = list
    notify(table.concat(status_lines(list), "\n"), levels.INFO)
  end)
end

-- approve_command is :HermesApprove [once|session|deny|stop]: it picks a pending approval (from
-- hermes.status) and the decision through vim.ui.select.
function M.approve_command(decision)
  M.ensure_setup()
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
        M.execute(p.client, "hermes.approve", { approvalId = p.approval.approvalId, decision = d }, function(err)
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
    M.execute(client, "hermes.showTranscript", folder_arg(filebuf), nil, filebuf)
  end)
end

local function simple(name, done)
  return function()
    with_client(function(client, filebuf)
      M.execute(client, name, folder_arg(filebuf), function(err, result)
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

-- open shows the Hermes buffer of the current folder.
function M.open()
  local bufnr = api.nvim_get_current_buf()
  local folder = view.folder_of_buffer(bufnr)
  if not folder and is_file_buffer(bufnr) then
    for f, id in pairs(clients) do
      local c = live_client(id)
      if c and vim.lsp.buf_is_attached(bufnr, c.id) then
        folder = f
      end
    end
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
  for _, c in ipairs(M.clients()) do
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

handlers.on_update = function()
  pcall(vim.cmd, "redrawstatus!")
  pcall(api.nvim_exec_autocmds, "User", { pattern = "HermesUpdate", modeline = false })
end

-- An approval the server named in a message but no turn event announced: ask about it from
-- hermes.status.
handlers.on_unknown_approval = function(client_id, id)
  local c = live_client(client_id)
  if not c then
    return
  end
  M.execute(c, "hermes.status", nil, function(err, result)
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

function M.ensure_setup()
  if not M.config then
    M.setup({})
  end
end

-- setup configures the plugin; with autostart, buffers of files attach as they are read.
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", copy(M.defaults), opts or {})
  if opts and opts.cmd then
    M.config.cmd = opts.cmd -- a list: replaced, not merged
  end
  if opts and opts.filetypes then
    M.config.filetypes = opts.filetypes
  end
  if opts and opts.root_markers then
    M.config.root_markers = opts.root_markers
  end
  if type(M.config.cmd) == "string" then
    M.config.cmd = { M.config.cmd }
  end
  view.config.window = M.config.window
  view.config.height = M.config.height
  view.config.reasoning = M.config.reasoning
  handlers.config.notify_progress = M.config.notify_progress
  handlers.config.document_split = M.config.document_split

  require("hermes.commands").define()
  augroup = api.nvim_create_augroup("hermes", { clear = true })
  api.nvim_create_autocmd("VimLeavePre", {
    group = augroup,
    callback = function()
      M._quitting = true
    end,
  })
  if M.config.autostart then
    local events = M.config.filetypes and { "FileType" } or { "BufReadPost", "BufNewFile", "FileType" }
    api.nvim_create_autocmd(events, {
      group = augroup,
      callback = function(args)
        M.attach(args.buf)
      end,
    })
    for _, b in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_is_loaded(b) then
        M.attach(b)
      end
    end
  end
  return M
end

-- stop_all stops every hermes server (they stop codex).
function M.stop_all()
  for _, c in ipairs(M.clients()) do
    compat.stop(c)
  end
end

return M
