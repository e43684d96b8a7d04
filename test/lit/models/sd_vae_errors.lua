-- models.sd_vae: a bad config is one line at the model's line naming the key
-- (each RUN picks one config; nothing is written).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 --define bad=groups %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s --check-prefix=GROUPS < %t.log
-- RUN: timeout 5 %kgen --arch gfx1100 --define bad=blocks %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: FileCheck %s --check-prefix=BLOCKS < %t.log
-- RUN: timeout 5 %kgen --arch gfx1100 --define bad=scaled %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: FileCheck %s --check-prefix=SCALED < %t.log
-- RUN: timeout 5 %kgen --arch gfx1100 --define bad=key %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: FileCheck %s --check-prefix=KEY < %t.log
local vae = require "models.sd_vae"
local configs = {
  groups = { blocks = { 16, 40 }, groups = 16 },
  blocks = { blocks = {} },
  scaled = { scaled = 1 },
  key = { channels = 4 },
}
-- GROUPS: sd_vae_errors.lua:[[@LINE+4]]: error: models.sd_vae: config blocks[2] = 40 must be a positive multiple of groups 16
-- BLOCKS: sd_vae_errors.lua:[[@LINE+3]]: error: models.sd_vae: config blocks must be a non-empty list of channel counts, got an empty list
-- SCALED: sd_vae_errors.lua:[[@LINE+2]]: error: models.sd_vae: config scaled must be true or false, got 1
-- KEY: sd_vae_errors.lua:[[@LINE+1]]: error: models.sd_vae: unknown config key channels
vae(configs[define("bad")])
