-- vap-lsp for Neovim >= 0.11: put this directory on 'runtimepath' (or copy this file to
-- ~/.config/nvim/lsp/vap_lsp.lua) and call vim.lsp.enable('vap_lsp').
-- It runs beside yaml-language-server (vim.lsp.enable({'yamlls', 'vap_lsp'})).
---@type vim.lsp.Config
return {
  cmd = { 'vap-lsp', 'serve' },
  filetypes = { 'yaml' },
  root_markers = { '.git' },
  -- Sent as initializationOptions and workspace/didChangeConfiguration.
  init_options = { vapLsp = {} },
  settings = { vapLsp = {} },
}
