-- What the headless Neovim check scripts share: the results table with its
-- checks, the buffer's LSP clients (0.7 to 0.11), hover contents as text, and
-- the run itself (results written as JSON to EA_RESULT; exit 0 when every
-- check passed, 1 on a failed check, 2 on a Lua error).
-- Load: local S = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lsp_support.lua")

local M = {}

function M.results(extra)
  local results = { checks = {}, failures = {} }
  for k, v in pairs(extra or {}) do
    results[k] = v
  end
  return results
end

function M.checker(results)
  return function(name, ok, detail)
    results.checks[#results.checks + 1] = name
    if not ok then
      results.failures[#results.failures + 1] = name .. ": " .. tostring(detail)
    end
    return ok
  end
end

function M.clients_of(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr })
  end
  local list = {}
  for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
    list[#list + 1] = client
  end
  return list
end

function M.hover_text(contents)
  if type(contents) == "string" then
    return contents
  elseif type(contents) == "table" then
    if contents.value then
      return contents.value
    end
    local parts = {}
    for _, item in ipairs(contents) do
      parts[#parts + 1] = M.hover_text(item)
    end
    return table.concat(parts, "\n")
  end
  return ""
end

function M.run(results, main)
  local result_path = assert(os.getenv("EA_RESULT"), "EA_RESULT not set")
  local ok, lua_err = pcall(main)
  if not ok then
    results.lua_error = tostring(lua_err)
  end
  local f = assert(io.open(result_path, "w"))
  f:write(vim.fn.json_encode(results))
  f:close()
  if not ok then
    vim.cmd("cquit 2")
  elseif #results.failures > 0 then
    vim.cmd("cquit 1")
  else
    vim.cmd("qall!")
  end
end

return M
