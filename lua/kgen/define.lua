-- kgen/define.lua - what the command line gives a model (kgen --define
-- NAME=VALUE): a value, a weight file's header, a JSON file.
-- Needs: kgen/state.lua; kg_define, kg_weights_file, kg_json_file (kgen's
-- C, defines.h). Gives: kg.define, kg.weights_file, kg.json_file.
local S = require "kgen.state"
local kg, fail, check_name = S.kg, S.fail, S.check_name

--- define(name [, default]): the VALUE of `--define name=VALUE`, a string;
--- else `default`; else an error.
function kg.define(name, default)
  check_name("define", name)
  local v = kg_define(name)
  if v ~= nil then return v end
  if default ~= nil then return default end
  fail("define %s: not given (kgen --define %s=VALUE)", name, name)
end

-- What `read` (a reader kgen's C gives the library) makes of the file at
-- the path `--define name=PATH` gives: its value, or an error naming `what`.
local function kg_file_of(what, read, name)
  check_name(what, name)
  local value, why = read(name)
  if value == nil then
    if why == "not given" then
      fail("%s %s: not given (kgen --define %s=PATH)", what, name, name)
    end
    fail("%s %s: %s", what, name, why)
  end
  return value
end

--- weights_file(name): the header of the weight file at the path `--define
--- name=PATH` gives (GGUF, safetensors or a safetensors index), read and
--- checked by kgrt's reader: { format = "gguf" | "safetensors", meta = {
--- key = number | string | boolean } (GGUF's scalar keys; arrays left out),
--- tensors = { [file name] = { dtype = "q4_0", shape = { rows, cols } } } }
--- (shapes row-major, innermost last). A model opens only files the command
--- line names.
function kg.weights_file(name) return kg_file_of("weights_file", kg_weights_file, name) end

--- json_file(name): the value of the JSON file at the path `--define
--- name=PATH` gives (a Hugging Face config.json), read by kgen's strict
--- reader (gen/json.h): objects as tables, arrays as sequences, whole
--- numbers as integers, null members absent. At most 1 MiB, 64 levels deep.
function kg.json_file(name) return kg_file_of("json_file", kg_json_file, name) end
