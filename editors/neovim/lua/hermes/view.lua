-- The Hermes buffer: one scratch buffer per workspace folder, named hermes://<folder>, into which
-- the turns of that folder stream from `hermes/turnEvent` (the prompt, the answer as it is written,
-- tool calls with their results, approvals and how they were taken, the end of the turn). Below a
-- separator line is the input area: what is typed there is sent with <CR> in normal mode (a new
-- turn on the folder's thread, or steering the running one). The conversation streams in above
-- the separator, which an extmark follows.
local compat = require("hermes.compat")

local M = {}

local bufs = {} -- folder -> bufnr
local turns = {} -- folder -> { mode = "answer" | "tool" | ..., answered = bool }

M.config = {
  window = "botright split", -- how the buffer opens on a new turn; false: never
  height = 12,
  reasoning = false,
  max_result_lines = 20,
}

local api = vim.api
local ns = api.nvim_create_namespace("hermes_view")
local separators = {} -- bufnr -> extmark id of the separator line

-- SEPARATOR is the line between the conversation and the input area.
M.SEPARATOR = "──── Ask Hermes below · <CR> in normal mode sends (steers a running turn) ────"

-- M.on_send, set by the plugin, sends the input area's text: on_send(folder, text).
M.on_send = nil

-- content_count is the number of lines above the separator.
local function content_count(b)
  local id = separators[b]
  local pos = id and api.nvim_buf_get_extmark_by_id(b, ns, id, {}) or {}
  if pos[1] then
    return pos[1]
  end
  return api.nvim_buf_line_count(b)
end

-- input returns the text of the input area.
function M.input(folder)
  local b = M.buffer(folder, false)
  if not b then
    return ""
  end
  return vim.trim(table.concat(api.nvim_buf_get_lines(b, content_count(b) + 1, -1, false), "\n"))
end

-- send sends the input area's text and empties it.
function M.send(folder)
  local b = M.buffer(folder, false)
  local text = M.input(folder)
  if not b or text == "" then
    vim.notify("Hermes: type a prompt below the line first", vim.log.levels.INFO)
    return
  end
  api.nvim_buf_set_lines(b, content_count(b) + 1, -1, false, { "" })
  if M.on_send then
    M.on_send(folder, text)
  end
end

function M.buffer(folder, create)
  local b = bufs[folder]
  if b and api.nvim_buf_is_valid(b) then
    return b
  end
  if not create then
    return nil
  end
  b = api.nvim_create_buf(false, true)
  pcall(api.nvim_buf_set_name, b, "hermes://" .. folder)
  vim.bo[b].buftype = "nofile"
  vim.bo[b].bufhidden = "hide"
  vim.bo[b].swapfile = false
  vim.b[b].hermes_folder = folder
  bufs[folder] = b
  api.nvim_buf_set_lines(b, 0, -1, false, { "", M.SEPARATOR, "" })
  separators[b] = api.nvim_buf_set_extmark(b, ns, 1, 0, { hl_group = "Comment", end_col = #M.SEPARATOR })
  vim.keymap.set("n", "<CR>", function()
    M.send(folder)
  end, { buffer = b, desc = "Hermes: send the prompt below the line" })
  -- A broken markdown ftplugin (say, a missing tree-sitter parser) must not stop the streaming.
  pcall(function()
    vim.bo[b].filetype = "markdown"
  end)
  return b
end

-- folder_of_buffer says which folder a Hermes buffer belongs to (nil for other buffers).
function M.folder_of_buffer(bufnr)
  for folder, b in pairs(bufs) do
    if b == bufnr then
      return folder
    end
  end
  return nil
end

-- windows_of lists the windows showing buffer b: of tab page tab (0: the current one), or of every
-- tab page when tab is nil.
function M.windows_of(b, tab)
  local wins = {}
  for _, w in ipairs(tab and api.nvim_tabpage_list_wins(tab) or api.nvim_list_wins()) do
    if api.nvim_win_get_buf(w) == b then
      table.insert(wins, w)
    end
  end
  return wins
end

-- follow_end shows the newest lines in the windows of b, but the one the user types in.
local function follow_end(b)
  local last = api.nvim_buf_line_count(b)
  local cur = api.nvim_get_current_win()
  for _, w in ipairs(M.windows_of(b)) do
    if w ~= cur then
      pcall(api.nvim_win_set_cursor, w, { last, 0 })
    end
  end
end

local function write(b, fn)
  fn()
  follow_end(b)
end

-- append writes text at the end of the buffer, continuing its last line.
local function append(b, text)
  if text == nil or text == "" then
    return
  end
  text = text:gsub("\r\n", "\n")
  write(b, function()
    local last = content_count(b)
    local lastline = api.nvim_buf_get_lines(b, last - 1, last, false)[1] or ""
    local parts = compat.lines(text)
    parts[1] = lastline .. parts[1]
    api.nvim_buf_set_lines(b, last - 1, last, false, parts)
  end)
end

local function is_empty(b)
  return content_count(b) == 1 and api.nvim_buf_get_lines(b, 0, 1, false)[1] == ""
end

-- lines writes whole lines, starting on a fresh line.
local function lines(b, ls)
  write(b, function()
    local last = content_count(b)
    local lastline = api.nvim_buf_get_lines(b, last - 1, last, false)[1] or ""
    if is_empty(b) then
      api.nvim_buf_set_lines(b, 0, 1, false, ls)
    elseif lastline == "" then
      api.nvim_buf_set_lines(b, last - 1, last, false, ls)
    else
      api.nvim_buf_set_lines(b, last, last, false, ls)
    end
    -- Leave an empty last line: the next delta continues there.
    local n = content_count(b)
    api.nvim_buf_set_lines(b, n, n, false, { "" })
  end)
end

-- fresh makes the last line an empty one.
local function fresh(b)
  local last = content_count(b)
  if (api.nvim_buf_get_lines(b, last - 1, last, false)[1] or "") ~= "" then
    write(b, function()
      api.nvim_buf_set_lines(b, last, last, false, { "" })
    end)
  end
end

local function clip(s, n)
  s = tostring(s or "")
  if #s > n then
    return s:sub(1, n) .. "…"
  end
  return s
end

local function block(text, max)
  local out = {}
  local ls = compat.lines((text or ""):gsub("%s+$", ""))
  for i, l in ipairs(ls) do
    if i > max then
      table.insert(out, string.format("    … %d more line(s)", #ls - max))
      break
    end
    table.insert(out, "    " .. l)
  end
  return out
end

-- open shows the buffer in a window of the current tab, without taking the focus.
function M.open(folder, focus)
  local b = M.buffer(folder, true)
  local wins = M.windows_of(b)
  local tabwins = {}
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    tabwins[w] = true
  end
  for _, w in ipairs(wins) do
    if tabwins[w] then
      if focus then
        api.nvim_set_current_win(w)
      end
      return w
    end
  end
  if not M.config.window and not focus then
    return nil
  end
  local cur = api.nvim_get_current_win()
  vim.cmd(M.config.window or "botright split")
  local w = api.nvim_get_current_win()
  api.nvim_win_set_buf(w, b)
  if M.config.height and (M.config.window or ""):find("split") and not (M.config.window or ""):find("vsplit") then
    pcall(api.nvim_win_set_height, w, M.config.height)
  end
  vim.wo[w].wrap = true
  vim.wo[w].number = false
  follow_end(b)
  if not focus and api.nvim_win_is_valid(cur) then
    api.nvim_set_current_win(cur)
  end
  return w
end

local function state(folder)
  turns[folder] = turns[folder] or {}
  return turns[folder]
end

local function tool_title(tool)
  local name = tool.name or "tool"
  local preview = tool.preview or ""
  if preview ~= "" then
    return "`" .. name .. "` " .. clip(preview, 160)
  end
  return "`" .. name .. "`"
end

-- on_event renders one hermes/turnEvent.
function M.on_event(params)
  local folder = params.folder or "?"
  local ev = params.event or {}
  local kind = ev.kind
  local st = state(folder)
  local b = M.buffer(folder, true)

  if kind == "turnStarted" then
    st.answered, st.mode = false, nil
    local head = { "## You" }
    if not is_empty(b) then
      table.insert(head, 1, "")
    end
    lines(b, head)
    lines(b, compat.lines(ev.text or ""))
    lines(b, { "", "## Hermes", "" })
    M.open(folder, false)
  elseif kind == "steered" then
    lines(b, { "## You (steering the turn)" })
    lines(b, compat.lines(ev.text or ""))
    lines(b, { "", "## Hermes", "" })
    st.mode = nil
  elseif kind == "answerDelta" then
    if st.mode ~= "answer" then
      fresh(b)
      if st.mode ~= nil then
        lines(b, { "" }) -- a blank line after the tool calls
      end
    end
    st.mode, st.answered = "answer", true
    append(b, ev.text)
  elseif kind == "reasoningDelta" then
    if M.config.reasoning then
      if st.mode ~= "reasoning" then
        fresh(b)
        append(b, "_thinking:_ ")
      end
      st.mode = "reasoning"
      append(b, ev.text)
    end
  elseif kind == "toolStarted" and ev.tool then
    st.mode = "tool"
    lines(b, { "- " .. tool_title(ev.tool) })
  elseif kind == "toolCompleted" and ev.tool then
    st.mode = "tool"
    local t = ev.tool
    local how = t.isError and "failed" or "done"
    if t.status and t.status ~= "" and t.status ~= "completed" then
      how = how .. " (" .. t.status .. ")"
    end
    local ls = {
      string.format("- %s: %s%s", tool_title(t), how, t.durationMs and string.format(" in %d ms", t.durationMs) or ""),
    }
    if t.result and t.result ~= "" then
      vim.list_extend(ls, block(t.result, M.config.max_result_lines))
    end
    lines(b, ls)
  elseif kind == "approvalWaiting" and ev.approval then
    st.mode = "approval"
    lines(
      b,
      { string.format("- waiting for approval %s: %s", ev.approval.approvalId or "?", clip(ev.approval.summary, 200)) }
    )
  elseif kind == "approvalResolved" and ev.approval then
    st.mode = "approval"
    local a = ev.approval
    -- A question's outcome in words; its answers are not shown (the transcript has those not secret).
    local decision = a.decision or "?"
    if a.kind == "elicitation" or a.kind == "userInput" then
      decision = ({ once = "answered", session = "answered", deny = "declined", stop = "declined, turn stopped" })[decision]
        or decision
    end
    lines(b, {
      string.format(
        "- approval %s: %s%s",
        a.approvalId or "?",
        decision,
        a.decidedBy and (" (" .. a.decidedBy .. ")") or ""
      ),
    })
  elseif kind == "plan" and type(ev.plan) == "table" then
    st.mode = "plan"
    local ls = { "- plan:" }
    for _, p in ipairs(ev.plan) do
      local mark = p.status == "completed" and "[x]" or (p.status == "inProgress" and "[~]" or "[ ]")
      table.insert(ls, "    " .. mark .. " " .. tostring(p.step))
    end
    lines(b, ls)
  elseif kind == "compaction" then
    st.mode = "note"
    lines(b, { "- context compacted" })
  elseif kind == "fallback" then
    st.mode = "note"
    lines(b, { "- fallback: " .. tostring(ev.text or "") })
  elseif kind == "error" then
    st.mode = "note"
    lines(b, { "- error: " .. tostring(ev.text or "") })
  elseif kind == "turnCompleted" then
    local r = type(ev.result) == "table" and ev.result or {}
    if not st.answered and type(r.finalText) == "string" and r.finalText ~= "" then
      if st.mode ~= nil then
        lines(b, { "" })
      end
      lines(b, compat.lines(r.finalText))
    end
    local tokens = type(r.usage) == "table" and r.usage.totalTokens or nil
    local summary = string.format(
      "_%s · %d tool call(s)%s%s_",
      r.status or "ended",
      tonumber(r.toolIterations) or 0,
      tokens and string.format(" · %s tokens", tokens) or "",
      r.durationMs and string.format(" · %.1f s", r.durationMs / 1000) or ""
    )
    local ls = { "", "---", summary }
    if type(r.error) == "string" and r.error ~= "" then
      table.insert(ls, "error: " .. r.error)
    end
    lines(b, ls)
    st.mode, st.answered = nil, false
  end
end

-- text returns the conversation of folder's buffer (above the input area) as one string.
function M.text(folder)
  local b = M.buffer(folder, false)
  if not b then
    return ""
  end
  return table.concat(api.nvim_buf_get_lines(b, 0, content_count(b), false), "\n")
end

function M.folders()
  local out = {}
  for folder, b in pairs(bufs) do
    if api.nvim_buf_is_valid(b) then
      table.insert(out, folder)
    end
  end
  table.sort(out)
  return out
end

return M
