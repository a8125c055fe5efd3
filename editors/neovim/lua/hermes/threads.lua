-- Picking the conversation: :HermesThreads (a past thread of the folder, hermes.threads and
-- hermes.resumeThread) and :HermesModel (a model, then its reasoning effort: hermes.models and
-- hermes.setModel), both through vim.ui.select; and :HermesReview (hermes.review), whose findings
-- arrive as the server's diagnostics.
local servers = require("hermes.client")
local handlers = require("hermes.handlers")

local M = {}

local levels = vim.log.levels

local function notify(msg, level)
  handlers.notify(msg, level)
end

-- folder_arg is the arguments naming the folder of the current buffer (a file, or the Hermes buffer).
local function with_folder(fn)
  require("hermes").ensure_setup()
  local bufnr = vim.api.nvim_get_current_buf()
  local client, filebuf = servers.client_for(bufnr)
  if not client then
    return
  end
  local arg = vim.empty_dict()
  if filebuf then
    arg = { uri = vim.uri_from_bufnr(filebuf) }
  elseif vim.b[bufnr].hermes_folder then
    arg = { uri = vim.uri_from_fname(vim.b[bufnr].hermes_folder) }
  end
  fn(client, arg, filebuf)
end

-- when says when an RFC 3339 UTC time ("2026-12-04T14:02:11Z") was, in local time: "14:02" today,
-- else "Dec 4 14:02"; the text as it is when it is no such time.
function M.when(rfc3339)
  local y, mo, d, h, mi, s = tostring(rfc3339 or ""):match("^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)")
  if not y then
    return tostring(rfc3339 or "")
  end
  local utc = {
    year = tonumber(y),
    month = tonumber(mo),
    day = tonumber(d),
    hour = tonumber(h),
    min = tonumber(mi),
    sec = tonumber(s),
  }
  -- os.time reads a table as local time: correct by this zone's offset from UTC.
  local now = os.time()
  local offset = os.time(os.date("*t", now)) - os.time(os.date("!*t", now))
  local t = os.time(utc) + offset
  if os.date("%Y-%m-%d", t) == os.date("%Y-%m-%d", now) then
    return os.date("today %H:%M", t)
  end
  return os.date("%b %d %H:%M", t)
end

-- thread_label is a thread as the picker shows it: by its title (never its id), when it was last
-- used, its turns; the current one and reviews marked.
function M.thread_label(t)
  local title = (t.title and t.title ~= "") and t.title or "(untitled)"
  local label = string.format(
    "%s%s · %s · %d turn(s)",
    t.review and "review: " or "",
    title,
    M.when(t.updatedAt),
    tonumber(t.turns) or 0
  )
  if t.current then
    label = label .. " (current)"
  end
  return label
end

-- threads is :HermesThreads.
function M.threads()
  with_folder(function(client, arg, filebuf)
    servers.execute(client, "hermes.threads", arg, function(err, list)
      if err then
        return handlers.notify_error(err)
      end
      if type(list) ~= "table" or #list == 0 then
        return notify("Hermes: no thread in this folder yet", levels.INFO)
      end
      vim.ui.select(
        list,
        { prompt = "Hermes: resume a thread", kind = "hermes.thread", format_item = M.thread_label },
        function(choice)
          if not choice or choice.current then
            return
          end
          local a = vim.tbl_extend("force", type(arg) == "table" and arg or {}, { threadId = choice.threadId })
          servers.execute(client, "hermes.resumeThread", a, function(rerr)
            if rerr then
              handlers.notify_error(rerr)
            end
          end, filebuf)
        end
      )
    end, filebuf)
  end)
end

-- review_target reads :HermesReview's arguments: none (the uncommitted changes), `base <branch>`,
-- `commit <sha>`, or anything else as instructions.
function M.review_target(args)
  local words = vim.split(vim.trim(args or ""), "%s+", { trimempty = true })
  if #words == 0 then
    return { type = "uncommittedChanges" }
  elseif words[1] == "base" and words[2] then
    return { type = "baseBranch", branch = words[2] }
  elseif words[1] == "commit" and words[2] then
    return { type = "commit", sha = words[2] }
  end
  return { type = "custom", instructions = vim.trim(args) }
end

-- review is :HermesReview: codex reviews the folder's changes; its findings arrive as diagnostics.
function M.review(args)
  with_folder(function(client, arg, filebuf)
    local a = vim.tbl_extend("force", type(arg) == "table" and arg or {}, { target = M.review_target(args) })
    servers.execute(client, "hermes.review", a, function(err)
      if err then
        return handlers.notify_error(err)
      end
      notify("Hermes: reviewing; the findings will be diagnostics", levels.INFO)
    end, filebuf)
  end)
end

-- model is :HermesModel: a model, then one of its reasoning efforts.
function M.model()
  with_folder(function(client, arg, filebuf)
    servers.execute(client, "hermes.models", arg, function(err, list)
      if err then
        return handlers.notify_error(err)
      end
      if type(list) ~= "table" or #list == 0 then
        return notify("Hermes: codex lists no model", levels.WARN)
      end
      local function label(m)
        return string.format("%s (%s)%s", m.displayName or m.id, m.id, m.current and " (current)" or "")
      end
      vim.ui.select(list, { prompt = "Hermes: model", kind = "hermes.model", format_item = label }, function(m)
        if not m then
          return
        end
        local efforts = { "default (" .. tostring(m.defaultEffort or "?") .. ")" }
        vim.list_extend(efforts, type(m.efforts) == "table" and m.efforts or {})
        vim.schedule(function()
          vim.ui.select(
            efforts,
            { prompt = "Hermes: reasoning effort for " .. m.id, kind = "hermes.effort" },
            function(e, i)
              if not e then
                return
              end
              local a = vim.tbl_extend(
                "force",
                type(arg) == "table" and arg or {},
                { model = m.id, effort = i == 1 and "" or e }
              )
              servers.execute(client, "hermes.setModel", a, function(serr)
                if serr then
                  handlers.notify_error(serr)
                end
              end, filebuf)
            end
          )
        end)
      end)
    end, filebuf)
  end)
end

return M
