-- from_gguf.lua - the Llama-family model of a GGUF file, its config read
-- from the file's own header (llama.gguf_config):
--   kgen --arch gfx1100 --define weights=model.gguf examples/llm/from_gguf.lua -o out
-- and, optionally, --define context=N (default: the file's), max_tokens=N
-- (default 512, at most the context), dtype=f16|bf16|f32 (default bf16).
local llama = require "models.llama"

-- define(name) as a whole number, or nil when not given
local function count(name)
  local v = define(name, "")
  if v == "" then return nil end
  local n = math.tointeger(tonumber(v))
  if n == nil then error(string.format("--define %s=%s: expected a whole number", name, v), 2) end
  return n
end

local dtypes = { f16 = f16, bf16 = bf16, f32 = f32 }
local dtype = dtypes[define("dtype", "bf16")]
if dtype == nil then error("--define dtype: expected f16, bf16 or f32", 0) end
local info = weights_file("weights")
local extra = { dtype = dtype, context = count("context"), max_tokens = count("max_tokens") }
if extra.max_tokens == nil then
  local context = extra.context or info.meta[info.meta["general.architecture"] .. ".context_length"]
  extra.max_tokens = math.min(512, context or 512)
end
llama(llama.gguf_config(info, extra))
