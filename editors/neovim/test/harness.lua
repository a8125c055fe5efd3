-- Helpers the plugin's test scripts (e2e.lua, features.lua) share; each loads this file with
-- dofile from its own folder.
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

return M
