-- Drives the Eä Neovim plugin against the real `eals`, headless.
-- Run: nvim --headless -u NONE --cmd "set rtp+=<repo>/editors/nvim" -c "luafile <this>"
-- Environment: EA_EALS (server executable), EA_DIR (directory holding
-- bad.ea and other.ea), EA_RESULT (JSON results are written there).
-- Exits 0 when every check passed, 1 on a failed check, 2 on a Lua error.

local S = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lsp_support.lua")
local results = S.results()
local uv = vim.uv or vim.loop
local check = S.checker(results)
local clients_of = S.clients_of
local hover_text = S.hover_text

local BAD_MESSAGE = "cannot use '+' on vectors. Use '.+' for element-wise vector operations"

local function syntax_checks()
  -- A scratch buffer (buftype=nofile: the plugin must not attach it).
  vim.cmd("enew")
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = "nofile"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, {
    "export kernel scale(x: *f32, out y: *mut f32 [cap: n], n: i32) over i in n step 8 tail scalar {",
    "    let v: f32x8 = load(x, i) .* splat(2.5) // TODO keep",
    "    let k: i32 = 0x1F + 0b101 + 42",
    '    println("hi")',
    "}",
  })
  vim.bo[buf].filetype = "ea"
  results.scratch_clients = #clients_of(buf)
  check("scratch buffer not attached", results.scratch_clients == 0, results.scratch_clients)
  local function group_at(line, text, offset)
    local s = vim.api.nvim_buf_get_lines(buf, line - 1, line, false)[1]
    local col = assert(s:find(text, 1, true), text) + (offset or 0)
    return vim.fn.synIDattr(vim.fn.synID(line, col, 1), "name")
  end
  local expected = {
    { 1, "export", 0, "eaStorage" },
    { 1, "kernel", 0, "eaKernel" },
    { 1, "scale", 0, "eaFuncName" },
    { 1, "f32,", 0, "eaScalarType" },
    { 1, "out y", 0, "eaAnnotation" },
    { 1, "cap", 0, "eaAnnotation" },
    { 1, "over", 0, "eaKernelWord" },
    { 1, "step", 0, "eaKernelWord" },
    { 1, " 8 ", 1, "eaNumber" },
    { 1, "scalar", 0, "eaKernelWord" },
    { 2, "let", 0, "eaKeyword" },
    { 2, "f32x8", 0, "eaVectorType" },
    { 2, "load", 0, "eaIntrinsic" },
    { 2, ".*", 0, "eaDotOperator" },
    { 2, "splat", 0, "eaKeyword" },
    { 2, "2.5", 0, "eaFloat" },
    { 2, "// ", 0, "eaComment" },
    { 2, "TODO", 0, "eaTodo" },
    { 3, "0x1F", 2, "eaNumber" },
    { 3, "0b101", 0, "eaNumber" },
    { 3, "+", 0, "eaOperator" },
    { 3, "k", 0, "" }, -- a plain identifier
    { 4, "println", 0, "eaIntrinsic" },
    { 4, '"hi"', 1, "eaString" },
  }
  results.syntax = {}
  for _, e in ipairs(expected) do
    local got = group_at(e[1], e[2], e[3])
    results.syntax[#results.syntax + 1] = e[2] .. "=" .. got
    check("syntax " .. e[1] .. ":" .. e[2], got == e[4], "got '" .. got .. "', want '" .. e[4] .. "'")
  end
end

local function main()
  local eals = assert(os.getenv("EA_EALS"), "EA_EALS not set")
  local dir = assert(os.getenv("EA_DIR"), "EA_DIR not set")
  local v = vim.version()
  results.nvim = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  results.api = vim.lsp.start and "vim.lsp.start" or "vim.lsp.start_client"

  vim.cmd("filetype plugin on")
  vim.cmd("syntax on")
  require("ea").setup({ cmd = { eals }, debounce = 0, settings = { inlayHints = "off" } })

  syntax_checks()

  -- 1. Open a file with a known error: filetype, client, diagnostic.
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/bad.ea"))
  local bufnr = vim.api.nvim_get_current_buf()
  results.filetype = vim.bo[bufnr].filetype
  if not check("filetype", results.filetype == "ea", results.filetype) then
    return
  end
  -- The client is listed once its initialize handshake is done.
  vim.wait(10000, function()
    return #clients_of(bufnr) > 0
  end, 20)
  local clients = clients_of(bufnr)
  results.clients = #clients
  if not check("one client attached", #clients == 1, #clients) then
    return
  end
  local client = clients[1]
  results.client_name = client.name
  results.init_options = client.config.init_options
  results.debounce = client.config.flags.debounce_text_changes
  check("client name", client.name == "eals", client.name)
  check("init_options", ((client.config.init_options or {}).ea or {}).inlayHints == "off", vim.inspect(client.config.init_options))
  check("debounce", results.debounce == 0, results.debounce)

  local got = vim.wait(15000, function()
    return #vim.diagnostic.get(bufnr) > 0
  end, 20)
  local diags = vim.diagnostic.get(bufnr)
  results.diagnostics = {}
  for _, d in ipairs(diags) do
    results.diagnostics[#results.diagnostics + 1] = {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, message = d.message,
    }
  end
  if not check("diagnostic published", got, "no diagnostics within 15 s") then
    return
  end
  local d = diags[1]
  check("one diagnostic", #diags == 1, #diags)
  check("diagnostic position", d.lnum == 1 and d.col == 11 and d.end_lnum == 1 and d.end_col == 16,
    string.format("%d:%d-%d:%d", d.lnum, d.col, d.end_lnum, d.end_col))
  check("diagnostic severity", d.severity == vim.diagnostic.severity.ERROR, d.severity)
  check("diagnostic message", d.message == BAD_MESSAGE, d.message)

  -- 2. Fix it by editing the buffer: the diagnostics clear.
  vim.api.nvim_buf_set_lines(bufnr, 1, 2, false, { "    return a .+ b" })
  local cleared = vim.wait(15000, function()
    return #vim.diagnostic.get(bufnr) == 0
  end, 20)
  results.diagnostics_after_fix = #vim.diagnostic.get(bufnr)
  check("diagnostics cleared", cleared, results.diagnostics_after_fix)
  check("client alive after fix", not client:is_stopped(), "client stopped")

  -- 3. A second file in the same directory re-uses the client.
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/other.ea"))
  local other = vim.api.nvim_get_current_buf()
  local other_clients = clients_of(other)
  check("second buffer shares the client", #other_clients == 1 and other_clients[1].id == client.id,
    #other_clients)
  vim.cmd("buffer " .. bufnr)

  -- 4. Hover on the exported function's name: its instruction summary.
  local caps = client.server_capabilities or {}
  results.hover_provider = caps.hoverProvider and true or false
  local line = vim.api.nvim_buf_get_lines(bufnr, 0, 1, false)[1]
  local name_col = line:find("vadd", 1, true) - 1
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = 0, character = name_col + 1 },
  }
  local text, err = "", nil
  local deadline = uv.now() + 12000
  -- Without hoverProvider Neovim sends nothing: the checks below then fail.
  while results.hover_provider and text == "" and uv.now() < deadline do
    local replies, request_err = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 5000)
    err = request_err
    for _, reply in pairs(replies or {}) do
      if reply.error then
        err = reply.error.message or vim.inspect(reply.error)
      elseif reply.result and reply.result.contents then
        text = hover_text(reply.result.contents)
      end
    end
  end
  results.hover = text
  results.hover_error = err
  check("hover provider", results.hover_provider, "server does not advertise hoverProvider")
  check("hover names the function", text:find("vadd", 1, true) ~= nil, vim.inspect(text))
  check("hover shows the instruction summary", text:find("vector", 1, true) ~= nil,
    "hover text: " .. vim.inspect(text) .. ", error: " .. tostring(err))
end

S.run(results, main)
