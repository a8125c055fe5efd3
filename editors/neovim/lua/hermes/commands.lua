-- The user commands (defined by plugin/hermes.lua at startup and again by setup(), for plugin
-- managers that only add editors/neovim to the runtimepath late).
local M = {}

-- The commands without arguments: the command, the function of require("hermes") it calls, and
-- its description.
local plain = {
  { "HermesStop", "stop", "Hermes: stop the running turn" },
  { "HermesStatus", "show_status", "Hermes: thread, turn, tokens and waiting approvals" },
  { "HermesTranscript", "transcript", "Hermes: open the folder's transcript" },
  { "HermesOpen", "open", "Hermes: show the Hermes buffer" },
  { "HermesNewThread", "new_thread", "Hermes: the next prompt starts a new thread" },
  { "HermesCompact", "compact", "Hermes: compact the thread's context" },
  { "HermesYolo", "toggle_yolo", "Hermes: toggle auto-approval in this folder" },
  { "HermesThreads", "threads", "Hermes: resume a past thread of this folder" },
  { "HermesModel", "model", "Hermes: choose the model and reasoning effort of this folder" },
}

function M.define()
  local command = vim.api.nvim_create_user_command

  command("HermesAsk", function(opts)
    require("hermes").ask_command(opts)
  end, { nargs = "*", range = true, desc = "Hermes: ask the agent (a range sends the selection)" })

  command("HermesApprove", function(opts)
    require("hermes").approve_command(opts.args)
  end, {
    nargs = "?",
    complete = function()
      return { "once", "session", "deny", "stop" }
    end,
    desc = "Hermes: answer a waiting approval",
  })

  command("HermesReview", function(opts)
    require("hermes").review(opts.args)
  end, {
    nargs = "*",
    complete = function()
      return { "base", "commit" }
    end,
    desc = "Hermes: review the changes (base <branch>, commit <sha>, or instructions)",
  })

  command("HermesUndo", function(opts)
    require("hermes").undo_turn(opts.bang)
  end, { nargs = 0, bang = true, desc = "Hermes: undo the last turn's patches (! restores files changed since)" })

  for _, c in ipairs(plain) do
    local name, fn, desc = c[1], c[2], c[3]
    command(name, function()
      -- Looked up when the command runs: require("hermes") loads the plugin only then.
      require("hermes")[fn]()
    end, { nargs = 0, desc = desc })
  end
end

return M
