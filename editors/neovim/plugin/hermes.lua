-- hermes.nvim user commands. The server starts with require("hermes").setup{} (or the first command).
if vim.g.loaded_hermes == 1 or vim.fn.has("nvim-0.7") ~= 1 then
  return
end
vim.g.loaded_hermes = 1

require("hermes.commands").define()
