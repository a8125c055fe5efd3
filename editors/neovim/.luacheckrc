-- luacheck's settings for the Neovim plugin (make lint-editors runs `luacheck .` here).
-- Neovim runs LuaJIT; `vim` is the editor's API table, which the plugin reads and (vim.g, vim.b,
-- vim.bo, vim.wo, vim.opt, vim.lsp handlers) writes.
std = "luajit"
globals = { "vim" }
-- Line length is stylua's (stylua.toml): a long string it cannot break is left as it is.
max_line_length = false
