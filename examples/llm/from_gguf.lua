-- from_gguf.lua - the Llama-family model of a GGUF file, its config read
-- from the file's own header (llama.gguf_config):
--   kgen --arch gfx1100 --define weights=model.gguf examples/llm/from_gguf.lua -o out
-- and, optionally, --define context=N (default: the file's), max_tokens=N
-- (default 512, at most the context), dtype=f16|bf16|f32 (default bf16).
local llama = require "models.llama"
local info = weights_file("weights")
local context = info.meta[tostring(info.meta["general.architecture"]) .. ".context_length"]
llama(llama.gguf_config(info, llama.extra_from_defines(context)))
