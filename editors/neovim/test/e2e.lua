-- End-to-end test of hermes.nvim in a real (headless) Neovim, driven by editors/neovim/neovim_test.go:
-- the plugin's own setup and commands run approval-gated turns of the real codex against the fake
-- model. vim.ui.select is replaced by a scripted "picker" (what a picker plugin does: it calls
-- on_choice later), vim.notify by a recorder. The outcome is a JSON summary written to
-- $HERMES_NVIM_SUMMARY; Neovim exits 0, or 1 (cquit) on failure.
--
-- The fake model's script (set by the Go test): an exec approval answered "Allow once" in the picker,
-- a patch approval where the picker first asks "Show diff" and is then dismissed, answered with
-- :HermesApprove once; the final message. A second turn patches a clean buffer's file (it must
-- reload) and a modified buffer's (it must keep the user's text), then :HermesUndo. K shows the
-- first turn on its line; a prompt typed in the Hermes buffer's input area runs a third turn;
-- :HermesReview's finding arrives in vim.diagnostic. A last turn hangs until :HermesStop.
--
-- nvim --headless --clean --cmd "set rtp+=editors/neovim" -c "luafile editors/neovim/test/e2e.lua"
local started = vim.loop.hrtime()
local function elapsed_ms()
  return math.floor((vim.loop.hrtime() - started) / 1e6)
end

local function log(msg)
  io.stderr:write(string.format("[e2e +%dms] %s\n", elapsed_ms(), msg))
end

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local getenv, wait_for = harness.getenv, harness.wait_for

local summary = {
  nvimVersion = tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. "." .. tostring(
    vim.version().patch
  ),
  selects = {},
  notifications = {},
  statuslines = {},
  turnEventKinds = {},
  turnResults = {},
  askResults = {},
}

local function finish(err)
  harness.finish(summary, err, { duration_ms = elapsed_ms(), log = log })
end

local function count(list, value)
  local n = 0
  for _, v in ipairs(list) do
    if v == value then
      n = n + 1
    end
  end
  return n
end

local function run()
  local server = getenv("HERMES_NVIM_SERVER")
  local settings = vim.json.decode(getenv("HERMES_NVIM_SETTINGS"))
  local file = getenv("HERMES_NVIM_FILE")
  local prompt = getenv("HERMES_NVIM_PROMPT")
  local log_file = getenv("HERMES_NVIM_SERVER_LOG")

  -- A picker that answers from a script, asynchronously.
  local patch_asks = 0
  local notes_patch = false -- the picker is asked about the patch of notes.txt
  local notes_allowed_at -- when the picker answered it (hrtime)
  vim.ui.select = function(items, opts, on_choice)
    local titles = {}
    for _, item in ipairs(items) do
      table.insert(titles, opts.format_item and opts.format_item(item) or tostring(item))
    end
    local rec = { prompt = opts.prompt, kind = opts.kind, items = titles }
    local answer
    if opts.kind == "hermes.approval" and opts.prompt:find("wants to run", 1, true) then
      answer = "Allow once"
    elseif
      opts.kind == "hermes.approval"
      and opts.prompt:find("apply a patch", 1, true)
      and opts.prompt:find("notes.txt", 1, true)
    then
      answer = "Allow once"
      notes_patch = true
    elseif
      opts.kind == "hermes.approval"
      and opts.prompt:find("apply a patch", 1, true)
      and opts.prompt:find("dirty.txt", 1, true)
    then
      answer = "Allow once"
    elseif opts.kind == "hermes.approval" and opts.prompt:find("apply a patch", 1, true) then
      patch_asks = patch_asks + 1
      if patch_asks == 1 then
        answer = "Show diff"
      else
        -- Asked again with the diff beside the picker.
        local b = vim.fn.bufnr("hermes-diff://")
        for _, buf in ipairs(vim.api.nvim_list_bufs()) do
          if vim.api.nvim_buf_get_name(buf):match("^hermes%-diff://") then
            b = buf
          end
        end
        if b ~= -1 then
          summary.diffText = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n")
          summary.diffShown = #vim.fn.win_findbuf(b) > 0
        end
      end -- then dismissed: the approval stays waiting for :HermesApprove
    end
    rec.answered = answer or vim.NIL
    rec.mode = vim.api.nvim_get_mode().mode
    table.insert(summary.selects, rec)
    log("select: " .. tostring(opts.prompt) .. " -> " .. tostring(answer))
    local is_notes = notes_patch
    notes_patch = false
    vim.defer_fn(function()
      local idx
      for i, t in ipairs(titles) do
        if t == answer then
          idx = i
        end
      end
      if is_notes then
        notes_allowed_at = vim.loop.hrtime()
      end
      on_choice(idx and items[idx] or nil, idx)
    end, 30)
  end
  vim.ui.input = function()
    error("vim.ui.input was not expected")
  end
  -- A notification makes Neovim stop at the hit-enter prompt when it has several lines or is wider
  -- than the command line (v:echospace, with the default 'cmdheight' of 1).
  vim.notify = function(msg, level)
    msg = tostring(msg)
    local fits = not msg:find("\n") and vim.fn.strdisplaywidth(msg) <= vim.v.echospace
    table.insert(summary.notifications, { message = msg, level = level or vim.NIL, fits = fits })
    log("notify: " .. msg)
  end

  local hermes = require("hermes")
  hermes.setup({
    cmd = { server, "--log-file", log_file, "--log-level", "debug" },
    settings = settings,
  })
  vim.api.nvim_create_autocmd("User", {
    pattern = "HermesUpdate",
    callback = function()
      local s = hermes.statusline()
      if s ~= "" and summary.statuslines[#summary.statuslines] ~= s then
        table.insert(summary.statuslines, s)
      end
    end,
  })
  require("hermes.handlers").on_turn_event = function(params)
    local ev = params.event
    table.insert(summary.turnEventKinds, ev.kind)
    -- Draw the screen as a UI would while the turn runs (headless Neovim draws only on :redraw):
    -- the inlay hint of the line asked from is on it, "⋯ working" or "⏸ approval".
    vim.cmd("redraw")
    if ev.kind == "turnCompleted" then
      table.insert(summary.turnResults, {
        status = ev.result and ev.result.status or vim.NIL,
        finalText = ev.result and ev.result.finalText or vim.NIL,
        threadId = params.threadId or vim.NIL,
      })
    end
  end

  -- Opening a file of the workspace starts the server and attaches the buffer.
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for("the server to initialize", 15000, function()
    local cs = hermes.clients()
    return #cs == 1 and cs[1].initialized and vim.lsp.buf_is_attached(bufnr, cs[1].id)
  end)
  local client = hermes.clients()[1]
  summary.serverPid = client.rpc and client.rpc.pid or vim.NIL
  if summary.serverPid == vim.NIL then
    -- 0.10 and later do not expose the pid: the server is Neovim's child named like the binary.
    for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
      local proc = vim.api.nvim_get_proc(pid)
      if proc and proc.name == vim.fn.fnamemodify(server, ":t") then
        summary.serverPid = pid
      end
    end
  end
  summary.rootDir = client.config.root_dir
  log("server initialized, pid " .. tostring(summary.serverPid))

  -- Inlay hints on (0.10+): the line asked from shows the turn's state.
  local hints = vim.lsp.inlay_hint ~= nil and vim.fn.has("nvim-0.10") == 1
  if hints then
    vim.lsp.inlay_hint.enable(true)
  end

  -- A characterwise visual selection of the first two lines, then :'<,'>HermesAsk.
  vim.cmd("normal! gg0vj$\27")
  vim.cmd("'<,'>Hermes ask " .. prompt) -- :Hermes; later steps use the old aliases too
  wait_for("the patch approval to be dismissed in the picker", 60000, function()
    return patch_asks == 2 or #summary.turnResults >= 1
  end)
  -- The dismissed approval is still waiting: answer it with the command (it finds it in
  -- hermes.status).
  vim.wait(100)
  vim.cmd("Hermes approve once")
  wait_for("the first turn to end", 60000, function()
    return #summary.turnResults >= 1
  end)
  summary.answerBuffer = require("hermes.view").text(summary.rootDir)
  -- The diff shown for the patch went with the decision (:Hermes approve once).
  wait_for("the diff to close after the decision", 5000, function()
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_get_name(b):match("^hermes%-diff://") and #vim.fn.win_findbuf(b) > 0 then
        return false
      end
    end
    return true
  end)
  summary.diffClosed = true
  if hints then
    -- The hint on the line asked from says the turn is done, and the screen shows it: the runtime
    -- redraws only lines whose text changed, and this line's did not.
    local label
    wait_for("the inlay hint of the ended turn", 10000, function()
      for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = bufnr })) do
        local l = h.inlay_hint.label
        if type(l) == "table" then
          local parts = {}
          for _, p in ipairs(l) do
            table.insert(parts, p.value)
          end
          l = table.concat(parts)
        end
        if h.inlay_hint.position.line == 0 and tostring(l):find("done", 1, true) then
          label = l
          return true
        end
      end
      return false
    end)
    -- The hint's refresh redraws the line a moment after the new hint is in the runtime's cache:
    -- wait for the screen (a plain redraw each time, never a forced one), or report what it shows.
    local function screen_line()
      vim.cmd("redraw")
      local win = vim.fn.bufwinid(bufnr)
      local row = vim.fn.screenpos(win, 1, 1).row
      local cells = {}
      for c = 1, vim.o.columns do
        table.insert(cells, vim.fn.screenstring(row, c))
      end
      return table.concat(cells)
    end
    local shown = screen_line()
    vim.wait(5000, function()
      shown = screen_line()
      return shown:find(label, 1, true) ~= nil
    end, 20)
    summary.hintLabel = label
    summary.hintScreenLine = shown
  end
  wait_for("the progress to end", 5000, function()
    return hermes.statusline() == ""
  end)

  -- :HermesStatus reports the folder's thread through vim.notify.
  local before = #summary.notifications
  vim.cmd("Hermes status")
  wait_for(":HermesStatus", 10000, function()
    for i = before + 1, #summary.notifications do
      if summary.notifications[i].message:find("thread", 1, true) then
        summary.statusMessage = summary.notifications[i].message
        return true
      end
    end
    return false
  end)

  -- :HermesTranscript opens the transcript through window/showDocument (Neovim 0.7 has no handler
  -- of its own: the plugin's).
  vim.cmd("Hermes transcript")
  wait_for(":HermesTranscript to open the transcript", 10000, function()
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      local name = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w))
      if name:match("%.md$") then
        summary.transcriptWindow = name
        summary.transcriptFocused = w == vim.api.nvim_get_current_win()
        summary.transcriptText =
          table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "\n")
        return true
      end
    end
    return false
  end)

  -- A turn patches two open files: notes.txt, whose buffer is clean (:checktime reloads it), and
  -- dirty.txt, whose buffer has unsaved edits (they stay; the approval says so). Then :HermesUndo.
  vim.cmd("edit " .. vim.fn.fnameescape(getenv("HERMES_NVIM_DIRTY_FILE")))
  local dirtybuf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(dirtybuf, 0, 1, false, { "The user's unsaved line." })
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local notesbuf = vim.api.nvim_get_current_buf()
  local function notes_line3()
    return vim.api.nvim_buf_get_lines(notesbuf, 2, 3, false)[1]
  end
  vim.cmd("HermesAsk Patch the notes and the dirty file.")
  wait_for("the patch of notes.txt to be allowed", 60000, function()
    return notes_allowed_at ~= nil
  end)
  if not vim.wait(20000, function()
    return notes_line3() == "Third line, patched by the agent."
  end, 2) then
    error("notes.txt's buffer did not show the patch: " .. tostring(notes_line3()))
  end
  summary.patchToBufferMs = math.floor((vim.loop.hrtime() - notes_allowed_at) / 1e6)
  summary.patchedModified = vim.bo[notesbuf].modified
  log(string.format("notes.txt's buffer shows the patch %d ms after it was allowed", summary.patchToBufferMs))
  wait_for("the patch turn to end", 60000, function()
    return #summary.turnResults >= 2
  end)
  vim.wait(200) -- the turn's end runs :checktime again: it must keep the user's text too
  summary.dirtyLine = vim.api.nvim_buf_get_lines(dirtybuf, 0, 1, false)[1]
  summary.dirtyModified = vim.bo[dirtybuf].modified

  local before_undo = #summary.notifications
  vim.cmd("HermesUndo")
  wait_for(":HermesUndo to restore notes.txt", 20000, function()
    return notes_line3() == "Third line." and not vim.bo[notesbuf].modified
  end)
  wait_for(":HermesUndo to name the file it left", 5000, function()
    for i = before_undo + 1, #summary.notifications do
      if summary.notifications[i].message:find("left as it is", 1, true) then
        summary.undoSkipped = summary.notifications[i].message
        return true
      end
    end
    return false
  end)
  summary.undoneText = table.concat(vim.api.nvim_buf_get_lines(notesbuf, 0, -1, false), "\n")
  summary.dirtyLineAfterUndo = vim.api.nvim_buf_get_lines(dirtybuf, 0, 1, false)[1]

  -- K on the line the first turn was asked from (the selection's first line) shows its answer.
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd("normal K")
  wait_for("K to show the hover", 10000, function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= "" then
        summary.hoverText = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "\n")
        pcall(vim.api.nvim_win_close, w, true)
        return true
      end
    end
    return false
  end)

  -- A prompt typed in the Hermes buffer's input area, sent with <CR>, runs on the same thread.
  vim.cmd("Hermes open")
  local hb = require("hermes.view").buffer(summary.rootDir, false)
  summary.hermesBufferFocused = vim.api.nvim_get_current_buf() == hb
  vim.api.nvim_buf_set_lines(hb, -2, -1, false, { "INPUT-AREA-MARKER typed in the Hermes buffer" })
  vim.cmd("normal " .. vim.api.nvim_replace_termcodes("<CR>", true, false, true))
  wait_for("the turn from the input area to end", 60000, function()
    return #summary.turnResults >= 3
  end)
  summary.inputAreaAfter = require("hermes.view").input(summary.rootDir)
  summary.hermesBufferText = require("hermes.view").text(summary.rootDir)
  vim.cmd("wincmd p")

  -- :HermesReview: the finding on notes.txt arrives in vim.diagnostic.
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local notesbuf2 = vim.api.nvim_get_current_buf()
  vim.cmd("Hermes review")
  wait_for("the review's finding in vim.diagnostic", 60000, function()
    for _, d in ipairs(vim.diagnostic.get(notesbuf2)) do
      if d.source == "hermes" and tostring(d.message):find("Third line", 1, true) then
        summary.reviewDiagnostic =
          { message = d.message, lnum = d.lnum, severity = d.severity, code = d.code or vim.NIL }
        return true
      end
    end
    return false
  end)

  -- A fourth turn hangs in the model until :HermesStop, run from the file's window.
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  vim.cmd("HermesAsk Wait for the model.")
  wait_for("the fifth turn to start (the review was the fourth)", 20000, function()
    return count(summary.turnEventKinds, "turnStarted") >= 5
  end)
  -- Stop it once the model got its request (the Go test writes the file then): an interrupt that
  -- reaches codex before that request is lost (codex accepts it and the turn goes on).
  local hanging = getenv("HERMES_NVIM_HANG_SIGNAL")
  wait_for("the model request of the fourth turn", 20000, function()
    return vim.loop.fs_stat(hanging) ~= nil
  end)
  vim.cmd("HermesStop")
  wait_for("the fifth turn to stop", 30000, function()
    return #summary.turnResults >= 5
  end)

  -- Stop the server (it stops codex) and wait for it to exit.
  harness.stop_server(hermes, client)
  summary.serverStopped = true
end

local ok, err = xpcall(run, debug.traceback)
finish(not ok and tostring(err) or nil)
