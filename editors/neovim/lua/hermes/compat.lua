-- What differs between Neovim 0.7 and later versions: each helper uses the runtime's own function
-- when the running Neovim has it, and keeps a fallback only for the versions without it.
local M = {}

local has = function(v)
  return vim.fn.has(v) == 1
end

M.nvim_0_8 = has("nvim-0.8")
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

-- utf16_col converts a 0-based byte index into line to UTF-16 code units (LSP's default encoding).
-- vim.str_utfindex changed in 0.11: (s, encoding, index, strict) instead of (s, index) returning
-- (utf32, utf16). A byte inside a character counts that character (both versions round up).
function M.utf16_col(line, byte)
  byte = math.max(0, math.min(byte, #line))
  if M.nvim_0_11 then
    return vim.str_utfindex(line, "utf-16", byte, false)
  end
  local _, units = vim.str_utfindex(line, byte)
  return units
end

-- byte_col converts a UTF-16 column of line into a 0-based byte index (past the end: the line's
-- length). vim.str_byteindex changed in 0.11 as vim.str_utfindex did.
function M.byte_col(line, units)
  units = math.max(0, units or 0)
  if M.nvim_0_11 then
    return vim.str_byteindex(line, "utf-16", units, false)
  end
  local ok, b = pcall(vim.str_byteindex, line, units, true)
  return ok and b or #line
end

-- range_params is vim.lsp.util.make_given_range_params for lines l1..l2 (1-based) from byte c1 of
-- l1 to the character starting at byte c2 of l2 (both 0-based; c2 nil: the whole of l2), in UTF-16
-- (the server's encoding). The runtime's function honours 'selection' (exclusive: the character at
-- c2 is left out) but adds one code unit for the last character, which is two for a character
-- outside the BMP: corrected here; an end past the line (an empty last line) is clamped.
function M.range_params(bufnr, l1, c1, l2, c2)
  local last = vim.api.nvim_buf_get_lines(bufnr, l2 - 1, l2, false)[1] or ""
  local whole = c2 == nil
  c2 = math.min(c2 or #last, math.max(0, #last - 1))
  local p = vim.lsp.util.make_given_range_params({ l1, c1 }, { l2, c2 }, bufnr, "utf-16")
  local e = p.range["end"]
  local len = M.utf16_col(last, #last)
  if whole then
    e.character = len
  elseif vim.o.selection ~= "exclusive" and (last:byte(c2 + 1) or 0) >= 0xF0 then
    e.character = e.character + 1
  end
  e.character = math.min(e.character, len)
  return p.range
end

-- root finds the nearest folder up from path holding one of markers: vim.fs.root (0.10+), else
-- vim.fs.find (0.8+), else a walk up for 0.7.
function M.root(path, markers)
  if #markers == 0 then
    return nil
  end
  if vim.fs and vim.fs.root then
    return vim.fs.root(path, markers)
  end
  local dir = vim.fn.fnamemodify(path, ":p:h")
  if vim.fs and vim.fs.find then
    local found = vim.fs.find(markers, { path = dir, upward = true, limit = 1 })[1]
    return found and vim.fn.fnamemodify(found, ":h") or nil
  end
  local d = dir
  while d and d ~= "" do
    for _, marker in ipairs(markers) do
      if M.exists(d .. "/" .. marker) then
        return d
      end
    end
    local parent = vim.fn.fnamemodify(d, ":h")
    if parent == d then
      break
    end
    d = parent
  end
  return nil
end

-- lines splits text on newlines, keeping empty pieces.
function M.lines(text)
  return vim.split(text, "\n", { plain = true })
end

-- exists reports whether path exists.
function M.exists(path)
  return (vim.uv or vim.loop).fs_stat(path) ~= nil
end

-- run runs argv in cwd with env (a table of extra variables, or nil), waiting at most timeout_ms:
-- returns stdout, the exit code (nil on timeout) and stderr. vim.system on 0.10+; before, a job
-- (vim.fn.system has no timeout, and doctor starts codex).
function M.run(argv, cwd, env, timeout_ms)
  if vim.system then
    local ok, obj = pcall(vim.system, argv, { cwd = cwd, env = env, text = true, timeout = timeout_ms })
    if not ok then
      return "", -1, tostring(obj)
    end
    local r = obj:wait()
    -- vim.system kills the process on timeout and reports signal 15 with code 124.
    if r.code == 124 and r.signal == 15 then
      return r.stdout or "", nil, r.stderr or ""
    end
    return r.stdout or "", r.code, r.stderr or ""
  end
  local out, err = {}, {}
  local function collect(into)
    return function(_, data)
      for i, l in ipairs(data or {}) do
        -- A job's chunks split lines: the first piece continues the previous chunk's last.
        if i == 1 and #into > 0 then
          into[#into] = into[#into] .. l
        else
          table.insert(into, l)
        end
      end
    end
  end
  local code
  local ok, job = pcall(vim.fn.jobstart, argv, {
    cwd = cwd,
    env = env,
    on_stdout = collect(out),
    on_stderr = collect(err),
    on_exit = function(_, c)
      code = c
    end,
  })
  if not ok or job <= 0 then
    return "", -1, tostring(ok and "could not start " .. tostring(argv[1]) or job)
  end
  if vim.fn.jobwait({ job }, timeout_ms)[1] == -1 then
    vim.fn.jobstop(job)
    return table.concat(out, "\n"), nil, table.concat(err, "\n")
  end
  -- on_exit runs from the event loop, after the output callbacks.
  vim.wait(1000, function()
    return code ~= nil
  end, 5)
  return table.concat(out, "\n"), code, table.concat(err, "\n")
end

return M
