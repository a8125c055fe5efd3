-- Small helpers that hide the differences between Neovim 0.7 and later versions.
local M = {}

local has = function(v)
  return vim.fn.has(v) == 1
end

M.nvim_0_10 = has("nvim-0.10")
M.nvim_0_11 = has("nvim-0.11")

-- client_call calls a method of an LSP client object: `client.f(...)` before 0.11, `client:f(...)`
-- from 0.11 on (where the dot form is deprecated).
function M.client_call(client, name, ...)
  if M.nvim_0_11 then
    return client[name](client, ...)
  end
  return client[name](...)
end

function M.request(client, method, params, handler, bufnr)
  return M.client_call(client, "request", method, params, handler, bufnr)
end

function M.is_stopped(client)
  return M.client_call(client, "is_stopped")
end

function M.stop(client, force)
  return M.client_call(client, "stop", force)
end

-- response_error builds the error a handler of a server request returns.
function M.response_error(code, message)
  local f = (vim.lsp.rpc and vim.lsp.rpc.rpc_response_error) or vim.lsp.rpc_response_error
  return f(code, message)
end

-- char_len is the length in bytes of the UTF-8 character whose first byte is c.
local function char_len(c)
  if c >= 0xF0 then
    return 4
  elseif c >= 0xE0 then
    return 3
  elseif c >= 0xC0 then
    return 2
  end
  return 1
end

-- utf16_col converts a 0-based byte index into line to UTF-16 code units (LSP's default encoding).
function M.utf16_col(line, byte)
  byte = math.max(0, math.min(byte, #line))
  local units, i = 0, 1
  while i <= byte do
    local len = char_len(line:byte(i))
    if i + len - 1 > byte then
      break
    end
    units = units + (len == 4 and 2 or 1)
    i = i + len
  end
  return units
end

-- byte_col converts a UTF-16 column of line into a 0-based byte index.
function M.byte_col(line, units)
  local u, i = 0, 1
  while i <= #line and u < units do
    local len = char_len(line:byte(i))
    u = u + (len == 4 and 2 or 1)
    i = i + len
  end
  return i - 1
end

-- lines splits text on newlines, keeping empty pieces.
function M.lines(text)
  return vim.split(text, "\n", { plain = true })
end

-- exists reports whether path exists.
function M.exists(path)
  return (vim.loop or vim.uv).fs_stat(path) ~= nil
end

return M
