-- Neovim >= 0.10 only: the plugin's vim.lsp.start path with what those
-- versions do on their own — pull diagnostics, inlay hints, code actions with
-- the cursor's line diagnostics as context — against the real `eals`, headless.
-- Run: nvim --headless -u NONE --cmd "set rtp+=<repo>/editors/nvim" -c "luafile <this>"
-- Environment: EA_EALS (server executable), EA_DIR (directory holding
-- kernels.ea), EA_RESULT (JSON results are written there).
-- Exits 0 when every check passed, 1 on a failed check, 2 on a Lua error.

local S = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lsp_support.lua")
local results = S.results({ pushes = 0, pushed = 0 })
local check = S.checker(results)

local function line(bufnr, lnum)
  return vim.api.nvim_buf_get_lines(bufnr, lnum - 1, lnum, false)[1]
end

-- Every diagnostic the server pushes is counted: a client that pulls must get
-- none pushed (Neovim keeps both sets, in separate namespaces).
local push_handler = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
  results.pushes = results.pushes + 1
  results.pushed = results.pushed + #((result or {}).diagnostics or {})
  return push_handler(err, result, ctx, config)
end

local function diagnostics_of(bufnr)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local ns = vim.diagnostic.get_namespace(d.namespace)
    list[#list + 1] = { lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      message = d.message, namespace = ns and ns.name or tostring(d.namespace) }
  end
  return list
end

local function hint_label(hint)
  if type(hint.label) == "string" then
    return hint.label
  end
  local parts = {}
  for _, part in ipairs(hint.label) do
    parts[#parts + 1] = part.value
  end
  return table.concat(parts)
end

local function complete_items(result, prefix)
  -- How Neovim turns a completion answer into what its menu inserts (`word`):
  -- vim.lsp.completion (0.11+) or vim.lsp._completion (0.10).
  local completion = vim.lsp.completion or require("vim.lsp._completion")
  return completion._lsp_to_complete_items(result, prefix)
end

local function main()
  local v = vim.version()
  results.nvim = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  vim.cmd("filetype plugin on")
  -- Neovim 0.11 declares snippet support by default (0.10 does not); a user
  -- without snippets turns it off through the plugin's `capabilities`.
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  capabilities.textDocument.completion.completionItem.snippetSupport = false
  require("ea").setup({ cmd = { os.getenv("EA_EALS") }, debounce = 0, capabilities = capabilities,
    settings = { inlayHints = "functions" } })

  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("EA_DIR") .. "/kernels.ea"))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.wait(10000, function()
    return #vim.lsp.get_clients({ bufnr = bufnr }) > 0
  end, 20)
  local client = vim.lsp.get_clients({ bufnr = bufnr })[1]
  if not check("client attached", client ~= nil, "no client") then
    return
  end
  results.client_pulls = client.capabilities.textDocument.diagnostic ~= nil
  results.snippet_support = client.capabilities.textDocument.completion.completionItem.snippetSupport or false

  -- 1. Exactly one diagnostic per error, pulled (none pushed).
  vim.wait(15000, function()
    return #vim.diagnostic.get(bufnr) > 0
  end, 20)
  vim.wait(1000) -- a second copy (pushed) would arrive now
  results.diagnostics = diagnostics_of(bufnr)
  check("one diagnostic", #results.diagnostics == 1, vim.inspect(results.diagnostics))

  -- 2. The quick fix with the cursor at column 0: Neovim sends the cursor as the
  --    range and the line's diagnostics as the context; applied when it is the only one.
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      return action.kind == "quickfix"
    end,
  })
  vim.wait(10000, function()
    return line(bufnr, 2) ~= "    return a + b"
  end, 20)
  results.text_after_fix = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
  vim.wait(15000, function()
    return #vim.diagnostic.get(bufnr) == 0
  end, 20)
  results.diagnostics_after_fix = #vim.diagnostic.get(bufnr)

  -- 3. Inlay hints (the file is clean now): one per exported function.
  vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
  vim.wait(20000, function()
    return #vim.lsp.inlay_hint.get({ bufnr = bufnr }) >= 3
  end, 50)
  results.inlay_hints = {}
  for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = bufnr })) do
    results.inlay_hints[#results.inlay_hints + 1] = { lnum = h.inlay_hint.position.line, label = hint_label(h.inlay_hint) }
  end
  table.sort(results.inlay_hints, function(a, b)
    return a.lnum < b.lnum
  end)

  -- 4. Completion of `vad` inserts the plain name (snippet support declared off).
  vim.api.nvim_buf_set_lines(bufnr, 5, 6, false, { "    return vad" })
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = 5, character = 14 } }
  local replies = vim.lsp.buf_request_sync(bufnr, "textDocument/completion", params, 10000) or {}
  local reply = select(2, next(replies)) or {}
  local result = reply.result or {}
  for _, item in ipairs(result.items or result) do
    if item.label == "vadd" then
      results.completion_item = { insertText = item.insertText, insertTextFormat = item.insertTextFormat }
    end
  end
  for _, item in ipairs(complete_items(result, "vad")) do
    if item.abbr == "vadd" or item.word:find("^vadd") then
      results.completion_word = item.word
      vim.api.nvim_buf_set_lines(bufnr, 5, 6, false, { "    return " .. item.word })
    end
  end
  results.completed_line = line(bufnr, 6)

  -- 5. Definition and rename through Neovim's own commands (rename asks
  --    textDocument/prepareRename first), from the call in `twice`.
  vim.api.nvim_buf_set_lines(bufnr, 5, 6, false, { "    return vadd(a, a)" })
  vim.api.nvim_win_set_cursor(0, { 6, 12 })
  vim.lsp.buf.definition()
  vim.wait(10000, function()
    return vim.api.nvim_win_get_cursor(0)[1] == 1
  end, 20)
  results.definition = vim.api.nvim_win_get_cursor(0)
  vim.lsp.buf.rename("vsum")
  vim.wait(10000, function()
    return line(bufnr, 6) == "    return vsum(a, a)"
  end, 20)
  results.renamed = { line(bufnr, 1), line(bufnr, 6) }

  -- 6. A refused rename (an intrinsic) is an error answer and nothing else:
  --    Neovim's lsp.log (server stderr, errors) stays empty.
  local rename = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = 9, character = 12 },
    newName = "root2" }
  local answers = vim.lsp.buf_request_sync(bufnr, "textDocument/rename", rename, 10000) or {}
  local answer = select(2, next(answers)) or {}
  results.refused_rename = answer.error and answer.error.message or vim.inspect(answer)
  vim.wait(500)
  local log = io.open(vim.lsp.get_log_path(), "r")
  results.lsp_log = log and log:read("*a") or ""
  if log then
    log:close()
  end
end

S.run(results, main)
