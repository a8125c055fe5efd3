-- vim.lsp.enable("hermes") on Neovim 0.11+: the hermes-lsp client configuration, with the plugin's
-- handlers (approvals through vim.ui.select, the Hermes buffer, progress, showDocument), its
-- capabilities, its settings (turnEvents on) and its on_init/on_attach hooks. Configure the plugin
-- first with require("hermes").setup({ autostart = false, ... }) (vim.lsp.enable does the
-- attaching); without a setup call, this file makes one with autostart off. Override fields with
-- vim.lsp.config("hermes", { ... }).
local hermes = require("hermes")
if not hermes.config then
  hermes.setup({ autostart = false })
end
return require("hermes.client").lsp_config()
