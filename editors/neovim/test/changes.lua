-- The agent's changes under review in a real (headless) Neovim, driven by editors/neovim/changes_test.go:
-- a turn of the real codex patches two hunks of the open notes.txt (approved "Allow once" in the
-- scripted picker); the buffer shows the patch (timed from the file's modification), each hunk is
-- a Hint diagnostic of source hermes and code change that ]d reaches; :Hermes changes lists both in
-- the quickfix list; :Hermes preview shows the first's old text in a float; the second is reverted
-- through the code action "Hermes: revert this change" (picked in vim.ui.select), saved; the first
-- is kept with :Hermes keep. A second turn then runs (the model hears of the revert), and
-- $HERMES_NVIM_RUNS more turns each patch the open file once, each timed from its modification
-- on disk to the buffer showing it; :Hermes revert then puts back the line the last of them
-- replaced. The outcome is a JSON summary written to $HERMES_NVIM_SUMMARY.
local started = vim.loop.hrtime()
local function elapsed_ms()
  return math.floor((vim.loop.hrtime() - started) / 1e6)
end

local function log(msg)
  io.stderr:write(string.format("[changes +%dms] %s\n", elapsed_ms(), msg))
end

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local getenv, wait_for = harness.getenv, harness.wait_for

local summary = {
  nvimVersion = tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. "." .. tostring(
    vim.version().patch
  ),
  notifications = {},
  turns = 0,
  diskToBufferMs = {},
}

local function finish(err)
  harness.finish(summary, err, { duration_ms = elapsed_ms(), log = log })
end

-- now_ms is the wall clock in ms, as the file system's modification times count.
local function now_ms()
  local sec, usec = vim.loop.gettimeofday()
  return sec * 1000 + usec / 1000
end

-- mtime_ms is the file's modification time in ms.
local function mtime_ms(path)
  local st = assert(vim.loop.fs_stat(path))
  return st.mtime.sec * 1000 + st.mtime.nsec / 1e6
end

-- change_diagnostics are the buffer's diagnostics of the changes under review.
local function change_diagnostics(bufnr)
  local out_ = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local code = d.code
    if code == nil and type(d.user_data) == "table" and type(d.user_data.lsp) == "table" then
      code = d.user_data.lsp.code -- 0.7 keeps the code there
    end
    if d.source == "hermes" and code == "change" then
      table.insert(out_, { lnum = d.lnum, message = d.message, severity = d.severity })
    end
  end
  table.sort(out_, function(a, b)
    return a.lnum < b.lnum
  end)
  return out_
end

local function run()
  local server = getenv("HERMES_NVIM_SERVER")
  local settings = vim.json.decode(getenv("HERMES_NVIM_SETTINGS"))
  local file = getenv("HERMES_NVIM_FILE")
  local runs = tonumber(getenv("HERMES_NVIM_RUNS"))

  -- The picker: "Allow once" for every approval; the code action named by pick_action.
  local pick_action
  vim.ui.select = function(items, opts, on_choice)
    local titles = {}
    for _, item in ipairs(items) do
      table.insert(titles, opts.format_item and opts.format_item(item) or tostring(item))
    end
    local want = opts.kind == "hermes.approval" and "Allow once" or pick_action
    if opts.kind ~= "hermes.approval" then
      summary.codeActions = titles
    end
    vim.defer_fn(function()
      for i, t in ipairs(titles) do
        if t == want then
          return on_choice(items[i], i)
        end
      end
      on_choice(nil, nil)
    end, 10)
  end
  vim.notify = function(msg, level)
    table.insert(summary.notifications, { message = tostring(msg), level = level or vim.NIL })
    log("notify: " .. tostring(msg))
  end

  local hermes = require("hermes")
  hermes.setup({
    cmd = { server, "--log-file", getenv("HERMES_NVIM_SERVER_LOG"), "--log-level", "debug" },
    settings = settings,
  })
  require("hermes.handlers").on_turn_event = function(params)
    if params.event.kind == "turnCompleted" then
      summary.turns = summary.turns + 1
    end
  end

  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for("the server to initialize", 15000, function()
    local cs = hermes.clients()
    return #cs == 1 and cs[1].initialized and vim.lsp.buf_is_attached(bufnr, cs[1].id)
  end)
  local client = hermes.clients()[1]
  local function line(n)
    return vim.api.nvim_buf_get_lines(bufnr, n - 1, n, false)[1]
  end

  -- The patch of two hunks: the buffer shows it, then its two changes.
  vim.cmd("Hermes ask Patch the notes.")
  if
    not vim.wait(30000, function()
      return line(2) == "Second line, patched." and line(5) == "Fifth line, patched."
    end, 1)
  then
    error("notes.txt's buffer did not show the patch: " .. vim.inspect(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)))
  end
  summary.patchDiskToBufferMs = math.floor(now_ms() - mtime_ms(file))
  wait_for("the two changes' diagnostics", 10000, function()
    return #change_diagnostics(bufnr) == 2
  end)
  summary.diagnostics = change_diagnostics(bufnr)
  wait_for("the patch turn to end", 30000, function()
    return summary.turns >= 1
  end)

  -- ]d from the top reaches the first change.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.diagnostic.goto_next({ float = false })
  summary.nextDiagnosticLine = vim.api.nvim_win_get_cursor(0)[1]

  -- :Hermes changes: both, in the quickfix list.
  vim.cmd("Hermes changes")
  wait_for("the quickfix list", 10000, function()
    return #vim.fn.getqflist() == 2
  end)
  summary.quickfix = {}
  for _, it in ipairs(vim.fn.getqflist()) do
    table.insert(summary.quickfix, { lnum = it.lnum, text = it.text, file = vim.api.nvim_buf_get_name(it.bufnr) })
  end
  summary.quickfixTitle = vim.fn.getqflist({ title = 1 }).title
  vim.cmd("cclose")
  vim.api.nvim_set_current_buf(bufnr)

  -- :Hermes preview on the first change: its old text in a float.
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  local changes = require("hermes.changes")
  changes.last_preview = nil
  vim.cmd("Hermes preview")
  wait_for("the preview float", 10000, function()
    return changes.last_preview ~= nil
  end)
  summary.preview = vim.api.nvim_buf_get_lines(changes.last_preview.buf, 0, -1, false)
  -- 0.7 sets the float's syntax, later releases its filetype.
  local pb = changes.last_preview.buf
  summary.previewFiletype = vim.bo[pb].filetype ~= "" and vim.bo[pb].filetype or vim.bo[pb].syntax
  pcall(vim.api.nvim_win_close, changes.last_preview.win, true)

  -- The second change reverted through its code action.
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  pick_action = "Hermes: revert this change"
  vim.lsp.buf.code_action()
  wait_for("the revert in the buffer, saved", 15000, function()
    return line(5) == "Fifth line." and not vim.bo[bufnr].modified
  end)
  wait_for("the reverted change's diagnostic to go", 10000, function()
    return #change_diagnostics(bufnr) == 1
  end)
  summary.afterRevert = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")

  -- The first kept with :Hermes keep.
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.cmd("Hermes keep")
  wait_for("the kept change's diagnostic to go", 10000, function()
    return #change_diagnostics(bufnr) == 0
  end)
  summary.afterKeep = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")

  -- A second turn: its request to the model tells of the revert (the Go test reads it).
  vim.cmd("Hermes ask Anything else?")
  wait_for("the second turn to end", 30000, function()
    return summary.turns >= 2
  end)

  -- Timed patches: each turn patches the first line once.
  for i = 1, runs do
    local want = "Latency run " .. i .. "."
    vim.cmd("Hermes ask Latency " .. i)
    if not vim.wait(30000, function()
      return line(1) == want
    end, 1) then
      error("run " .. i .. ": the buffer did not show the patch: " .. tostring(line(1)))
    end
    table.insert(summary.diskToBufferMs, math.floor(now_ms() - mtime_ms(file)))
    wait_for("timed turn " .. i .. " to end", 30000, function()
      return summary.turns >= 2 + i
    end)
  end

  -- :Hermes revert on the last timed patch (line 1): the line before it comes back, saved.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local before_last = runs > 1 and ("Latency run " .. (runs - 1) .. ".") or "First line."
  wait_for("the last timed patch's change (its diagnostic)", 10000, function()
    return #change_diagnostics(bufnr) == 1
  end)
  vim.cmd("Hermes revert")
  wait_for("the :Hermes revert in the buffer, saved", 15000, function()
    return line(1) == before_last and not vim.bo[bufnr].modified
  end)
  wait_for("the :Hermes revert's diagnostic to go", 10000, function()
    return #change_diagnostics(bufnr) == 0
  end)
  summary.commandRevertLine = line(1)

  harness.stop_server(hermes, client)
  summary.serverStopped = true
end

local ok, err = xpcall(run, debug.traceback)
finish(not ok and tostring(err) or nil)
