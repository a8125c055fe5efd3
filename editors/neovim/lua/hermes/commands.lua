-- The user commands (defined by plugin/hermes.lua at startup and again by setup(), for plugin
-- managers that only add editors/neovim to the runtimepath late).
local M = {}

function M.define()
  local command = vim.api.nvim_create_user_command

  command("HermesAsk", function(opts)
    require("hermes").ask_command(opts)
  end, { nargs = "*", range = true, desc = "Hermes: ask the agent (a range sends the selection)" })

  command("HermesStop", function()
    require("hermes").stop()
  end, { nargs = 0, desc = "Hermes: stop the running turn" })

  command("HermesApprove", function(opts)
    require("hermes").approve_command(opts.args)
  end, {
    nargs = "?",
    complete = function()
      return { "once", "session", "deny", "stop" }
    end,
    desc = "Hermes: answer a waiting approval",
  })

  command("HermesStatus", function()
    require("hermes").show_status()
  end, { nargs = 0, desc = "Hermes: thread, turn, tokens and waiting approvals" })

  command("HermesTranscript", function()
    require("hermes").transcript()
  end, { nargs = 0, desc = "Hermes: open the folder's transcript" })

  command("HermesOpen", function()
    require("hermes").open()
  end, { nargs = 0, desc = "Hermes: show the Hermes buffer" })

  command("HermesNewThread", function()
    require("hermes").new_thread()
  end, { nargs = 0, desc = "Hermes: the next prompt starts a new thread" })

  command("HermesCompact", function()
    require("hermes").compact()
  end, { nargs = 0, desc = "Hermes: compact the thread's context" })

  command("HermesYolo", function()
    require("hermes").toggle_yolo()
  end, { nargs = 0, desc = "Hermes: toggle auto-approval in this folder" })

  command("HermesUndo", function(opts)
    require("hermes").undo_turn(opts.bang)
  end, { nargs = 0, bang = true, desc = "Hermes: undo the last turn's patches (! restores files changed since)" })
end

return M
