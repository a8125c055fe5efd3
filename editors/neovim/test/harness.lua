-- Helpers the plugin's test scripts (e2e.lua, features.lua, changes.lua, questions.lua,
-- server_questions.lua) share; each loads this file with dofile from its own folder.
local M = {}

-- getenv returns the environment variable name, failing when neovim_test.go did not set it.
function M.getenv(name)
  local v = os.getenv(name)
  if not v or v == "" then
    error(name .. " is not set")
  end
  return v
end

-- wait_for waits up to ms for cond, failing with what it waited for.
function M.wait_for(what, ms, cond)
  if not vim.wait(ms, cond, 20) then
    error(string.format("timed out after %d ms waiting for %s", ms, what))
  end
end

-- stop_server stops the plugin's servers (each stops its codex) and waits until client has exited.
function M.stop_server(hermes, client)
  local id = client.id
  hermes.stop_all()
  M.wait_for("the server to exit", 15000, function()
    return vim.lsp.get_client_by_id(id) == nil and #hermes.clients() == 0
  end)
end

-- finish writes summary, with err (nil: none) as its error, as JSON to $HERMES_NVIM_SUMMARY and
-- quits Neovim, with status 1 when err is set. opts.duration_ms is recorded as durationMs;
-- opts.log, when given, is told how the script ended.
function M.finish(summary, err, opts)
  opts = opts or {}
  summary.error = err or vim.NIL
  summary.durationMs = opts.duration_ms
  local f = assert(io.open(M.getenv("HERMES_NVIM_SUMMARY"), "w"))
  f:write(vim.json.encode(summary))
  f:close()
  if opts.log then
    opts.log(err and ("FAILED: " .. tostring(err)) or "passed")
  end
  vim.cmd(err and "cquit 1" or "qa!")
end

return M
