-- codex's questions (docs/protocol.md, "Questions"): an MCP server's form or a page it asks the
-- person to visit (an elicitation), and the agent's own questions with options (userInput). The
-- plugin declares experimental.hermes.asksQuestions, so the server sends no prompt for them: they
-- are asked here, one question at a time, with vim.ui.select (Decline first, the options, Other…
-- when any text is accepted, Stop turn) and vim.ui.input; a secret with vim.fn.inputsecret, which
-- shows nothing as it is typed. The answers go to the caller (approvals.lua sends them with
-- hermes.approve) and are never notified, logged or kept.
local M = {}

M.DECLINE = "Decline"
M.STOP = "Stop turn"
M.OTHER = "Other…"
M.DONE = "Done"
M.ACCEPT = "Accept"
M.FINISH = "Done choosing"

-- asks says whether an approval asks questions (an elicitation or userInput approval).
function M.asks(a)
  return type(a) == "table" and (a.kind == "elicitation" or a.kind == "userInput")
end

local function str(v)
  return type(v) == "string" and v or ""
end

-- line is s on one line, cut to max characters: a picker's prompt is one line.
local function line(s, max)
  s = str(s):gsub("%s*\n%s*", " ")
  if vim.fn.strchars(s) > max then
    return vim.fn.strcharpart(s, 0, max) .. "…"
  end
  return s
end

-- asker says who asks: the MCP server of an elicitation, else Hermes (the agent).
function M.asker(a)
  if a.kind == "elicitation" then
    local server = line(a.server, 80)
    return string.format('MCP server "%s"', server ~= "" and server or "?")
  end
  return "Hermes"
end

-- headline is what an approval asks, on one line: who asks (and the tool, when it is codex's
-- approval of an MCP tool call), and its message.
function M.headline(a)
  local msg = line(a.message, 300)
  local tool = line(a.tool, 80)
  return M.asker(a)
    .. " asks"
    .. (tool ~= "" and string.format(' to run its tool "%s"', tool) or "")
    .. (msg ~= "" and (": " .. msg) or "")
end

-- options are the answers a question offers: its own, or Yes and No for a boolean without any.
function M.options(q)
  if type(q.options) == "table" and #q.options > 0 then
    return q.options
  end
  if q.type == "boolean" then
    return { { value = "true", label = "Yes" }, { value = "false", label = "No" } }
  end
  return {}
end

local function option_title(o)
  local d = str(o.description)
  return line(o.label, 100) .. (d ~= "" and (" — " .. line(d, 100)) or "")
end

-- check says what is wrong with a typed answer (never repeating it), or nil.
function M.check(q, value)
  local v = vim.trim(value)
  if v == "" then
    return q.required and "an answer is needed" or nil
  end
  if q.type == "integer" and not v:match("^[-+]?%d+$") then
    return "a whole number, like 3"
  end
  if q.type == "number" then
    local ok = v:match("^[-+]?%d+%.?%d*$") or v:match("^[-+]?%.%d+$") or v:match("^[-+]?%d+%.?%d*[eE][-+]?%d+$")
    if not ok then
      return "a number, like 3 or 2.5"
    end
  end
  return nil
end

-- typed asks for a typed answer (text, a number, or Other…'s text): vim.ui.input, or for a secret
-- vim.fn.inputsecret. cb("answer", values) or cb(nil) when dismissed. A wrong answer is asked again
-- with what is wrong. An empty secret dismisses (inputsecret cannot tell <Esc> from an empty line).
local function typed(q, prompt, cb, problem)
  local p = prompt .. (problem and (" (" .. problem .. ")") or "") .. ": "
  local function got(value)
    if value == nil then
      return cb(nil)
    end
    if q.secret and value == "" then
      return cb(nil)
    end
    local err = M.check(q, value)
    if err then
      return typed(q, prompt, cb, err)
    end
    local v = (q.type == "number" or q.type == "integer") and vim.trim(value) or value
    cb("answer", v ~= "" and { v } or {})
  end
  if q.secret then
    -- Synchronous, and never shown: <C-c> raises "Keyboard interrupt", a dismissal.
    local ok, value = pcall(vim.fn.inputsecret, p)
    return got(ok and value or nil)
  end
  local default = type(q.default) == "table" and q.default[1] or nil
  vim.ui.input({ prompt = p, default = type(default) == "string" and default or nil }, function(value)
    vim.schedule(function()
      got(value)
    end)
  end)
end

-- select asks with vim.ui.select and calls back outside the picker's own key handling.
local function select(items, prompt, cb)
  vim.ui.select(items, { prompt = prompt, kind = "hermes.question" }, function(choice)
    vim.schedule(function()
      cb(choice)
    end)
  end)
end

-- ending maps Decline and Stop turn to cb's outcome: "deny", "stop"; nil (dismissed) stays nil.
local function ending(choice, cb)
  if choice == nil then
    cb(nil)
  elseif choice == M.DECLINE then
    cb("deny")
  elseif choice == M.STOP then
    cb("stop")
  else
    return false
  end
  return true
end

-- multi asks a multiChoice question: each pick of an option toggles it ([x]), Done choosing answers.
-- problem says what was wrong with the last Done choosing.
local function multi(q, prompt, cb, picked, problem)
  picked = picked or {}
  local opts = M.options(q)
  local items, by = { M.DECLINE }, {}
  local n = 0
  for _ in pairs(picked) do
    n = n + 1
  end
  table.insert(items, string.format("%s (%d picked)", M.FINISH, n))
  for _, o in ipairs(opts) do
    local title = (picked[o.value] and "[x] " or "[ ] ") .. option_title(o)
    by[title] = o
    table.insert(items, title)
  end
  if q.other then
    table.insert(items, M.OTHER)
  end
  table.insert(items, M.STOP)
  select(items, prompt .. (problem and (" (" .. problem .. ")") or ""), function(choice)
    if ending(choice, cb) then
      return
    end
    if choice == M.OTHER then
      return typed({ type = "text", secret = q.secret }, prompt .. " (other)", function(kind, values)
        if kind == "answer" and values[1] then
          picked[values[1]] = true
        end
        if kind == nil then
          return cb(nil)
        end
        multi(q, prompt, cb, picked)
      end)
    end
    local o = by[choice]
    if o then
      picked[o.value] = not picked[o.value] or nil
      return multi(q, prompt, cb, picked)
    end
    if n == 0 and q.required then
      return multi(q, prompt, cb, picked, "pick at least one")
    end
    -- The options' order, then the other answers.
    local values = {}
    for _, x in ipairs(opts) do
      if picked[x.value] then
        table.insert(values, x.value)
        picked[x.value] = nil
      end
    end
    for v in pairs(picked) do
      table.insert(values, v)
    end
    cb("answer", values)
  end)
end

-- one asks one question: cb("answer", values), cb("deny"), cb("stop"), or cb(nil) when dismissed.
local function one(q, prompt, cb)
  if q.type == "multiChoice" then
    return multi(q, prompt, cb)
  end
  local opts = M.options(q)
  if #opts == 0 and q.type ~= "choice" then
    return typed(q, prompt, cb)
  end
  local items, by = { M.DECLINE }, {}
  for _, o in ipairs(opts) do
    local title = option_title(o)
    by[title] = o
    table.insert(items, title)
  end
  if q.other then
    table.insert(items, M.OTHER)
  end
  table.insert(items, M.STOP)
  select(items, prompt, function(choice)
    if ending(choice, cb) then
      return
    end
    if choice == M.OTHER then
      return typed({ type = "text", secret = q.secret, required = q.required }, prompt, cb)
    end
    local o = by[choice]
    if not o then
      return cb(nil)
    end
    cb("answer", { o.value })
  end)
end

-- ask asks an elicitation's or userInput approval's questions in turn, then done(decision, answers):
-- "once" with the answers by question id, "deny" (Decline), "stop" (Stop turn), or nil when a
-- question was dismissed (the approval keeps waiting). A page to visit is asked as Decline, Done,
-- Stop turn (its address as text: nothing opens it); a form without fields as Decline, Accept,
-- Stop turn.
function M.ask(a, done)
  local head = M.headline(a)
  local qs = type(a.questions) == "table" and a.questions or {}
  local url = line(a.url, 500)
  if url ~= "" or #qs == 0 then
    local prompt = url ~= "" and string.format("%s — open %s yourself, then pick %s", head, url, M.DONE) or head
    return select({ M.DECLINE, url ~= "" and M.DONE or M.ACCEPT, M.STOP }, prompt, function(choice)
      if not ending(choice, done) then
        done("once", {})
      end
    end)
  end
  local answers = {}
  local function step(i)
    if i > #qs then
      return done("once", answers)
    end
    local q = qs[i]
    local text = line(q.text, 300)
    if str(q.header) ~= "" and q.header ~= q.text then
      text = line(q.header, 80) .. ": " .. text
    end
    local prompt = (i == 1 and head or M.asker(a)) .. string.format(" (%d/%d) ", i, #qs) .. text
    one(q, prompt, function(kind, values)
      if kind ~= "answer" then
        return done(kind)
      end
      if #values > 0 then
        answers[q.id] = values
      end
      step(i + 1)
    end)
  end
  step(1)
end

return M
