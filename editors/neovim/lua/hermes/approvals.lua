-- Approvals without blocking: the plugin answers the server's window/showMessageRequest with an
-- error, so hermes-lsp switches to its fallback (the approval waits for hermes.approve), and asks
-- here with vim.ui.select, one approval at a time, from the `approvalWaiting` turn event. The answer
-- goes back with the command hermes.approve. Nothing waits on the person inside an RPC handler, so
-- the editor never freezes, and any vim.ui.select picker (telescope, fzf-lua, dressing, snacks,
-- mini.pick, ...) shows the question. codex's questions (an MCP server's form, the agent's
-- questions) come the same way and are asked by hermes.questions; their answers go with the
-- decision.
local questions = require("hermes.questions")
local view = require("hermes.view")

local M = {}

local api = vim.api

-- Deny comes first: pickers highlight the first item, and an accidental <CR> must never grant.
M.choices = {
  { title = "Deny", decision = "deny" },
  { title = "Allow once", decision = "once" },
  { title = "Allow for session", decision = "session" },
  { title = "Stop turn", decision = "stop" },
}
local SHOW_DIFF = "Show diff"

-- approve(client_id, approval_id, decision, callback(err, result), answers) is set by hermes.client;
-- answers (by question id) answer a question approval.
M.approve = nil
M.notify = function(msg, level)
  vim.notify(msg, level)
end

local known = {} -- approvalId -> "queued" | "shown" | "dismissed" | "resolved"
local asked = {} -- approvalId -> the approval as its approvalWaiting event announced it, until resolved
local queue = {} -- { client_id, approval }
local showing = nil -- the approval on screen

function M.decision_of(title)
  for _, c in ipairs(M.choices) do
    if c.title == title or c.decision == title then
      return c.decision
    end
  end
  return nil
end

-- access says a permissions approval's access in words: network access, and the paths to read or
-- write ("read and write" where both are asked).
function M.access(p)
  if type(p) ~= "table" then
    return {}
  end
  local out = {}
  if p.network then
    table.insert(out, "network access")
  end
  local read = type(p.read) == "table" and p.read or {}
  local write = type(p.write) == "table" and p.write or {}
  local both, r, w = {}, {}, {}
  local writes = {}
  for _, x in ipairs(write) do
    writes[x] = true
  end
  for _, x in ipairs(read) do
    table.insert(writes[x] and both or r, tostring(x))
  end
  local shared = {}
  for _, x in ipairs(both) do
    shared[x] = true
  end
  for _, x in ipairs(write) do
    if not shared[x] then
      table.insert(w, tostring(x))
    end
  end
  for _, g in ipairs({ { "read and write ", both }, { "read ", r }, { "write ", w } }) do
    if #g[2] > 0 then
      table.insert(out, g[1] .. table.concat(g[2], ", "))
    end
  end
  return out
end

-- prompt is the question of an approval: what, where and why.
function M.prompt(a)
  local parts = {}
  if a.kind == "exec" then
    table.insert(parts, "Hermes wants to run: " .. tostring(a.command or a.summary or "?"))
    if a.cwd and a.cwd ~= "" then
      table.insert(parts, "in " .. a.cwd)
    end
  elseif a.kind == "permissions" then
    local access = M.access(a.permissions)
    table.insert(parts, "Hermes wants " .. (#access > 0 and table.concat(access, "; ") or tostring(a.summary or "?")))
  elseif questions.asks(a) then
    table.insert(parts, questions.headline(a))
  else
    table.insert(parts, "Hermes wants to apply a patch: " .. tostring(a.summary or "?"))
  end
  if a.reason and a.reason ~= "" then
    table.insert(parts, "(" .. a.reason .. ")")
  end
  if type(a.warning) == "string" and a.warning ~= "" then
    table.insert(parts, "⚠ " .. a.warning)
  end
  return table.concat(parts, " ")
end

-- pending lists the approvals this editor knows are waiting (not yet answered or resolved).
function M.pending()
  local out = {}
  if showing then
    table.insert(out, showing.approval)
  end
  for _, item in ipairs(queue) do
    table.insert(out, item.approval)
  end
  return out
end

function M.state(id)
  return known[id]
end

-- busy says whether asking now would get in the way of typing: the question waits for normal mode.
local function busy()
  local mode = api.nvim_get_mode().mode
  local c = mode:sub(1, 1)
  return c == "i" or c == "R" or c == "c" or c == "r" or mode:sub(1, 2) == "no"
end

local present
local waiting_mode = false -- a ModeChanged autocommand will run pump

local function pump()
  if showing then
    return
  end
  while #queue > 0 and known[queue[1].approval.approvalId] == "resolved" do
    table.remove(queue, 1)
  end
  if #queue == 0 then
    return
  end
  if busy() then
    -- Asked again when the mode changes (ModeChanged, 0.7+), rather than polled.
    if not waiting_mode then
      waiting_mode = true
      api.nvim_create_autocmd("ModeChanged", {
        once = true,
        callback = function()
          waiting_mode = false
          vim.schedule(pump)
        end,
      })
    end
    return
  end
  local item = table.remove(queue, 1)
  showing = item
  known[item.approval.approvalId] = "shown"
  present(item)
end

local function done(item)
  if showing == item then
    showing = nil
  end
  vim.schedule(pump)
end

-- diff_name is the name of the buffer showing the changes of approval id.
local function diff_name(id)
  return "hermes-diff://" .. tostring(id)
end

-- close_diff closes the windows showing the changes of approval id (the buffer goes with them):
-- once the approval is decided, they have nothing left to say.
function M.close_diff(id)
  local b = vim.fn.bufnr(diff_name(id))
  if b == -1 then
    return
  end
  for _, w in ipairs(view.windows_of(b)) do
    if #api.nvim_list_wins() > 1 then
      pcall(api.nvim_win_close, w, true)
    end
  end
  if api.nvim_buf_is_valid(b) then
    pcall(api.nvim_buf_delete, b, { force = true })
  end
end

-- show_diff opens the changes of a patch approval in a scratch buffer (filetype diff).
function M.show_diff(a)
  local ls = {}
  for _, c in ipairs(a.changes or {}) do
    local kind = type(c.kind) == "table" and c.kind.type or tostring(c.kind or "")
    table.insert(ls, string.format("# %s %s", kind, tostring(c.path)))
    local diff = type(c.diff) == "string" and c.diff or ""
    for _, l in ipairs(vim.split(diff:gsub("\n$", ""), "\n", { plain = true })) do
      table.insert(ls, l)
    end
  end
  if #ls == 0 then
    ls = { "(no diff for approval " .. tostring(a.approvalId) .. ")" }
  end
  local name = diff_name(a.approvalId)
  local b = vim.fn.bufnr(name)
  if b == -1 then
    b = api.nvim_create_buf(false, true)
    pcall(api.nvim_buf_set_name, b, name)
  end
  vim.bo[b].buftype = "nofile"
  vim.bo[b].bufhidden = "wipe"
  vim.bo[b].modifiable = true
  api.nvim_buf_set_lines(b, 0, -1, false, ls)
  vim.bo[b].modifiable = false
  pcall(function()
    vim.bo[b].filetype = "diff"
  end)
  if #view.windows_of(b, 0) == 0 then
    local cur = api.nvim_get_current_win()
    vim.cmd("botright vsplit")
    api.nvim_win_set_buf(0, b)
    api.nvim_set_current_win(cur)
  end
  return b
end

-- decide sends the decision on item's approval (with the answers to its questions), or, when the
-- person dismissed the question (decision nil), says the approval still waits.
local function decide(item, decision, answers)
  local a = item.approval
  local id = a.approvalId
  if known[id] == "resolved" then
    if decision then
      M.notify("Hermes: approval " .. id .. " was already settled", vim.log.levels.INFO)
    end
    return done(item)
  end
  if not decision then
    known[id] = "dismissed"
    M.notify(
      "Hermes: still waiting, answer with :Hermes approve (else declined at its timeout): " .. tostring(a.summary),
      vim.log.levels.WARN
    )
    return done(item)
  end
  M.close_diff(id)
  M.approve(item.client_id, id, decision, function(err)
    if err then
      M.notify("Hermes: approval " .. id .. ": " .. tostring(err.message or err), vim.log.levels.ERROR)
    end
  end, answers)
  done(item)
end

present = function(item)
  local a = item.approval
  if questions.asks(a) then
    return questions.ask(a, function(decision, answers)
      decide(item, decision, answers)
    end)
  end
  local titles = {}
  for _, c in ipairs(M.choices) do
    table.insert(titles, c.title)
  end
  if a.kind == "patch" and type(a.changes) == "table" and #a.changes > 0 then
    table.insert(titles, SHOW_DIFF)
  end
  vim.ui.select(titles, { prompt = M.prompt(a), kind = "hermes.approval" }, function(choice)
    -- A picker may call back from inside its own key handling: leave it first.
    vim.schedule(function()
      if choice == SHOW_DIFF then
        M.show_diff(a)
        present(item)
        return
      end
      decide(item, choice and M.decision_of(choice))
    end)
  end)
end

-- on_waiting queues an approval announced by the server (an approvalWaiting turn event).
function M.on_waiting(client_id, a)
  local id = a and a.approvalId
  if not id or known[id] then
    return
  end
  known[id] = "queued"
  asked[id] = a
  table.insert(queue, { client_id = client_id, approval = a })
  pump()
end

-- ask_again asks a waiting approval's questions again (:Hermes approve), as its turn event
-- announced it when there was one (the MCP server and its message), else as a (hermes.status's
-- summary).
function M.ask_again(client_id, a)
  local id = a and a.approvalId
  if not id or known[id] == "resolved" or known[id] == "queued" or known[id] == "shown" then
    return
  end
  known[id] = "queued"
  table.insert(queue, { client_id = client_id, approval = asked[id] or a })
  pump()
end

-- on_resolved forgets an approval that was settled, here or elsewhere (a code action, a timeout).
function M.on_resolved(a)
  local id = a and a.approvalId
  if not id then
    return
  end
  known[id] = "resolved"
  asked[id] = nil
  M.close_diff(id)
  for i = #queue, 1, -1 do
    if queue[i].approval.approvalId == id then
      table.remove(queue, i)
    end
  end
end

-- forget drops the approvals of a client that went away.
function M.forget_client(client_id)
  for i = #queue, 1, -1 do
    if queue[i].client_id == client_id then
      known[queue[i].approval.approvalId] = "resolved"
      asked[queue[i].approval.approvalId] = nil
      table.remove(queue, i)
    end
  end
end

return M
