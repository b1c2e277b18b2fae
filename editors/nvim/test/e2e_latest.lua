-- End-to-end test of vap-lsp in Neovim >= 0.11, configured by the README's snippet
-- (vim.lsp.config + vim.lsp.enable) given as init.lua:
--
--   VAP_LSP_FIXTURE=editors/vscode/test/grammar/fixtures/styles.yaml \
--     nvim --headless -u init.lua -i NONE -n examples/broken/policy-field-errors.yaml \
--       -c 'luafile editors/nvim/test/e2e_latest.lua'
--
-- The server starts the way a user's does: vim.lsp.enable's FileType autocommand runs
-- lsp/vap_lsp.lua's `cmd` (`vap-lsp serve` on PATH). Checks what a user sees (vim.diagnostic),
-- hover, completion, a quick fix applied through vim.lsp, and the YAML injection query under
-- Neovim's own tree-sitter (its #any-of?, #set! and #offset! directives). Prints one "ok" line
-- a check (and "injection <row> <lang> <json text>" lines), then PASS and exits 0, or
-- "FAIL: ..." and exits 1.

local function out(line)
  io.stdout:write(line .. '\n')
  io.stdout:flush()
end

local function finish(code)
  vim.cmd((code == 0 and 'qall!' or 'cquit! ' .. code))
end

local TIMEOUT = 60000

local function request(bufnr, method, params)
  local responses, err = vim.lsp.buf_request_sync(bufnr, method, params, TIMEOUT)
  assert(responses, method .. ': no response: ' .. tostring(err))
  for _, response in pairs(responses) do
    assert(response.err == nil, method .. ': error ' .. vim.inspect(response.err))
    return response.result
  end
  error(method .. ': no client answered')
end

local ok, err = pcall(function()
  assert(vim.fn.has('nvim-0.11') == 1, 'Neovim ' .. tostring(vim.version()) .. ' is older than 0.11')
  out('ok version: ' .. tostring(vim.version()))

  local bufnr = vim.api.nvim_get_current_buf()
  local file = vim.api.nvim_buf_get_name(bufnr)
  assert(file:match('policy%-field%-errors%.yaml$'), 'the buffer is ' .. file)
  assert(vim.bo[bufnr].filetype == 'yaml', 'filetype is ' .. vim.bo[bufnr].filetype)

  -- vim.lsp.enable started the server for the buffer, with the snippet's settings merged
  -- over lsp/vap_lsp.lua.
  local client
  assert(vim.wait(TIMEOUT, function()
    client = vim.lsp.get_clients({ bufnr = bufnr, name = 'vap_lsp' })[1]
    return client ~= nil and client.initialized
  end, 20), 'vap_lsp did not attach to the buffer')
  assert(vim.deep_equal(client.config.cmd, { 'vap-lsp', 'serve' }), 'cmd ' .. vim.inspect(client.config.cmd))
  assert(client.config.settings.vapLsp.kubernetesVersion == '1.33',
    'settings ' .. vim.inspect(client.config.settings))
  assert(#vim.lsp.get_clients({ bufnr = bufnr }) == 1, 'more than vap_lsp attached')
  out('ok attach: vap_lsp (vap-lsp serve), kubernetesVersion 1.33')

  -- Diagnostics as vim.diagnostic shows them (0-based lines and columns).
  local shown
  assert(vim.wait(TIMEOUT, function()
    shown = vim.diagnostic.get(bufnr)
    return #shown >= 8
  end, 20), 'no diagnostics within 60 s: ' .. vim.inspect(vim.diagnostic.get(bufnr)))
  local rows = {}
  for _, d in ipairs(shown) do
    assert(d.source == 'vap-lsp', 'diagnostic source ' .. tostring(d.source))
    table.insert(rows, ('%d:%d-%d:%d %s %s %s'):format(d.lnum, d.col, d.end_lnum, d.end_col,
      vim.diagnostic.severity[d.severity], d.code, d.message:sub(1, 60)))
  end
  table.sort(rows)
  for _, row in ipairs(rows) do
    out('diagnostic ' .. row)
  end
  out(('ok diagnostics: %d shown by vim.diagnostic'):format(#shown))

  -- Hover on `object` in `object.spec.hostNetwork != true` (line 17).
  local row = 16
  local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1]
  local col = assert(line:find('object.spec', 1, true), 'expression not on line 17') - 1
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = row, character = col + 2 } }
  local hover = request(bufnr, 'textDocument/hover', params)
  assert(hover ~= nil, 'hover: the server answered null')
  local r = hover.range
  assert(r and r.start.line == row and r.start.character == col and r['end'].character == col + #'object',
    'hover: range is not the identifier: ' .. vim.inspect(r))
  out('hover ' .. vim.json.encode(hover.contents))

  -- Completion after `object.spec.`.
  params.position.character = col + #'object.spec.'
  local completion = request(bufnr, 'textDocument/completion', params)
  local items = completion.items or completion
  local labels = {}
  for _, item in ipairs(items) do
    table.insert(labels, item.label)
  end
  table.sort(labels)
  out('completion ' .. table.concat(labels, ' '))

  -- The quick fix for the optional-field hint on `object.spec.hostNetwork` (line 17), applied as
  -- a user's `vim.lsp.buf.code_action()` does.
  local unknown
  for _, d in ipairs(shown) do
    if d.code == 'optional-field' then unknown = d end
  end
  assert(unknown, 'no optional-field diagnostic')
  local actions = request(bufnr, 'textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = unknown.user_data.lsp.range,
    context = { diagnostics = { unknown.user_data.lsp }, only = { 'quickfix' } },
  })
  assert(actions ~= nil, 'codeAction: the server answered null')
  local titles = {}
  for _, action in ipairs(actions) do
    table.insert(titles, action.title .. (action.isPreferred and ' (preferred)' or ''))
  end
  out('code actions ' .. table.concat(titles, ' | '))
  local fix = actions[1]
  assert(fix and fix.edit, 'the first code action has no edit')
  vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding)
  out('after fix: ' .. vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1])
  -- The server re-checks the edited buffer: the hint is gone, the other diagnostics stay.
  assert(vim.wait(TIMEOUT, function()
    local now = vim.diagnostic.get(bufnr)
    for _, d in ipairs(now) do
      if d.code == 'optional-field' then return false end
    end
    return #now == #shown - 1
  end, 20), 'after the fix: ' .. vim.inspect(vim.diagnostic.get(bufnr)))
  out('ok code action: optional-field gone after the fix')

  -- Tree-sitter: the YAML parser (like :TSInstall yaml) and the injection query from the
  -- runtimepath entry of the snippet, run on the policy buffer and on the scalar-styles fixture.
  vim.treesitter.start(bufnr, 'yaml')
  local query = vim.treesitter.query.get('yaml', 'injections')
  assert(query, 'no yaml injections query on the runtimepath')
  local parser = vim.treesitter.get_parser(bufnr, 'yaml')
  parser:parse(true)
  out('ok treesitter: highlighter started, injections query loaded')

  local fixture = vim.fn.fnamemodify(assert(os.getenv('VAP_LSP_FIXTURE'), 'VAP_LSP_FIXTURE is not set'), ':p')
  local fixture_buf = vim.fn.bufadd(fixture)
  vim.fn.bufload(fixture_buf)
  local tree = vim.treesitter.get_parser(fixture_buf, 'yaml'):parse()[1]
  for _, match, metadata in query:iter_matches(tree:root(), fixture_buf, 0, -1) do
    for id, nodes in pairs(match) do
      if query.captures[id] == 'injection.content' then
        for _, node in ipairs(nodes) do
          -- The range and text after #offset!, as the injection hands them to the CEL parser.
          local range = vim.treesitter.get_range(node, fixture_buf, metadata[id])
          local text = vim.treesitter.get_node_text(node, fixture_buf, { metadata = metadata[id] })
          out(('injection %d %s %s'):format(range[1], metadata['injection.language'], vim.json.encode(text)))
        end
      end
    end
  end

  client:stop()
  vim.wait(5000, function() return client:is_stopped() end, 20)
end)

if ok then
  out('PASS')
  finish(0)
else
  out('FAIL: ' .. tostring(err))
  finish(1)
end
