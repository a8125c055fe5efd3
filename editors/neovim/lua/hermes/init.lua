-- hermes.nvim: OpenAI Codex agent turns in Neovim (0.7 and later) through hermes-lsp.
--
--   require("hermes").setup{}          -- start or attach the server for buffers inside a folder
--   vim.lsp.enable("hermes")           -- or, on 0.11+, through lsp/hermes.lua (setup{autostart=false})
--   :Hermes ask [prompt]               -- a range sends the selection
--   :Hermes stop|approve [once|session|deny|stop]|status|transcript|open|new|compact|yolo|undo[!]
--   :Hermes threads|model|review [base <branch>|commit <sha>|instructions]|login|health
--   (the older :HermesAsk, :HermesStop, ... are aliases)
--   require("hermes").statusline()     -- "Hermes: exec_command: go test ./... · 2.5k tokens"
local actions = require("hermes.actions")
local client = require("hermes.client")
local handlers = require("hermes.handlers")
local status = require("hermes.status")
local view = require("hermes.view")

-- The plugin's table: its configuration and setup here, the servers in hermes.client, the commands
-- in hermes.actions and hermes.status.
local M = {}

local api = vim.api
local augroup

M.defaults = {
  -- The server command.
  cmd = { "hermes-lsp" },
  -- Extra environment for the server.
  cmd_env = nil,
  -- The `hermes` settings (docs/protocol.md), sent as initializationOptions and as `settings.hermes`
  -- for workspace/configuration. turnEvents is always on: the Hermes buffer and the approvals use it.
  settings = {},
  -- nil: every filetype (any buffer of a file); or a list of filetypes to attach to.
  filetypes = nil,
  -- function(bufnr, path) -> folder or nil (nil: do not attach). Default: the nearest folder up from
  -- the file holding one of root_markers (the git root), else the current directory when the file is
  -- inside it, else the file's own folder.
  root_dir = nil,
  root_markers = { ".git" },
  -- Attach automatically to buffers as they are read; false: only through the commands (or
  -- vim.lsp.enable("hermes") on 0.11+, which then does the attaching).
  autostart = true,
  -- How the Hermes buffer opens when a turn starts ("botright split", "vsplit", "tabnew", ...); false:
  -- never on its own (show it with :Hermes open; it is hermes://<folder>).
  window = "botright split",
  height = 12,
  -- How window/showDocument opens a file (the transcript, a diff).
  document_split = "belowright split",
  -- vim.notify when a turn starts and ends.
  notify_progress = true,
  -- Show the model's reasoning summaries in the Hermes buffer.
  reasoning = false,
  -- Map K to vim.lsp.buf.hover in attached buffers where K has no buffer mapping yet, on Neovim
  -- before 0.10 (0.10 maps it itself): hover on the line a turn was asked from shows the turn.
  hover_keymap = true,
  -- Passed through to the LSP client.
  on_attach = nil,
  capabilities = nil,
  name = "hermes",
  -- Milliseconds Neovim waits for the server (and codex) to stop when it quits.
  exit_timeout = 3000,
}

M.config = nil

-- The servers (hermes.client).
M.clients = client.clients
M.start = client.start
M.attach = client.attach
M.execute = client.execute
M.stop_all = client.stop_all

-- The commands (hermes.actions).
M.ask = actions.ask
M.ask_command = actions.ask_command
M.stop = actions.stop
M.transcript = actions.transcript
M.new_thread = actions.new_thread
M.compact = actions.compact
M.toggle_yolo = actions.toggle_yolo
M.undo_turn = actions.undo_turn
M.open = actions.open
M.login = actions.login
M.health = function()
  vim.cmd("checkhealth hermes")
end
M.threads = require("hermes.threads").threads
M.model = require("hermes.threads").model
M.review = require("hermes.threads").review

-- Status, approvals and the statusline (hermes.status).
M.status = status.status
M.show_status = status.show_status
M.approve_command = status.approve_command
M.statusline = status.statusline

-- What is typed in the Hermes buffer's input area goes to its folder.
view.on_send = function(folder, text)
  actions.ask(text, { folder = folder })
end

handlers.on_update = function()
  pcall(vim.cmd, "redrawstatus!")
  pcall(api.nvim_exec_autocmds, "User", { pattern = "HermesUpdate", modeline = false })
end

function M.ensure_setup()
  if not M.config then
    M.setup({})
  end
end

-- setup configures the plugin; with autostart, buffers of files attach as they are read.
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  if opts and opts.cmd then
    M.config.cmd = opts.cmd -- a list: replaced, not merged
  end
  if opts and opts.filetypes then
    M.config.filetypes = opts.filetypes
  end
  if opts and opts.root_markers then
    M.config.root_markers = opts.root_markers
  end
  if type(M.config.cmd) == "string" then
    M.config.cmd = { M.config.cmd }
  end
  view.config.window = M.config.window
  view.config.height = M.config.height
  view.config.reasoning = M.config.reasoning
  handlers.config.notify_progress = M.config.notify_progress
  handlers.config.document_split = M.config.document_split

  require("hermes.commands").define()
  augroup = api.nvim_create_augroup("hermes", { clear = true })
  api.nvim_create_autocmd("VimLeavePre", {
    group = augroup,
    callback = function()
      M._quitting = true
    end,
  })
  if M.config.autostart then
    local events = M.config.filetypes and { "FileType" } or { "BufReadPost", "BufNewFile", "FileType" }
    api.nvim_create_autocmd(events, {
      group = augroup,
      callback = function(args)
        client.attach(args.buf)
      end,
    })
    for _, b in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_is_loaded(b) then
        client.attach(b)
      end
    end
  end
  return M
end

return M
