-- Helpers for configuring vap-lsp in Neovim.
--   Neovim >= 0.11:  require('vap_lsp').setup({ kubernetesVersion = '1.33' })
--   nvim-lspconfig:  require('vap_lsp').setup_lspconfig({ kubernetesVersion = '1.33' })
local M = {}

--- The server configuration (cmd, filetypes, settings) for the given vapLsp settings.
---@param settings table|nil e.g. { kubernetesVersion = '1.33', debounceMs = 150 }
---@param cmd string[]|nil defaults to { 'vap-lsp', 'serve' }
function M.config(settings, cmd)
  local section = { vapLsp = settings or {} }
  return {
    cmd = cmd or { 'vap-lsp', 'serve' },
    filetypes = { 'yaml' },
    root_markers = { '.git' },
    init_options = section,
    settings = section,
  }
end

--- Neovim >= 0.11: vim.lsp.config + vim.lsp.enable.
function M.setup(settings, cmd)
  vim.lsp.config('vap_lsp', M.config(settings, cmd))
  vim.lsp.enable('vap_lsp')
end

--- nvim-lspconfig (any Neovim it supports): registers `vap_lsp` and sets it up.
function M.setup_lspconfig(settings, cmd)
  local configs = require('lspconfig.configs')
  local util = require('lspconfig.util')
  local config = M.config(settings, cmd)
  if not configs.vap_lsp then
    configs.vap_lsp = {
      default_config = {
        cmd = config.cmd,
        filetypes = config.filetypes,
        root_dir = util.root_pattern('.git'),
        single_file_support = true,
        init_options = config.init_options,
        settings = config.settings,
      },
    }
  end
  require('lspconfig').vap_lsp.setup({})
end

return M
