-- The tuning features of `eals` through Neovim's own LSP client (0.7 to
-- 0.11), headless: the rewrite code action picked in vim.lsp.buf.code_action's
-- menu (vim.ui.select; Neovim resolves the edit through codeAction/resolve and
-- applies it in the client's offset encoding), undone in one step; the code
-- lenses of vim.lsp.codelens; the "bench" lens run by vim.lsp.codelens.run,
-- with its $/progress, and hover afterwards.
-- Run: nvim --headless -u NONE --cmd "set rtp+=<repo>/editors/nvim" -c "luafile <this>"
-- Environment: EA_EALS (server executable), EA_DIR (directory holding
-- reductions.ea and its suite reductions.bench.toml), EA_TITLE (the action to
-- pick), EA_RESULT (JSON results are written there).
-- Exits 0 when every check passed, 1 on a failed check, 2 on a Lua error.

local S = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lsp_support.lua")
local results = S.results({ progress = {}, messages = {} })
local uv = vim.uv or vim.loop
local TITLE = assert(os.getenv("EA_TITLE"), "EA_TITLE not set")
local check = S.checker(results)
local clients_of = S.clients_of

local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
end

local function line_of(bufnr, needle, after)
  local seen = after == nil
  for i, text in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    seen = seen or text:find(after, 1, true) ~= nil
    if seen and text:find(needle, 1, true) then
      return i, text:find(needle, 1, true) - 1
    end
  end
  error("no line with " .. needle)
end
local hover_text = S.hover_text

-- The menu Neovim shows (vim.ui.select) answers with the entry labelled `want`.
local function pick(want, record)
  vim.ui.select = function(items, opts, on_choice)
    local labels = {}
    for i, item in ipairs(items) do
      labels[i] = opts.format_item and opts.format_item(item) or tostring(item)
    end
    results[record] = { kind = opts.kind, labels = labels }
    for i, label in ipairs(labels) do
      if label == want then
        return on_choice(items[i], i)
      end
    end
    on_choice(nil, nil)
  end
end

-- What the server sends besides answers: progress, messages, the command's answer.
local function wrap(method, record)
  local original = vim.lsp.handlers[method]
  vim.lsp.handlers[method] = function(err, result, ctx, config)
    record(err, result)
    if original then
      return original(err, result, ctx, config)
    end
  end
end
wrap("$/progress", function(_, result)
  local value = result.value or {}
  results.progress[#results.progress + 1] = { token = result.token, kind = value.kind, title = value.title,
    message = value.message, percentage = value.percentage }
end)
wrap("window/showMessage", function(_, result)
  results.messages[#results.messages + 1] = result.message
end)
wrap("workspace/executeCommand", function(err, result)
  results.command_done = true
  results.command_error = err and (err.message or vim.inspect(err)) or nil
  results.command_result = result
end)

local function main()
  local v = vim.version()
  results.nvim = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  vim.cmd("filetype plugin on")
  require("ea").setup({ cmd = { os.getenv("EA_EALS") }, debounce = 0,
    settings = { target_cpu = "haswell", target_triple = "x86_64-unknown-linux-gnu" } })

  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("EA_DIR") .. "/reductions.ea"))
  local bufnr = vim.api.nvim_get_current_buf()
  local original = buffer_text(bufnr)
  vim.wait(10000, function()
    return #clients_of(bufnr) > 0
  end, 20)
  local client = clients_of(bufnr)[1]
  if not check("client attached", client ~= nil, "no client") then
    return
  end
  local caps = vim.lsp.protocol.make_client_capabilities()
  results.resolve_declared = vim.tbl_contains(
    ((caps.textDocument.codeAction or {}).resolveSupport or {}).properties or {}, "edit")
  results.offset_encoding = client.offset_encoding

  -- 1. The actions on the max_f32 loop, as Neovim asks for them (the cursor
  --    as the range, no diagnostics on a clean file). The first answer waits
  --    for the function's machine code.
  local loop_line, loop_col = line_of(bufnr, "while", "func max_f32")
  vim.api.nvim_win_set_cursor(0, { loop_line, loop_col })
  local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
  params.context = { diagnostics = {} }
  local actions = {}
  local deadline = uv.now() + 60000
  while #actions == 0 and not results.action_error and uv.now() < deadline do
    local replies = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 30000) or {}
    local reply = select(2, next(replies)) or {}
    actions = reply.result or {}
    results.action_error = reply.error and reply.error.message or nil
    if #actions == 0 then
      vim.wait(200)
    end
  end
  results.titles = {}
  for _, action in ipairs(actions) do
    results.titles[#results.titles + 1] = action.title
    if action.title == TITLE then
      results.lazy = action.edit == nil and action.data ~= nil
      results.kind = action.kind
    end
  end

  -- 2. Picked in Neovim's menu: resolved, applied by the client, then one undo.
  pick(TITLE, "action_menu")
  local tick = vim.api.nvim_buf_get_changedtick(bufnr)
  vim.lsp.buf.code_action()
  check("rewrite applied", vim.wait(30000, function()
    return vim.api.nvim_buf_get_changedtick(bufnr) ~= tick
  end, 20), "the buffer did not change")
  vim.wait(200) -- every edit of the workspace edit is applied in the same callback
  results.text_after_rewrite = buffer_text(bufnr)
  vim.cmd("silent undo")
  results.undone = buffer_text(bufnr) == original

  -- 3. Code lenses, fetched and kept by vim.lsp.codelens.
  vim.lsp.codelens.refresh()
  vim.wait(20000, function()
    return #vim.lsp.codelens.get(bufnr) > 0
  end, 50)
  results.lenses = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    local cmd = lens.command or {}
    results.lenses[#results.lenses + 1] = { line = lens.range.start.line, character = lens.range.start.character,
      title = cmd.title, command = cmd.command, arguments = cmd.arguments }
  end
  table.sort(results.lenses, function(a, b)
    return a.line < b.line or (a.line == b.line and a.title < b.title)
  end)

  -- 4. The "bench" lens of max_f32, run from its line as a user does.
  local name_line = line_of(bufnr, "func max_f32")
  vim.api.nvim_win_set_cursor(0, { name_line, 0 })
  pick("bench", "lens_menu")
  local started = uv.now()
  vim.lsp.codelens.run()
  check("ea.bench answered", vim.wait(30000, function()
    return results.command_done
  end, 10), "no answer to workspace/executeCommand")
  results.answer_ms = uv.now() - started
  -- A lens runs in the background: its end is the message that says so.
  check("ea.bench finished", vim.wait(150000, function()
    for _, message in ipairs(results.messages) do
      if message:find("ea.bench max_f32:", 1, true) == 1 then
        return true
      end
    end
    return false
  end, 100), "no closing message")

  -- 5. Hover over the function's name then shows the result.
  local _, name_col = line_of(bufnr, "max_f32", "func max_f32")
  local hover = { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = name_line - 1, character = name_col + 1 } }
  local replies = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", hover, 20000) or {}
  local reply = select(2, next(replies)) or {}
  results.hover = reply.result and hover_text(reply.result.contents) or vim.inspect(reply.error)

  -- 6. The "tune" lens, answered at once too, cancelled through its progress once
  --    its search began (Neovim has no cancel of its own: the notification a UI sends).
  results.command_done = false
  pick("tune", "tune_menu")
  vim.lsp.codelens.run()
  local token
  check("ea.tune searching", vim.wait(120000, function()
    for _, p in ipairs(results.progress) do
      if p.title == nil and (p.message or ""):find("search", 1, true) then
        token = p.token
        return true
      end
    end
    return false
  end, 50), "no search began")
  if token ~= nil then
    local cancel = { token = token }
    if vim.fn.has("nvim-0.11") == 1 then
      client:notify("window/workDoneProgress/cancel", cancel)
    else
      client.notify("window/workDoneProgress/cancel", cancel)
    end
  end
  check("ea.tune finished", vim.wait(120000, function()
    for _, message in ipairs(results.messages) do
      if message:find("ea.tune max_f32:", 1, true) == 1 then
        return true
      end
    end
    return false
  end, 100), "no closing message")
  replies = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", hover, 20000) or {}
  reply = select(2, next(replies)) or {}
  results.hover_after_tune = reply.result and hover_text(reply.result.contents) or vim.inspect(reply.error)

  vim.wait(300)
  local log = io.open(vim.lsp.get_log_path(), "r")
  results.lsp_log = log and log:read("*a") or ""
  if log then
    log:close()
  end
end

S.run(results, main)
