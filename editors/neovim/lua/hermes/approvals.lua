-- Approvals without blocking: the plugin answers the server's window/showMessageRequest with an
-- error, so hermes-lsp switches to its fallback (the approval waits for hermes.approve), and asks
-- here with vim.ui.select, one approval at a time, from the `approvalWaiting` turn event. The answer
-- goes back with the command hermes.approve. Nothing waits on the person inside an RPC handler, so
-- the editor never freezes, and any vim.ui.select picker (telescope, fzf-lua, dressing, snacks,
-- mini.pick, ...) shows the question.
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

-- approve(client_id, approval_id, decision, callback(err, result)) is set by hermes.init.
M.approve = nil
M.notify = function(msg, level)
  vim.notify(msg, level)
end

local known = {} -- approvalId -> "queued" | "shown" | "dismissed" | "resolved"
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

-- prompt is the question of an approval: what, where and why.
function M.prompt(a)
  local parts = {}
  if a.kind == "exec" then
    table.insert(parts, "Hermes wants to run: " .. tostring(a.command or a.summary or "?"))
    if a.cwd and a.cwd ~= "" then
      table.insert(parts, "in " .. a.cwd)
    end
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

present = function(item)
  local a = item.approval
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
      local id = a.approvalId
      if known[id] == "resolved" then
        if choice then
          M.notify("Hermes: approval " .. id .. " was already settled", vim.log.levels.INFO)
        end
        done(item)
        return
      end
      local decision = choice and M.decision_of(choice)
      if not decision then
        known[id] = "dismissed"
        M.notify(
          "Hermes: still waiting, answer with :Hermes approve (else declined at its timeout): " .. tostring(a.summary),
          vim.log.levels.WARN
        )
        done(item)
        return
      end
      M.close_diff(id)
      M.approve(item.client_id, id, decision, function(err)
        if err then
          M.notify("Hermes: approval " .. id .. ": " .. tostring(err.message or err), vim.log.levels.ERROR)
        end
      end)
      done(item)
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
  table.insert(queue, { client_id = client_id, approval = a })
  pump()
end

-- on_resolved forgets an approval that was settled, here or elsewhere (a code action, a timeout).
function M.on_resolved(a)
  local id = a and a.approvalId
  if not id then
    return
  end
  known[id] = "resolved"
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
      table.remove(queue, i)
    end
  end
end

return M
