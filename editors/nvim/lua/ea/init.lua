-- Eä language support for Neovim: starts the `eals` language server for
-- buffers of filetype `ea` and attaches them to it.
--
--   require("ea").setup({
--     cmd = { "eals" },                    -- the server command (stdio)
--     settings = { target_cpu = "native", avx512 = false, inlayHints = "functions" },
--     debounce = 150,                      -- ms between edits and didChange
--   })
--
-- Neovim >= 0.8 uses vim.lsp.start() (it re-uses a client per root
-- directory); Neovim 0.7 has no vim.lsp.start(), so one client per root
-- directory is started with vim.lsp.start_client() and every `ea` buffer is
-- attached to it with vim.lsp.buf_attach_client().

local M = {}

M.defaults = {
  name = "eals",
  cmd = { "eals" },
  cmd_env = nil,
  filetypes = { "ea" },
  -- Sent as initializationOptions `{ea = settings}` (and as `settings`).
  settings = {},
  -- flags.debounce_text_changes, in milliseconds (0: every edit at once).
  debounce = 150,
  -- Extra client flags, merged over {debounce_text_changes = debounce}.
  flags = {},
  -- The first ancestor directory holding one of these is the root; a file
  -- outside any project gets its own directory.
  root_markers = { ".git", "pyproject.toml" },
  -- A string, or function(bufnr) -> string, instead of root_markers.
  root_dir = nil,
  capabilities = nil,
  on_attach = nil,
}

M.options = nil

-- Neovim 0.7 only: client id per root directory.
local legacy_clients = {}

local function has_start()
  return type(vim.lsp.start) == "function"
end

local uv = vim.uv or vim.loop

local function is_dir_or_file(path)
  return uv.fs_stat(path) ~= nil
end

local function find_root(bufnr, markers)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir
  if name == "" then
    dir = uv.cwd()
  else
    dir = vim.fn.fnamemodify(name, ":p:h")
  end
  local current = dir
  while current and current ~= "" do
    for _, marker in ipairs(markers) do
      if is_dir_or_file(current .. "/" .. marker) then
        return current
      end
    end
    local parent = vim.fn.fnamemodify(current, ":h")
    if parent == current then
      break
    end
    current = parent
  end
  return dir
end

local function root_for(bufnr, opts)
  if type(opts.root_dir) == "function" then
    return opts.root_dir(bufnr)
  elseif type(opts.root_dir) == "string" then
    return opts.root_dir
  end
  return find_root(bufnr, opts.root_markers)
end

-- The settings table, JSON-encoded as an object even when empty.
local function as_object(tbl)
  if tbl == nil or next(tbl) == nil then
    return vim.empty_dict()
  end
  return tbl
end

--- The client configuration for `bufnr` (what vim.lsp.start/start_client get).
function M.client_config(bufnr, opts)
  opts = opts or M.options or M.defaults
  local settings = as_object(opts.settings)
  return {
    name = opts.name,
    cmd = opts.cmd,
    cmd_env = opts.cmd_env,
    root_dir = root_for(bufnr, opts),
    init_options = { ea = settings },
    settings = { ea = settings },
    flags = vim.tbl_extend("force", { debounce_text_changes = opts.debounce }, opts.flags or {}),
    capabilities = opts.capabilities,
    on_attach = opts.on_attach,
  }
end

local function legacy_attach(bufnr, config)
  local id = legacy_clients[config.root_dir]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client:is_stopped() then
    id = vim.lsp.start_client(config)
    if not id then
      return nil
    end
    legacy_clients[config.root_dir] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- Starts (or re-uses) the server for `bufnr` and attaches the buffer.
--- Returns the client id, or nil when the buffer is not a file buffer.
function M.attach(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  if not M.options then
    M.setup()
  end
  if vim.bo[bufnr].buftype ~= "" then
    return nil -- help, nofile, terminal, prompt...: nothing to analyse
  end
  local config = M.client_config(bufnr, M.options)
  if has_start() then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  return legacy_attach(bufnr, config)
end

function M.setup(user)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), user or {})
  if user and user.cmd then
    M.options.cmd = user.cmd -- a list: replace, never merge element-wise
  end
  if user and user.root_markers then
    M.options.root_markers = user.root_markers
  end
  if vim.filetype and vim.filetype.add then
    vim.filetype.add({ extension = { ea = "ea" } })
  end

  local group = vim.api.nvim_create_augroup("ea_lsp", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.options.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
    desc = "Eä: start eals and attach the buffer",
  })

  -- Buffers that already have the filetype (setup() called late).
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr)
      and vim.tbl_contains(M.options.filetypes, vim.bo[bufnr].filetype) then
      M.attach(bufnr)
    end
  end
  return M.options
end

return M
