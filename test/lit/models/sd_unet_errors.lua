-- models.sd_unet: a bad config is one line at the model's line naming the key
-- (each RUN picks one config; nothing is written).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 --define bad=heads %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s --check-prefix=HEADS < %t.log
-- RUN: timeout 5 %kgen --arch gfx1100 --define bad=attention %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: FileCheck %s --check-prefix=ATTN < %t.log
-- RUN: timeout 5 %kgen --arch gfx1100 --define bad=size %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: FileCheck %s --check-prefix=SIZE < %t.log
-- RUN: timeout 5 %kgen --arch gfx1100 --define bad=both %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: FileCheck %s --check-prefix=BOTH < %t.log
local unet = require "models.sd_unet"
local configs = {
  heads = { blocks = { 32, 64 }, groups = 8, heads = 3 },
  attention = { blocks = { 32, 64 }, groups = 8, attention = { true } },
  size = { blocks = { 32, 64, 64 }, groups = 8, height = 6 },
  both = { heads = 8, head_dim = 64 },
}
-- HEADS: sd_unet_errors.lua:[[@LINE+4]]: error: models.sd_unet: config blocks[1] = 32 channels do not split into 3 heads
-- ATTN: sd_unet_errors.lua:[[@LINE+3]]: error: models.sd_unet: config attention has 1 entries, blocks 2
-- SIZE: sd_unet_errors.lua:[[@LINE+2]]: error: models.sd_unet: config height 6 and width 64 must be multiples of 4 (the levels halve them)
-- BOTH: sd_unet_errors.lua:[[@LINE+1]]: error: models.sd_unet: config gives heads and head_dim: give one
unet(configs[define("bad")])
