-- codex's questions in hermes.nvim, in a real headless Neovim, driven by neovim_test.go
-- (TestNeovimQuestions): approvalWaiting turn events with questions go through the plugin's own
-- hermes/turnEvent handler, a scripted picker (vim.ui.select), vim.ui.input and vim.fn.inputsecret
-- answer, and the hermes.approve requests are recorded as JSON (hermes.client's execute is
-- replaced: no server runs). The outcome is a JSON summary in $HERMES_NVIM_SUMMARY: every question
-- asked, every hermes.approve call, the notifications, :messages and the Hermes buffer, for the Go
-- test to check (a secret answer must be in the hermes.approve call and nowhere else).
local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local wait_for = harness.wait_for

local SECRET = "hunter2-s3cret"
local v = vim.version()
local summary = {
  nvimVersion = string.format("%d.%d.%d", v.major, v.minor, v.patch),
  asked = {},
  approves = {},
  notifications = {},
}

local function finish(err)
  harness.finish(summary, err)
end

-- script: what the person answers, in order: { how = "select"|"input"|"secret", answer = ... };
-- answer nil dismisses. Each question asked is recorded with its answer.
local script = {}
local function next_answer(how, prompt, items, extra)
  local step = table.remove(script, 1)
  if not step then
    error("no answer left for " .. how .. " " .. prompt)
  end
  if step.how ~= how then
    error(string.format("asked with %s (%s), the script expected %s", how, prompt, step.how))
  end
  table.insert(summary.asked, { how = how, prompt = prompt, items = items or vim.NIL, extra = extra or vim.NIL })
  return step.answer
end

vim.ui.select = function(items, opts, on_choice)
  local answer = next_answer("select", opts.prompt or "", items, opts.kind)
  -- A picker answers later, from its own key handling.
  vim.defer_fn(function()
    on_choice(answer)
  end, 10)
end
vim.ui.input = function(opts, on_confirm)
  local answer = next_answer("input", opts.prompt or "", nil, opts.default)
  vim.defer_fn(function()
    on_confirm(answer)
  end, 10)
end
vim.fn.inputsecret = function(prompt)
  return next_answer("secret", prompt)
end
vim.notify = function(msg, level)
  table.insert(summary.notifications, { message = tostring(msg), level = level or vim.NIL })
end

local function event(id, kind, fields)
  local approval = vim.tbl_extend("force", {
    approvalId = id,
    kind = kind,
    folder = vim.fn.getcwd(),
    threadId = "th1",
    turnId = "t1",
    itemId = "i-" .. id,
    summary = kind .. " " .. id,
    asked = "",
  }, fields)
  return {
    folder = vim.fn.getcwd(),
    threadId = "th1",
    turnId = "t1",
    event = { kind = "approvalWaiting", approval = approval },
  }
end

local function run()
  local hermes = require("hermes").setup({ autostart = false, window = false, notify_progress = false })
  summary.asksQuestions = require("hermes.client").base_config().capabilities.experimental.hermes.asksQuestions
  local approvals = require("hermes.approvals")
  local handlers = require("hermes.handlers")
  -- The server: hermes.client's approve runs as it is, up to the request it would send.
  local client = require("hermes.client")
  client.live_client = function(id)
    return { id = id }
  end
  client.execute = function(c, command, arg, cb)
    table.insert(summary.approves, { client = c.id, command = command, json = vim.json.encode(arg) })
    cb(nil, { approvalId = arg.approvalId, decision = arg.decision })
  end
  local turn_event = handlers["hermes/turnEvent"]
  local function feed(params)
    turn_event(nil, params, { client_id = 7 })
  end
  local function approved(n)
    wait_for(n .. " hermes.approve call(s)", 5000, function()
      return #summary.approves >= n and #script == 0
    end)
  end

  -- 1. An MCP server's form: a choice answered Other…, a multiChoice (two picked), a boolean, an
  -- integer typed wrong then right, a secret.
  script = {
    { how = "select", answer = "Other…" },
    { how = "input", answer = "Oracle" },
    { how = "select", answer = "[ ] Prod" },
    { how = "select", answer = "[ ] Dev" },
    { how = "select", answer = "Done choosing (2 picked)" },
    { how = "select", answer = "Yes" },
    { how = "input", answer = "2.5" },
    { how = "input", answer = " 3 " },
    { how = "secret", answer = SECRET },
  }
  feed(event("e1", "elicitation", {
    server = "db-tools",
    message = "Set up\nthe database",
    questions = {
      {
        id = "db",
        header = "Database",
        text = "Which database?",
        type = "choice",
        required = true,
        other = true,
        options = {
          { value = "pg", label = "Postgres", description = "the usual one" },
          { value = "my", label = "MySQL" },
        },
      },
      {
        id = "envs",
        text = "Where?",
        type = "multiChoice",
        options = { { value = "dev", label = "Dev" }, { value = "prod", label = "Prod" } },
      },
      { id = "ok", text = "Migrate now?", type = "boolean" },
      { id = "n", text = "How many replicas?", type = "integer", default = { "2" } },
      { id = "token", text = "Your API token", type = "text", secret = true, required = true },
    },
  }))
  approved(1)

  -- 2. The agent's question, declined.
  script = { { how = "select", answer = "Decline" } }
  feed(event("u1", "userInput", {
    questions = { { id = "go", text = "Go on?", type = "choice", options = { { value = "y", label = "Yes, go" } } } },
  }))
  approved(2)

  -- 3. A page to visit: Done (no answers); a form without fields: Stop turn.
  script = { { how = "select", answer = "Done" } }
  feed(event("e2", "elicitation", { server = "auth", message = "Sign in", url = "https://example.com/login?x=1" }))
  approved(3)
  script = { { how = "select", answer = "Stop turn" } }
  feed(event("e3", "elicitation", { server = "auth", message = "Trust this folder?", tool = "trust" }))
  approved(4)

  -- 4. A question dismissed (Esc): it still waits; :Hermes approve's way asks it again.
  script = { { how = "select", answer = nil } }
  local pick = event("u2", "userInput", {
    questions = {
      { id = "color", text = "Which colour?", type = "choice", options = { { value = "r", label = "Red" } } },
    },
  })
  feed(pick)
  wait_for("the dismissal", 5000, function()
    return approvals.state("u2") == "dismissed"
  end)
  script = { { how = "select", answer = "Red" } }
  approvals.ask_again(7, { approvalId = "u2", kind = "userInput", summary = "userInput u2" })
  approved(5)

  -- 5. Wider access: the usual four choices, the access in words.
  script = { { how = "select", answer = "Allow once" } }
  feed(event("p1", "permissions", {
    permissions = { network = true, read = { "/etc/ssl", "/home/u/.cache" }, write = { "/home/u/.cache", "/tmp/out" } },
    reason = "to fetch the certificates",
  }))
  approved(6)

  -- Each decision, resolved: the Hermes buffer says answered or declined.
  for _, a in ipairs({ { "e1", "elicitation", "once" }, { "u1", "userInput", "deny" }, { "e3", "elicitation", "stop" } }) do
    feed({
      folder = vim.fn.getcwd(),
      threadId = "th1",
      turnId = "t1",
      event = {
        kind = "approvalResolved",
        approval = {
          approvalId = a[1],
          kind = a[2],
          decision = a[3],
          decidedBy = "user",
          answers = { db = { "Oracle" } },
        },
      },
    })
  end
  local b = vim.fn.bufnr("hermes://" .. vim.fn.getcwd())
  summary.hermesBuffer = b ~= -1 and table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n") or ""
  summary.messages = vim.fn.execute("messages")
  summary.statusline = hermes.statusline()
end

local ok, err = xpcall(run, debug.traceback)
finish(not ok and tostring(err) or nil)
