-- End-to-end test of vap-lsp in a real Neovim (0.7 and later: vim.lsp.start_client).
--
--   VAP_LSP_CMD='/path/to/vap-lsp<TAB>serve' VAP_LSP_FILE=examples/broken/policy-field-errors.yaml \
--     nvim --headless -u NONE -i NONE -n -c 'luafile editors/nvim/test/e2e.lua'
--
-- Opens the policy, waits for the server's diagnostics and asserts on them, then requests hover
-- and completion inside a CEL expression. Prints one "ok" line a check and exits 0, or
-- prints "FAIL: ..." and exits 1.

local function out(line)
  io.stdout:write(line .. '\n')
  io.stdout:flush()
end

local function finish(code)
  vim.cmd((code == 0 and 'qall!' or 'cquit! ' .. code))
end

local ok, err = pcall(function()
  local cmd = vim.split(assert(os.getenv('VAP_LSP_CMD'), 'VAP_LSP_CMD is not set'), '\t', { plain = true })
  local file = vim.fn.fnamemodify(assert(os.getenv('VAP_LSP_FILE'), 'VAP_LSP_FILE is not set'), ':p')
  local uri = vim.uri_from_fname(file)

  vim.cmd('filetype on')
  local published = nil
  local client_id = vim.lsp.start_client({
    name = 'vap_lsp',
    cmd = cmd,
    root_dir = vim.fn.fnamemodify(file, ':h'),
    init_options = { vapLsp = { kubernetesVersion = '1.33', debounceMs = 50 } },
    handlers = {
      ['textDocument/publishDiagnostics'] = function(e, result, ctx, config)
        if result and result.uri == uri and #result.diagnostics > 0 then
          published = result
        end
        return vim.lsp.handlers['textDocument/publishDiagnostics'](e, result, ctx, config)
      end,
    },
  })
  assert(client_id, 'vim.lsp.start_client failed')

  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  assert(vim.bo[bufnr].filetype == 'yaml', 'filetype is ' .. vim.bo[bufnr].filetype)
  assert(vim.lsp.buf_attach_client(bufnr, client_id), 'buf_attach_client failed')

  -- Diagnostics: firm assertions on what the API server would say.
  assert(vim.wait(60000, function() return published ~= nil end, 50), 'no diagnostics within 60 s')
  local by_line = {}
  for _, d in ipairs(published.diagnostics) do
    assert(d.source == 'vap-lsp', 'diagnostic source ' .. tostring(d.source))
    by_line[d.range.start.line] = by_line[d.range.start.line] or {}
    table.insert(by_line[d.range.start.line], d)
  end
  local function expect(line, severity, code, needle)
    for _, d in ipairs(by_line[line] or {}) do
      if d.severity == severity and d.code == code and d.message:find(needle, 1, true) then
        return d
      end
    end
    error(('no %s diagnostic %s containing %q on line %d; got %s'):format(
      severity, code, needle, line + 1, vim.inspect(published.diagnostics)))
  end
  local failure = expect(6, 1, 'FieldValueNotSupported', 'spec.failurePolicy: Unsupported value: "Sometimes"')
  assert(failure.range.start.character == 17 and failure.range['end'].character == 26,
    'failurePolicy range ' .. vim.inspect(failure.range))
  expect(4, 1, 'FieldValueInvalid', 'metadata.name: Invalid value: "Deny_Privileged"')
  expect(13, 1, 'unknown-field', 'unknown field "spec.validation"')
  expect(18, 1, 'FieldValueNotSupported', 'spec.validations[0].reason: Unsupported value: "NotAllowed"')
  local errors = 0
  for _, d in ipairs(published.diagnostics) do
    if d.severity == 1 then errors = errors + 1 end
  end
  assert(errors == 6, ('expected 6 errors, got %d'):format(errors))
  local shown = vim.diagnostic.get(bufnr)
  assert(#shown == #published.diagnostics, ('vim.diagnostic has %d of %d'):format(#shown, #published.diagnostics))
  out(('ok diagnostics: %d published (%d errors), shown by vim.diagnostic'):format(#published.diagnostics, errors))

  -- Hover and completion inside `object.spec.hostNetwork != true` (line 17).
  local client = vim.lsp.get_client_by_id(client_id)
  local caps = client.server_capabilities or client.resolved_capabilities or {}
  local line = vim.api.nvim_buf_get_lines(bufnr, 16, 17, false)[1]
  local col = assert(line:find('object.spec', 1, true), 'expression not on line 17') - 1

  assert(caps.hoverProvider, 'the server offers no hoverProvider')
  do
    local response, request_err = client.request_sync('textDocument/hover', {
      textDocument = { uri = uri },
      position = { line = 16, character = col + 2 },
    }, 20000, bufnr)
    assert(response, 'hover: no response: ' .. tostring(request_err))
    assert(response.err == nil, 'hover: error ' .. vim.inspect(response.err))
    assert(response.result ~= nil and response.result ~= vim.NIL, 'hover: the server answered null')
    local contents = response.result.contents
    local text = type(contents) == 'string' and contents or (contents.value or vim.inspect(contents))
    -- `object` in a policy matching v1 pods is typed from the Pod schema.
    assert(text:find('object: Pod', 1, true), 'hover: no "object: Pod" in ' .. text)
    assert(text:find('admission request', 1, true), 'hover: no description in ' .. text)
    local r = response.result.range
    assert(r and r.start.line == 16 and r.start.character == col and r['end'].character == col + #'object',
      'hover: range is not the identifier: ' .. vim.inspect(r))
    out('ok hover: ' .. text:gsub('\n', ' '):sub(1, 100))
  end

  assert(caps.completionProvider, 'the server offers no completionProvider')
  do
    local response, request_err = client.request_sync('textDocument/completion', {
      textDocument = { uri = uri },
      position = { line = 16, character = col + #'object.' },
    }, 20000, bufnr)
    assert(response, 'completion: no response: ' .. tostring(request_err))
    assert(response.err == nil, 'completion: error ' .. vim.inspect(response.err))
    local result = response.result
    assert(result ~= nil and result ~= vim.NIL, 'completion: the server answered null')
    local items = result.items or result
    assert(type(items) == 'table', 'completion: result is ' .. vim.inspect(result))
    local labels = {}
    for _, item in ipairs(items) do
      assert(type(item.label) == 'string' and item.label ~= '', 'completion item without label')
      labels[item.label] = true
    end
    -- The top-level fields of a Pod, and nothing that is not one.
    for _, want in ipairs({ 'apiVersion', 'kind', 'metadata', 'spec', 'status' }) do
      assert(labels[want], ('completion: no %q among %s'):format(want, vim.inspect(vim.tbl_keys(labels))))
    end
    assert(#items == 5, ('completion: expected the 5 Pod fields, got %d'):format(#items))
    out(('ok completion: %d items (apiVersion, kind, metadata, spec, status)'):format(#items))
  end

  client.stop()
  vim.wait(5000, function() return client.is_stopped() end, 50)
end)

if ok then
  out('PASS')
  finish(0)
else
  out('FAIL: ' .. tostring(err))
  finish(1)
end
