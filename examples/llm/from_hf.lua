-- from_hf.lua - the Llama-family model of a Hugging Face checkpoint (model_type
-- llama, mistral or qwen2), its config read from its config.json and the
-- header of its safetensors file (llama.hf_config):
--   kgen --arch gfx1100 --define config=config.json \
--        --define weights=model.safetensors examples/llm/from_hf.lua -o out
-- (a sharded checkpoint: --define weights=model.safetensors.index.json) and,
-- optionally, --define context=N (default: max_position_embeddings),
-- max_tokens=N (default 512, at most the context), dtype=f16|bf16|f32
-- (default: torch_dtype's, else bf16).
local llama = require "models.llama"
local config = json_file("config")
llama(llama.hf_config(config, weights_file("weights"),
  llama.extra_from_defines(config.max_position_embeddings)))
