-- The plugin's commands that act in a folder: ask (a range sends the selection), stop, transcript,
-- new thread, compact, auto-approve, undo, and the Hermes buffer. Status and approvals: hermes.status.
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

-- range_of turns a command's range into an LSP range: the lines, or from a characterwise visual
-- selection its characters (vim.lsp.util.make_given_range_params, through compat.range_params).
local function range_of(bufnr, opts)
  if not opts or not opts.range or opts.range == 0 then
    return nil
  end
  local l1, l2 = opts.line1, opts.line2
  local vs, ve = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  if opts.range == 2 and vim.fn.visualmode() == "v" and vs[2] == l1 and ve[2] == l2 then
    -- '> is the first byte of the last selected character (after `$`, a huge column: clamped).
    return compat.range_params(bufnr, l1, vs[3] - 1, l2, ve[3] - 1)
  end
  return compat.range_params(bufnr, l1, 0, l2, nil)
end

-- ask starts a turn (or steers the running one) in the folder of the current buffer.
function M.ask(prompt, opts)
  ensure_setup()
  opts = opts or {}
  local bufnr = opts.bufnr or (opts.folder and view.buffer(opts.folder, false)) or api.nvim_get_current_buf()
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
  elseif opts.folder then
    arg.uri = vim.uri_from_fname(opts.folder) -- from the Hermes buffer: its folder
  end
  servers.execute(client, "hermes.ask", arg, function(err, result)
    if err then
      return handlers.notify_error(err)
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

-- folder_command makes a command that runs the server's command name in the folder of the current
-- buffer: an error is told, a result goes to done.
local function folder_command(name, done)
  return function()
    with_client(function(client, filebuf)
      servers.execute(client, name, folder_arg(filebuf), function(err, result)
        if err then
          handlers.notify_error(err)
        elseif done then
          done(result)
        end
      end, filebuf)
    end)
  end
end

-- stop interrupts the running turn of the current buffer's folder (:HermesStop).
M.stop = folder_command("hermes.cancel", function(result)
  if type(result) == "table" and (result.cancelled or 0) > 0 then
    notify("Hermes: stopping the turn", levels.INFO)
  else
    notify("Hermes: no turn is running", levels.INFO)
  end
end)

M.new_thread = folder_command("hermes.newThread")
M.compact = folder_command("hermes.compact")
M.toggle_yolo = folder_command("hermes.toggleYolo")

-- transcript opens the folder's transcript (:HermesTranscript).
function M.transcript()
  with_client(function(client, filebuf)
    servers.execute(client, "hermes.showTranscript", folder_arg(filebuf), nil, filebuf)
  end)
end

-- file_buffers maps the full path of each loaded file buffer to its number.
local function file_buffers()
  local out = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) and servers.is_file_buffer(b) then
      out[vim.fn.fnamemodify(api.nvim_buf_get_name(b), ":p")] = b
    end
  end
  return out
end

-- save_restored writes the buffers an undo restored through the editor (workspace/applyEdit leaves
-- them modified) that had no unsaved edits before it, so that the restore reaches the disk as it
-- does in VS Code. A buffer the user had modified (only a forced undo restores one) is left for them
-- to save: `u` takes the restore back.
local function save_restored(root, restored, modified_before)
  local bufs = file_buffers()
  for _, rel in ipairs(restored) do
    local path = vim.fn.fnamemodify(root .. "/" .. rel, ":p")
    local b = bufs[path]
    if b and not modified_before[path] and vim.bo[b].modified then
      local ok, e = pcall(api.nvim_buf_call, b, function()
        vim.cmd("silent keepalt update")
      end)
      if not ok then
        notify(string.format("Hermes: %s restored in its buffer, but not saved: %s", rel, tostring(e)), levels.WARN)
      end
    end
  end
end

-- undo_turn restores the files the folder's last turn changed with patches (:HermesUndo; force,
-- :HermesUndo!, restores files changed since, or with unsaved edits, too).
function M.undo_turn(force)
  with_client(function(client, filebuf)
    local arg = folder_arg(filebuf)
    if force then
      arg = vim.tbl_extend("force", type(arg) == "table" and arg or {}, { force = true })
    end
    local modified_before = {}
    for path, b in pairs(file_buffers()) do
      modified_before[path] = vim.bo[b].modified or nil
    end
    servers.execute(client, "hermes.undoTurn", arg, function(err, result)
      if err then
        return handlers.notify_error(err)
      end
      result = type(result) == "table" and result or {}
      for _, s in ipairs(type(result.skipped) == "table" and result.skipped or {}) do
        notify(string.format("Hermes: %s left as it is: %s", s.path, s.reason), levels.WARN)
      end
      if type(result.restored) == "table" and client.config.root_dir then
        save_restored(client.config.root_dir, result.restored, modified_before)
      end
      vim.cmd("checktime")
    end, filebuf)
  end)
end

-- login signs codex in (:Hermes login, hermes.login): ChatGPT in the browser, or with a device code
-- when Neovim runs over SSH (the browser is on another machine). The server opens the page itself
-- through window/showDocument when it can (opened = true); else it is opened or shown here.
function M.login(method)
  with_client(function(client)
    if method == nil or method == "" then
      method = (os.getenv("SSH_CONNECTION") or "") ~= "" and "deviceCode" or "chatgpt"
    end
    servers.execute(client, "hermes.login", { method = method }, function(err, result)
      if err then
        return handlers.notify_error(err)
      end
      M.show_login(result)
    end)
  end)
end

-- show_login tells what hermes.login answered, and opens its page when the server did not.
function M.show_login(result)
  result = type(result) == "table" and result or {}
  local who = result.alreadySignedIn
  if type(who) == "table" then
    return notify("Hermes: codex is already signed in" .. (who.email and (" as " .. who.email) or ""), levels.INFO)
  end
  local url = tostring(result.url or "")
  local code = result.userCode and result.userCode ~= vim.NIL and tostring(result.userCode) or nil
  if result.opened then
    return notify("Hermes: sign in to ChatGPT in your browser" .. (code and (", code " .. code) or ""), levels.INFO)
  end
  -- No page: the server would not open the one codex named (not https) and has said so itself.
  if url == "" then
    return
  end
  -- A device code is entered on another machine's browser: opening the page here would not help.
  if not code and vim.ui.open and url ~= "" then
    pcall(vim.ui.open, url)
  end
  local msg = "Hermes: to sign codex in, open " .. url
  if code then
    msg = msg .. " and enter the code " .. code
  end
  -- Whole, even if it asks for Enter: the page and the code are what the person needs.
  handlers.notify_full(msg, levels.WARN)
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

return M
