-- codex's questions through hermes-lsp, in a real headless Neovim, driven by questions_test.go
-- (TestNeovimQuestionsFromServer): the server runs in the test on a fake codex (the test binary,
-- started by the plugin as its server, bridges its stdio to it). A turn asks an MCP server's form,
-- the agent's questions with a secret, and wider permissions; the plugin asks them from the turn
-- events (it declares experimental.hermes.asksQuestions) through a scripted vim.ui.select,
-- vim.ui.input and vim.fn.inputsecret, and answers with hermes.approve. The outcome is a JSON
-- summary in $HERMES_NVIM_SUMMARY: each question asked, the notifications, :messages and the Hermes
-- buffer, for the test to check with what codex got.
local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local getenv, wait_for = harness.getenv, harness.wait_for

local SECRET = getenv("HERMES_NVIM_SECRET")
local v = vim.version()
local summary = { nvimVersion = string.format("%d.%d.%d", v.major, v.minor, v.patch), asked = {}, notifications = {} }

local function finish(err)
  harness.finish(summary, err)
end

-- The person answers from script, in order: { how, answer }.
local script = {
  { "select", "Green" },
  { "input", "2.5" },
  { "input", "3" },
  { "secret", SECRET },
  { "select", "Prod" },
  { "select", "Allow once" },
}
local function next_answer(how, prompt, items)
  local step = table.remove(script, 1)
  if not step or step[1] ~= how then
    error(string.format("asked %q with %s, the script expected %s", prompt, how, vim.inspect(step)))
  end
  table.insert(summary.asked, { how = how, prompt = prompt, items = items or vim.NIL })
  return step[2]
end
vim.ui.select = function(items, opts, on_choice)
  local answer = next_answer("select", opts.prompt or "", items)
  vim.defer_fn(function()
    on_choice(answer)
  end, 10)
end
vim.ui.input = function(opts, on_confirm)
  local answer = next_answer("input", opts.prompt or "")
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

local function run()
  local hermes = require("hermes")
  hermes.setup({
    cmd = { getenv("HERMES_NVIM_SERVER") },
    settings = vim.json.decode(getenv("HERMES_NVIM_SETTINGS")),
  })
  local ended = false
  require("hermes.handlers").on_turn_event = function(params)
    if params.event.kind == "turnCompleted" then
      ended = true
    end
  end
  vim.cmd("edit " .. vim.fn.fnameescape(getenv("HERMES_NVIM_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for("the server to initialize", 15000, function()
    local cs = hermes.clients()
    return #cs == 1 and cs[1].initialized and vim.lsp.buf_is_attached(bufnr, cs[1].id)
  end)
  vim.cmd("Hermes ask set it up")
  wait_for("the turn's end", 30000, function()
    return ended
  end)
  if #script > 0 then
    error("not asked: " .. vim.inspect(script))
  end
  local b = vim.fn.bufnr("hermes://" .. hermes.clients()[1].config.root_dir)
  summary.hermesBuffer = b ~= -1 and table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n") or ""
  summary.messages = vim.fn.execute("messages")
  harness.stop_server(hermes, hermes.clients()[1])
end

local ok, err = xpcall(run, debug.traceback)
finish(not ok and tostring(err) or nil)
