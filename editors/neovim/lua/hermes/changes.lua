-- The agent's changes under review (docs/protocol.md, "Changes under review"). The server shows
-- each as a diagnostic (source hermes, code change: signs, ]d, vim.diagnostic), an inlay hint and a
-- hover with its diff, and offers keep and revert as code actions. Here: :Hermes changes lists them
-- in the quickfix list, :Hermes keep and :Hermes revert act on the one under the cursor, and
-- :Hermes preview shows the text it replaced in a float. The server's revert edits are saved when
-- their buffer had no unsaved edits (handlers.lua), as the server tells the user.
local servers = require("hermes.client")
local handlers = require("hermes.handlers")

local M = {}

local api = vim.api
local levels = vim.log.levels

local function ensure_setup()
  require("hermes").ensure_setup()
end

-- changes_of asks hermes.changes for the changes of uri (a file, or the folder) and calls
-- done(list) with them, by file and line.
local function changes_of(client, uri, bufnr, done)
  servers.execute(client, "hermes.changes", { uri = uri }, function(err, result)
    if err then
      return handlers.notify_error(err)
    end
    done(type(result) == "table" and type(result.changes) == "table" and result.changes or {})
  end, bufnr)
end

-- lines_of is a change's first and last line (0-based); a change that only deleted lines is at the
-- line after them.
local function lines_of(c)
  local first = c.range.start.line
  return first, math.max(first, c.range["end"].line)
end

-- at_cursor calls fn(client, bufnr, change) with the change under the cursor of the current buffer,
-- or says there is none.
local function at_cursor(fn)
  ensure_setup()
  local bufnr = api.nvim_get_current_buf()
  if not servers.is_file_buffer(bufnr) then
    return handlers.notify("Hermes: not a file: :Hermes changes lists the agent's changes", levels.WARN)
  end
  local client, filebuf = servers.client_for(bufnr)
  if not client then
    return
  end
  local line = api.nvim_win_get_cursor(0)[1] - 1
  changes_of(client, vim.uri_from_bufnr(bufnr), filebuf, function(list)
    for _, c in ipairs(list) do
      local first, last = lines_of(c)
      if first <= line and line <= last then
        return fn(client, filebuf, c)
      end
    end
    handlers.notify(
      "Hermes: no change of the agent under the cursor (:Hermes changes lists them, ]d goes to the next)",
      levels.WARN
    )
  end)
end

-- list puts the changes of the current buffer's folder in the quickfix list and opens it
-- (:Hermes changes).
function M.list()
  ensure_setup()
  local bufnr = api.nvim_get_current_buf()
  local client, filebuf = servers.client_for(bufnr)
  if not client then
    return
  end
  local root = client.config.root_dir
  local uri = root and vim.uri_from_fname(root) or (filebuf and vim.uri_from_bufnr(filebuf)) or nil
  changes_of(client, uri, filebuf, function(list)
    local items = {}
    for _, c in ipairs(list) do
      local first = lines_of(c)
      table.insert(items, {
        filename = vim.uri_to_fname(c.uri),
        lnum = first + 1,
        col = 1,
        text = string.format("Hermes changed this (+%d −%d): keep or revert", c.added or 0, c.removed or 0),
        type = "I",
      })
    end
    vim.fn.setqflist({}, " ", { title = "Hermes: changes under review", items = items })
    if #items == 0 then
      return handlers.notify("Hermes: no change of the agent is under review", levels.INFO)
    end
    vim.cmd("copen")
  end)
end

-- keep keeps the change under the cursor (:Hermes keep): it stays as it is, and is no longer under
-- review.
function M.keep()
  at_cursor(function(client, bufnr, c)
    servers.execute(client, "hermes.keepChange", { changeId = c.changeId }, function(err)
      if err then
        return handlers.notify_error(err)
      end
      handlers.notify("Hermes: kept the change", levels.INFO)
    end, bufnr)
  end)
end

-- revert puts back the text the change under the cursor replaced (:Hermes revert; force,
-- :Hermes! revert, reverts lines you edited since too). The server says what it did.
function M.revert(force)
  at_cursor(function(client, bufnr, c)
    local arg = { changeId = c.changeId }
    if force then
      arg.force = true
    end
    servers.execute(client, "hermes.revertChange", arg, function(err)
      if err then
        return handlers.notify_error(err)
      end
    end, bufnr)
  end)
end

-- old_lines are the lines of a change's old text (hermes.changes' `old`: whole lines, or cut by the
-- server to end in "…").
function M.old_lines(old)
  if type(old) ~= "string" or old == "" then
    return {}
  end
  local lines = vim.split(old, "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
  end
  for i, l in ipairs(lines) do
    lines[i] = l:gsub("\r$", "")
  end
  return lines
end

-- preview shows the change under the cursor in a float with diff highlighting: the text it replaced
-- (hermes.changes' `old`, "-"), then its lines as the buffer has them now ("+") (:Hermes preview).
function M.preview()
  at_cursor(function(_, bufnr, c)
    local lines = {
      string.format("Hermes changed this (+%d −%d): what it replaced (-), what is there now (+)", c.added, c.removed),
    }
    for _, l in ipairs(M.old_lines(c.old)) do
      table.insert(lines, "-" .. l)
    end
    if (c.added or 0) > 0 then
      local first, last = lines_of(c)
      for _, l in ipairs(api.nvim_buf_get_lines(bufnr or 0, first, last + 1, false)) do
        table.insert(lines, "+" .. l)
      end
    end
    local fb, win =
      vim.lsp.util.open_floating_preview(lines, "diff", { border = "rounded", focus_id = "hermes-change" })
    M.last_preview = { buf = fb, win = win }
  end)
end

return M
