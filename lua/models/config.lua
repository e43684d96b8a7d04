-- models/config.lua: what the model libraries' configs share (models.clip,
-- models.sd_unet, models.sd_vae): errors that name the library, a config
-- that must be a table of known keys, and checked numbers.
--
--   local K = require("models.config")("models.clip")
--   K.table(cfg, { "vocab", "hidden" })     -- a table, no other keys
--   local n = K.int(cfg, "vocab", 49408)    -- an integer >= 1, or the default
--   local e = K.positive(cfg, "eps", 1e-5)  -- a number > 0, or the default
--   K.fail("config %s ...", ...)            -- "models.clip: config ..."
return function(name)
  local K = {}

  function K.fail(fmt, ...)
    error(string.format(name .. ": " .. fmt, ...), 0)
  end

  function K.table(cfg, keys)
    if type(cfg) ~= "table" then K.fail("the config must be a table") end
    local known = {}
    for _, key in ipairs(keys) do known[key] = true end
    for key in pairs(cfg) do
      if not known[key] then K.fail("unknown config key %s", tostring(key)) end
    end
  end

  function K.int(cfg, key, default)
    local v = cfg[key]
    if v == nil then return default end
    if math.type(v) ~= "integer" or v < 1 then
      K.fail("config %s must be an integer >= 1, got %s", key, tostring(v))
    end
    return v
  end

  function K.positive(cfg, key, default)
    local v = cfg[key]
    if v == nil then return default end
    if type(v) ~= "number" or not (v > 0) or v == math.huge then
      K.fail("config %s must be a number > 0, got %s", key, tostring(v))
    end
    return v
  end

  return K
end
