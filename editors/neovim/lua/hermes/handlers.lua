-- LSP handlers of the hermes client (set per client: other language servers keep Neovim's own).
local approvals = require("hermes.approvals")
local compat = require("hermes.compat")
local view = require("hermes.view")

local M = {}

local api = vim.api
local levels = vim.log.levels

-- Progress and approvals, per client: what the statusline shows.
M.progress = {} -- client_id -> token -> { title, message, done }
M.on_update = function() end
M.config = { notify_progress = true }

-- one_line fits msg on the command line: its first line, cut to v:echospace cells with "…". A
-- longer message makes Neovim stop at the hit-enter prompt ("Press ENTER") after every answer; the
-- whole text is in the Hermes buffer, in K on the line a turn was asked from, and in the transcript.
function M.one_line(msg)
  local s = tostring(msg):gsub("%s*\n.*$", "")
  local width = math.max(vim.v.echospace or 0, 20)
  if vim.fn.strdisplaywidth(s) <= width then
    return s
  end
  local n = math.min(vim.fn.strchars(s), width)
  local cut = vim.fn.strcharpart(s, 0, n)
  while n > 0 and vim.fn.strdisplaywidth(cut) > width - 1 do
    n = n - 1
    cut = vim.fn.strcharpart(s, 0, n)
  end
  return cut .. "…"
end

-- notify tells the person something on the main path (a turn's start and end, its answer, an undo,
-- a review): on one line (one_line), but for errors, which are shown whole.
local function notify(msg, level)
  level = level or levels.INFO
  if level < levels.ERROR then
    msg = M.one_line(msg)
  end
  vim.notify(msg, level, { title = "Hermes" })
end
M.notify = notify
approvals.notify = notify

-- notify_full shows msg whole, on as many lines as it has: what the person asked to read
-- (:Hermes status).
function M.notify_full(msg, level)
  vim.notify(msg, level or levels.INFO, { title = "Hermes" })
end

-- notify_error tells of a command that failed, with the server's message.
function M.notify_error(err)
  notify("Hermes: " .. tostring(err.message or err), levels.ERROR)
end

local function updated()
  pcall(M.on_update)
end

-- window/showMessageRequest: never answered from here (Neovim 0.7's stock handler blocks in
-- inputlist(), and before 0.10 a server request must be answered synchronously). The error makes
-- hermes-lsp fall back to hermes.approve for the rest of the session; approvals.lua asks the person
-- asynchronously through vim.ui.select.
M["window/showMessageRequest"] = function()
  return nil,
    compat.response_error(-32601, "hermes.nvim asks approvals with vim.ui.select and answers them with hermes.approve")
end

-- show_document_07 is window/showDocument for Neovim 0.7, which has no handler of its own: the
-- file opens in a split (or the window already showing it); takeFocus false keeps the cursor where
-- it is.
local function show_document_07(_, params)
  if type(params) ~= "table" or type(params.uri) ~= "string" then
    return { success = false }
  end
  local uri = params.uri
  if params.external or not uri:match("^file:") then
    local opener
    if vim.ui.open then
      local ok = pcall(vim.ui.open, uri)
      return { success = ok }
    end
    if vim.fn.executable("xdg-open") == 1 then
      opener = "xdg-open"
    elseif vim.fn.executable("open") == 1 then
      opener = "open"
    end
    if not opener then
      return { success = false }
    end
    return { success = vim.fn.jobstart({ opener, uri }, { detach = true }) > 0 }
  end
  local ok, err = pcall(function()
    local b = vim.uri_to_bufnr(uri)
    -- An error of a BufRead autocommand or ftplugin still leaves the buffer loaded: show it anyway.
    local loaded, load_err = pcall(vim.fn.bufload, b)
    if not loaded then
      notify("Hermes: opening " .. uri .. ": " .. tostring(load_err), levels.WARN)
    end
    vim.bo[b].buflisted = true
    local cur = api.nvim_get_current_win()
    local shown = view.windows_of(b, 0)
    local win = shown[#shown]
    if not win then
      vim.cmd(M.config.document_split or "belowright split")
      win = api.nvim_get_current_win()
      pcall(api.nvim_win_set_buf, win, b)
      if api.nvim_win_get_buf(win) ~= b then
        api.nvim_win_set_buf(win, b)
      end
    end
    local sel = params.selection
    if type(sel) == "table" and type(sel.start) == "table" then
      local row = (tonumber(sel.start.line) or 0) + 1
      row = math.min(row, api.nvim_buf_line_count(b))
      local line = api.nvim_buf_get_lines(b, row - 1, row, false)[1] or ""
      pcall(api.nvim_win_set_cursor, win, { row, compat.byte_col(line, tonumber(sel.start.character) or 0) })
    end
    if params.takeFocus == false then
      if api.nvim_win_is_valid(cur) then
        api.nvim_set_current_win(cur)
      end
    else
      api.nvim_set_current_win(win)
    end
  end)
  if not ok then
    notify("Hermes: could not open " .. uri .. ": " .. tostring(err), levels.WARN)
  end
  return { success = ok }
end

-- The runtime's handler (0.8+) is used where it exists: it reuses a window already showing the
-- file, honours takeFocus and the selection, and opens external URIs (vim.ui.open on 0.10+). It
-- cannot open a focused document in a split of its own (it replaces the current window's buffer),
-- so the plugin's `document_split` (the transcript beside the file you work on) opens the split
-- first and lets the runtime's handler fill it.
M["window/showDocument"] = function(err, params, ctx, config)
  local builtin = vim.lsp.handlers["window/showDocument"]
  if not builtin then
    return show_document_07(err, params, ctx, config)
  end
  local file = type(params) == "table"
    and type(params.uri) == "string"
    and not params.external
    and params.uri:match("^file:")
  local b = file and vim.uri_to_bufnr(params.uri)
  local split
  if file and params.takeFocus ~= false and M.config.document_split and #view.windows_of(b, 0) == 0 then
    vim.cmd(M.config.document_split)
    split = api.nvim_get_current_win()
  end
  local ok, result, rerr = pcall(builtin, err, params, ctx, config)
  -- The runtime's handler used a window of another tab page: the split is not needed.
  if split and api.nvim_win_is_valid(split) and api.nvim_win_get_buf(split) ~= b then
    pcall(api.nvim_win_close, split, false)
  end
  if not ok then
    -- An error of a BufRead autocommand or ftplugin (a missing tree-sitter parser) after the file
    -- was shown: say so, and tell the server it is open (else it repeats the path in a message).
    notify("Hermes: opening " .. tostring(params.uri) .. ": " .. tostring(result):match("[^\n]*"), levels.WARN)
    return { success = b ~= nil and #vim.fn.win_findbuf(b) > 0 }
  end
  return result, rerr
end

-- workspace/inlayHint/refresh: the hints of the buffers the server attaches to and a window shows
-- are asked for again, as the runtime's handler does; on 0.10 by enabling them anew in each buffer,
-- which also forgets which lines the runtime drew them on. 0.10's handler keeps that, and draws a
-- line's hints again only once its text changes: the line a turn was asked from kept "⋯ working"
-- (or no hint at all) after the turn ended. 0.11 and later forget it themselves.
M["workspace/inlayHint/refresh"] = function(err, result, ctx, config)
  local builtin = vim.lsp.handlers["workspace/inlayHint/refresh"]
  if compat.nvim_0_11 or not compat.nvim_0_10 then
    return builtin and builtin(err, result, ctx, config) or vim.NIL
  end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  for b in pairs(client and client.attached_buffers or {}) do
    if #vim.fn.win_findbuf(b) > 0 and vim.lsp.inlay_hint.is_enabled({ bufnr = b }) then
      vim.lsp.inlay_hint.enable(true, { bufnr = b })
    end
  end
  return vim.NIL
end

-- $/progress: Neovim's own handler first (it feeds LspProgressUpdate / LspProgress and the
-- statusline plugins built on them), then the Hermes statusline and a notification at begin and end.
M["$/progress"] = function(err, result, ctx, config)
  local default = vim.lsp.handlers["$/progress"]
  if default then
    pcall(default, err, result, ctx, config)
  end
  if type(result) ~= "table" or type(result.value) ~= "table" then
    return
  end
  local id = ctx.client_id
  local token = tostring(result.token)
  local v = result.value
  M.progress[id] = M.progress[id] or {}
  local p = M.progress[id][token] or {}
  M.progress[id][token] = p
  if v.kind == "begin" then
    p.title, p.message, p.done = v.title or "Hermes", v.message, false
    if M.config.notify_progress then
      notify("Hermes: " .. tostring(v.message or v.title or "working"), levels.INFO)
    end
  elseif v.kind == "report" then
    p.message = v.message or p.message
  elseif v.kind == "end" then
    p.message, p.done = v.message or p.message, true
    M.progress[id][token] = nil
    if M.config.notify_progress then
      notify("Hermes: " .. tostring(v.message or "done"), levels.INFO)
    end
  end
  updated()
end

-- hermes/turnEvent: the Hermes buffer, and the approvals to ask about.
M["hermes/turnEvent"] = function(_, params, ctx)
  if type(params) ~= "table" or type(params.event) ~= "table" then
    return
  end
  local ev = params.event
  local ok, e = pcall(view.on_event, params)
  if not ok then
    notify("Hermes: could not show a turn event: " .. tostring(e), levels.WARN)
  end
  if ev.kind == "approvalWaiting" and type(ev.approval) == "table" then
    approvals.on_waiting(ctx.client_id, ev.approval)
  elseif ev.kind == "approvalResolved" and type(ev.approval) == "table" then
    approvals.on_resolved(ev.approval)
  end
  local patched = ev.kind == "toolCompleted"
    and type(ev.tool) == "table"
    and ev.tool.name == "apply_patch"
    and not ev.tool.isError
  if patched or ev.kind == "turnCompleted" then
    -- The agent changed files on disk: buffers follow (a clean one reloads, as 'autoread' does;
    -- Neovim asks about a modified one). Never :e!, which would throw the user's edits away.
    vim.schedule(function()
      pcall(vim.cmd, "checktime")
    end)
  end
  if M.on_turn_event then
    pcall(M.on_turn_event, params, ctx)
  end
  updated()
end

-- workspace/applyEdit: Neovim's own handler applies the edit; a revert of the agent's changes
-- (hermes.revertChange: its label says so) is then saved in the buffers that had no unsaved edits
-- before it, as VS Code saves it, so that the disk holds what the server says it put back.
M["workspace/applyEdit"] = function(err, params, ctx, config)
  local default = vim.lsp.handlers["workspace/applyEdit"]
  local label = type(params) == "table" and params.label or nil
  if type(label) ~= "string" or not vim.startswith(label, "Hermes: revert ") then
    return default(err, params, ctx, config)
  end
  local clean = {}
  local edit = type(params.edit) == "table" and params.edit or {}
  for _, dc in ipairs(type(edit.documentChanges) == "table" and edit.documentChanges or {}) do
    if type(dc) == "table" and type(dc.textDocument) == "table" and type(dc.textDocument.uri) == "string" then
      local b = vim.fn.bufnr(vim.uri_to_fname(dc.textDocument.uri))
      if b ~= -1 and vim.api.nvim_buf_is_loaded(b) and not vim.bo[b].modified then
        clean[b] = true
      end
    end
  end
  local res = default(err, params, ctx, config)
  if type(res) == "table" and res.applied then
    for b in pairs(clean) do
      if vim.bo[b].modified then
        local ok, e = pcall(vim.api.nvim_buf_call, b, function()
          vim.cmd("silent keepalt update")
        end)
        if not ok then
          notify("Hermes: the reverted text is in its buffer, but not saved: " .. tostring(e), levels.WARN)
        end
      end
    end
  end
  return res
end

-- window/showMessage through vim.notify (so notification plugins apply). The server's fallback
-- instructions for an approval ("answer with a code action or hermes.approve") are not shown: the
-- plugin asks about that approval itself.
local message_levels = { levels.ERROR, levels.WARN, levels.INFO, levels.DEBUG }
M["window/showMessage"] = function(_, params, ctx)
  if type(params) ~= "table" then
    return
  end
  local msg = tostring(params.message or "")
  local id = msg:match("%(approval ([^%)%s]+)%)")
  if id and msg:find("hermes.approve", 1, true) then
    if approvals.state(id) == nil then
      -- Not announced by a turn event (yet): ask about it from hermes.status in a second. Not a
      -- poll but a grace period: the turn event usually follows, and no event says it will not.
      vim.defer_fn(function()
        if approvals.state(id) == nil and M.on_unknown_approval then
          M.on_unknown_approval(ctx.client_id, id)
        end
      end, 1000)
    end
    return
  end
  notify(msg, message_levels[params.type] or levels.INFO)
end

return M
