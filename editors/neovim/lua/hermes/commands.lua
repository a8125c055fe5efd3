-- The user commands: :Hermes <sub> [args], with completion of the subcommands and their arguments,
-- and the older :HermesAsk, :HermesStop, ... kept as aliases (existing mappings and muscle memory).
-- Defined by plugin/hermes.lua at startup and again by setup(), for plugin managers that add
-- editors/neovim to the runtimepath late.
local M = {}

local function hermes()
  -- Looked up when a command runs: require("hermes") loads the plugin only then.
  return require("hermes")
end

-- git lists lines of a git command in the folder of the current buffer (for completion).
local function git(args)
  local name = vim.api.nvim_buf_get_name(0)
  local dir = name ~= "" and vim.fn.fnamemodify(name, ":p:h") or vim.fn.getcwd()
  if vim.fn.isdirectory(dir) == 0 or vim.fn.executable("git") == 0 then
    return {}
  end
  local out = vim.fn.systemlist(vim.list_extend({ "git", "-C", dir }, args))
  return vim.v.shell_error == 0 and out or {}
end

-- The subcommands: run(opts, args) with the command's opts (range, bang) and the text after the
-- subcommand; complete(words) lists the candidates for the next argument after words.
M.subcommands = {
  ask = {
    desc = "ask the agent (a range sends the selection); while a turn runs, steer it",
    run = function(opts, args)
      hermes().ask_command(vim.tbl_extend("force", opts, { args = args }))
    end,
  },
  stop = {
    desc = "stop the running turn",
    run = function()
      hermes().stop()
    end,
  },
  approve = {
    desc = "answer a waiting approval",
    run = function(_, args)
      hermes().approve_command(args)
    end,
    complete = function(words)
      return #words == 0 and { "once", "session", "deny", "stop" } or {}
    end,
  },
  status = {
    desc = "thread, turn, tokens and waiting approvals",
    run = function()
      hermes().show_status()
    end,
  },
  transcript = {
    desc = "open the folder's transcript",
    run = function()
      hermes().transcript()
    end,
  },
  open = {
    desc = "show the Hermes buffer",
    run = function()
      hermes().open()
    end,
  },
  new = {
    desc = "the next prompt starts a new thread",
    run = function()
      hermes().new_thread()
    end,
  },
  compact = {
    desc = "compact the thread's context",
    run = function()
      hermes().compact()
    end,
  },
  yolo = {
    desc = "toggle auto-approval in this folder",
    run = function()
      hermes().toggle_yolo()
    end,
  },
  undo = {
    desc = "undo the last turn's patches (! restores files changed since)",
    run = function(opts)
      hermes().undo_turn(opts.bang)
    end,
  },
  threads = {
    desc = "resume a past thread of this folder",
    run = function()
      hermes().threads()
    end,
  },
  model = {
    desc = "choose the model and reasoning effort of this folder",
    run = function()
      hermes().model()
    end,
  },
  review = {
    desc = "review the changes (base <branch>, commit <sha>, or instructions)",
    run = function(_, args)
      hermes().review(args)
    end,
    complete = function(words)
      if #words == 0 then
        return { "base", "commit" }
      elseif #words == 1 and words[1] == "base" then
        return git({ "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes" })
      elseif #words == 1 and words[1] == "commit" then
        return git({ "log", "--format=%h", "-n", "30" })
      end
      return {}
    end,
  },
  changes = {
    desc = "the agent's changes under review in the quickfix list",
    run = function()
      require("hermes.changes").list()
    end,
  },
  keep = {
    desc = "keep the agent's change under the cursor",
    run = function()
      require("hermes.changes").keep()
    end,
  },
  revert = {
    desc = "revert the agent's change under the cursor (! reverts lines you edited since too)",
    run = function(opts)
      require("hermes.changes").revert(opts.bang)
    end,
  },
  preview = {
    desc = "show what the agent's change under the cursor replaced, in a float",
    run = function()
      require("hermes.changes").preview()
    end,
  },
  login = {
    desc = "sign codex in (ChatGPT in the browser; a device code over SSH)",
    run = function(_, args)
      hermes().login(vim.trim(args))
    end,
    complete = function(words)
      return #words == 0 and { "chatgpt", "deviceCode" } or {}
    end,
  },
  health = {
    desc = "run :checkhealth hermes",
    run = function()
      vim.cmd("checkhealth hermes")
    end,
  },
}

-- The old commands, each the alias of a subcommand.
M.aliases = {
  HermesAsk = "ask",
  HermesStop = "stop",
  HermesApprove = "approve",
  HermesStatus = "status",
  HermesTranscript = "transcript",
  HermesOpen = "open",
  HermesNewThread = "new",
  HermesCompact = "compact",
  HermesYolo = "yolo",
  HermesUndo = "undo",
  HermesThreads = "threads",
  HermesModel = "model",
  HermesReview = "review",
}

function M.names()
  local names = vim.tbl_keys(M.subcommands)
  table.sort(names)
  return names
end

local function notify_error(msg)
  vim.notify(msg, vim.log.levels.ERROR, { title = "Hermes" })
end

-- run runs subcommand sub with args (the text after it); `undo!` is :Hermes! undo.
function M.run(sub, args, opts)
  local bang = sub:sub(-1) == "!"
  if bang then
    sub = sub:sub(1, -2)
  end
  local s = M.subcommands[sub]
  if not s then
    return notify_error(
      "Hermes: unknown subcommand " .. vim.inspect(sub) .. "; one of: " .. table.concat(M.names(), ", ")
    )
  end
  s.run(vim.tbl_extend("force", opts, { bang = opts.bang or bang }), args or "")
end

-- command is :Hermes itself.
local function command(opts)
  local sub, args = opts.args:match("^%s*(%S+)%s*(.-)%s*$")
  if not sub then
    if opts.range and opts.range > 0 then
      return M.run("ask", "", opts) -- :'<,'>Hermes: ask about the selection
    end
    return notify_error("Hermes: :Hermes {subcommand}, one of: " .. table.concat(M.names(), ", "))
  end
  M.run(sub, args, opts)
end

-- complete completes :Hermes's subcommands, then their arguments.
function M.complete(arglead, cmdline, cursorpos)
  local rest = cmdline:sub(1, cursorpos):match("Hermes!?%s+(.*)$") or ""
  local words = vim.split(rest, "%s+", { trimempty = true })
  if arglead ~= "" then
    table.remove(words) -- the word being typed
  end
  local candidates
  if #words == 0 then
    candidates = M.names()
  else
    local s = M.subcommands[(words[1]:gsub("!$", ""))]
    candidates = s and s.complete and s.complete(vim.list_slice(words, 2)) or {}
  end
  return vim.tbl_filter(function(c)
    return vim.startswith(c, arglead)
  end, candidates)
end

function M.define()
  local create = vim.api.nvim_create_user_command
  create("Hermes", command, {
    nargs = "*",
    range = true,
    bang = true,
    complete = M.complete,
    desc = "Hermes: :Hermes ask|stop|approve|status|transcript|open|new|compact|yolo|undo|threads|model|review|changes|keep|revert|preview|login|health",
  })
  for name, sub in pairs(M.aliases) do
    local s = M.subcommands[sub]
    create(name, function(opts)
      M.run(sub, opts.args, opts)
    end, {
      nargs = s.complete and "*" or (sub == "ask" and "*" or 0),
      range = sub == "ask" or nil,
      bang = sub == "undo" or nil,
      complete = s.complete and function(arglead, cmdline, cursorpos)
        local full = "Hermes " .. sub .. " " .. (cmdline:sub(1, cursorpos):match(name .. "!?%s+(.*)$") or "")
        return M.complete(arglead, full, #full)
      end or nil,
      desc = "Hermes: " .. s.desc .. " (:Hermes " .. sub .. ")",
    })
  end
end

return M
