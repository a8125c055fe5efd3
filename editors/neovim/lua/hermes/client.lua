-- Starting, finding and talking to the hermes-lsp servers: one per workspace folder, started on
-- demand for the buffers inside it (see setup's autostart), each a Neovim LSP client.
local approvals = require("hermes.approvals")
local compat = require("hermes.compat")
local handlers = require("hermes.handlers")
local view = require("hermes.view")

local M = {}

local api = vim.api
local levels = vim.log.levels
local clients = {} -- folder -> client id

-- plugin is the plugin's table (init.lua), for its configuration.
local function plugin()
  return require("hermes")
end

local function notify(msg, level)
  handlers.notify(msg, level)
end

-- settings_for builds the `hermes` settings object the server gets (also what :checkhealth hermes
-- gives `hermes-lsp doctor --settings`).
local function settings_for()
  local s = vim.tbl_deep_extend(
    "force",
    { openTranscript = false },
    vim.deepcopy(plugin().config.settings or {}),
    { turnEvents = true }
  )
  -- An empty Lua table is sent as a JSON array: the objects among the settings must stay objects
  -- (the server refuses `agent = {}` sent as `[]`).
  local function object(t, key)
    if type(t) == "table" and type(t[key]) == "table" and next(t[key]) == nil then
      t[key] = vim.empty_dict()
    end
  end
  for _, key in ipairs({ "codex", "agent", "approvals", "review", "edits" }) do
    object(s, key)
  end
  object(s.codex, "env")
  object(s.agent, "env")
  return s
end

M.settings = settings_for

local function command_name(name)
  local prefix = plugin().config and plugin().config.settings and plugin().config.settings.commandPrefix or ""
  return prefix .. name
end
M.command_name = command_name

-- find_root is the default root_dir: the nearest folder up holding a root marker, else the current
-- directory when the file is inside it, else the file's own folder.
local function find_root(_, path)
  local root = compat.root(path, plugin().config.root_markers or {})
  if root then
    return root
  end
  local dir = vim.fn.fnamemodify(path, ":p:h")
  local cwd = (vim.uv or vim.loop).cwd()
  if cwd and (dir == cwd or dir:sub(1, #cwd + 1) == cwd .. "/") then
    return cwd
  end
  return dir
end
M.find_root = find_root

-- Calls waiting for a client to finish initializing: client id -> { fn... }, run by on_init.
local waiting = {}

function M.live_client(id)
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
    local c = M.live_client(id)
    if c then
      table.insert(out, c)
    end
  end
  table.sort(out, function(a, b)
    return a.id < b.id
  end)
  return out
end

-- base_config is the client configuration of every hermes server (the folder's own fields are added
-- by client_config; lsp/hermes.lua returns it for vim.lsp.enable).
function M.base_config()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.window = caps.window or {}
  caps.window.workDoneProgress = true
  caps.window.showDocument = { support = true }
  -- The plugin reloads buffers whose files the agent changed (:checktime): the server need not send
  -- their new text. It saves what :HermesUndo restores in clean buffers (actions.lua), and what a
  -- revert of the agent's change puts back in them (handlers.lua). It shows
  -- what its commands answer, and their errors, itself. It asks codex's questions (an MCP server's
  -- form, the agent's questions) itself, from the turn events (questions.lua).
  caps.experimental = vim.tbl_deep_extend("force", caps.experimental or {}, {
    hermes = {
      reloadsBuffers = true,
      savesUndoEdits = true,
      threadPicker = true,
      showsResults = true,
      asksQuestions = true,
    },
  })
  if plugin().config.capabilities then
    caps = vim.tbl_deep_extend("force", caps, plugin().config.capabilities)
  end
  local settings = settings_for()
  local hs = {}
  for _, method in ipairs({
    "window/showMessageRequest",
    "window/showDocument",
    "$/progress",
    "hermes/turnEvent",
    "window/showMessage",
    "workspace/inlayHint/refresh",
    "workspace/applyEdit",
  }) do
    hs[method] = handlers[method]
  end
  return {
    name = plugin().config.name,
    cmd = plugin().config.cmd,
    cmd_env = plugin().config.cmd_env,
    init_options = settings,
    settings = { hermes = settings },
    capabilities = caps,
    handlers = hs,
    flags = { exit_timeout = plugin().config.exit_timeout },
    on_init = function(c)
      M.on_init(c)
    end,
    on_attach = function(c, bufnr)
      if plugin().config.hover_keymap and vim.fn.has("nvim-0.10") == 0 then
        local m = vim.fn.maparg("K", "n", false, true)
        if type(m) ~= "table" or m.buffer ~= 1 then
          vim.keymap.set(
            "n",
            "K",
            vim.lsp.buf.hover,
            { buffer = bufnr, desc = "LSP hover (Hermes: the turn asked from this line)" }
          )
        end
      end
      if plugin().config.on_attach then
        plugin().config.on_attach(c, bufnr)
      end
    end,
    on_exit = function(code, signal, client_id)
      vim.schedule(function()
        for f, id in pairs(clients) do
          if id == client_id then
            clients[f] = nil
          end
        end
        if waiting[client_id] then
          waiting[client_id] = nil
          notify("Hermes: the server stopped before it was ready", levels.ERROR)
        end
        handlers.progress[client_id] = nil
        approvals.forget_client(client_id)
        if code ~= 0 and not plugin()._quitting then
          notify(
            string.format("Hermes: hermes-lsp exited (code %s, signal %s)", tostring(code), tostring(signal)),
            levels.WARN
          )
        end
        handlers.on_update()
      end)
    end,
  }
end

local function client_config(folder)
  local config = M.base_config()
  config.cmd_cwd = folder
  config.root_dir = folder
  config.workspace_folders = { { uri = vim.uri_from_fname(folder), name = folder } }
  return config
end

-- on_init runs when a client finished initializing: the plugin knows it by its folder (a client
-- vim.lsp.enable started too), and the commands that waited for it run.
function M.on_init(c)
  local folder = c.config and c.config.root_dir
  if folder and not M.live_client(clients[folder]) then
    clients[folder] = c.id
  end
  local fns = waiting[c.id] or {}
  waiting[c.id] = nil
  for _, fn in ipairs(fns) do
    fn(c)
  end
end

-- start returns the client of folder, starting it if needed.
function M.start(folder, bufnr)
  plugin().ensure_setup()
  folder = vim.fn.fnamemodify(folder, ":p"):gsub("/$", "")
  if folder == "" then
    folder = "/"
  end
  local c = M.live_client(clients[folder])
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
    notify("Hermes: could not start " .. table.concat(plugin().config.cmd, " ") .. ": " .. tostring(id), levels.ERROR)
    return nil
  end
  clients[folder] = id
  return id
end

-- is_file_buffer says whether bufnr is a buffer of a file hermes can attach to.
function M.is_file_buffer(bufnr)
  if not api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" then
    return false
  end
  local name = api.nvim_buf_get_name(bufnr)
  return name ~= "" and not name:match("^%a[%w+.-]*://")
end

-- state_dir is where the server keeps transcripts and diffs (the stateDir setting).
local function state_dir()
  local d = plugin().config.settings and plugin().config.settings.stateDir
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
  plugin().ensure_setup()
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  if not M.is_file_buffer(bufnr) then
    return nil
  end
  if
    not force
    and plugin().config.filetypes
    and not vim.tbl_contains(plugin().config.filetypes, vim.bo[bufnr].filetype)
  then
    return nil
  end
  local path = api.nvim_buf_get_name(bufnr)
  if under(path, state_dir()) then
    return nil -- the server's own transcripts and diffs
  end
  local folder = (plugin().config.root_dir or find_root)(bufnr, path)
  if not folder or folder == "" then
    return nil
  end
  local id = M.start(folder, bufnr)
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

-- lsp_config is the configuration lsp/hermes.lua gives vim.lsp.enable("hermes") (0.11+): the
-- plugin's handlers, capabilities, settings and hooks, and a root_dir function choosing the folder
-- as the plugin's autostart does (none for buffers that are not files, or the server's own files).
-- No filetypes: every file buffer (vim.lsp.enable starts clients on FileType).
function M.lsp_config()
  local config = M.base_config()
  config.name = nil -- vim.lsp.config names it after the file: hermes
  config.filetypes = plugin().config.filetypes
  config.root_markers = plugin().config.root_markers
  config.root_dir = function(bufnr, on_dir)
    if not M.is_file_buffer(bufnr) then
      return
    end
    local path = api.nvim_buf_get_name(bufnr)
    if under(path, state_dir()) then
      return
    end
    local folder = (plugin().config.root_dir or find_root)(bufnr, path)
    if folder and folder ~= "" then
      on_dir(folder)
    end
  end
  return config
end

-- client_for finds the client for the current buffer: attached, or the folder of a Hermes buffer,
-- or the server of the current directory (started if needed).
function M.client_for(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local id = M.attach(bufnr, true)
  if id then
    return M.live_client(id), bufnr
  end
  local folder = view.folder_of_buffer(bufnr)
  if folder and M.live_client(clients[folder]) then
    return M.live_client(clients[folder]), nil
  end
  local all = M.clients()
  if #all == 1 then
    return all[1], nil
  end
  local cwd = (vim.loop or vim.uv).cwd()
  if M.live_client(clients[cwd]) then
    return M.live_client(clients[cwd]), nil
  end
  id = M.start(find_root(nil, cwd .. "/."), nil)
  return M.live_client(id), nil
end

-- when_ready calls fn(client) once the client finished initializing: now, or from on_init (a
-- client this plugin did not configure, say a vim.lsp.config of another name, is never waited for).
local function when_ready(client, fn)
  if client.initialized then
    return fn(client)
  end
  waiting[client.id] = waiting[client.id] or {}
  table.insert(waiting[client.id], fn)
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

approvals.approve = function(client_id, approval_id, decision, callback, answers)
  local c = M.live_client(client_id)
  if not c then
    return callback({ message = "the server is gone" })
  end
  local args = { approvalId = approval_id, decision = decision }
  -- An empty table would go as a JSON array: answers only when there are some.
  if type(answers) == "table" and next(answers) ~= nil then
    args.answers = answers
  end
  M.execute(c, "hermes.approve", args, function(err, result)
    callback(err, result)
  end)
end

-- client_of_folder returns the live client of folder, or nil.
function M.client_of_folder(folder)
  return M.live_client(clients[folder])
end

-- folder_of returns the folder whose client bufnr is attached to, or nil.
function M.folder_of(bufnr)
  for f, id in pairs(clients) do
    local c = M.live_client(id)
    if c and vim.lsp.buf_is_attached(bufnr, c.id) then
      return f
    end
  end
  return nil
end

-- stop_all stops every hermes server (they stop codex).
function M.stop_all()
  for _, c in ipairs(M.clients()) do
    compat.stop(c)
  end
end

return M
