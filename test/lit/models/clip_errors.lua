-- models.clip: a bad config is one line at the model's line naming the key
-- (each RUN picks one config; nothing is written).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 --define bad=heads %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s --check-prefix=HEADS < %t.log
-- RUN: timeout 5 %kgen --arch gfx1100 --define bad=act %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: FileCheck %s --check-prefix=ACT < %t.log
-- RUN: timeout 5 %kgen --arch gfx1100 --define bad=skip %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: FileCheck %s --check-prefix=SKIP < %t.log
-- RUN: timeout 5 %kgen --arch gfx1100 --define bad=key %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: FileCheck %s --check-prefix=KEY < %t.log
local clip = require "models.clip"
local configs = {
  heads = { hidden = 64, heads = 5 },
  act = { act = "relu" },
  skip = { layers = 2, skip = 2 },
  key = { hidden = 64, head = 4 },
}
-- HEADS: clip_errors.lua:[[@LINE+4]]: error: models.clip: config hidden 64 is not a multiple of heads 5
-- ACT: clip_errors.lua:[[@LINE+3]]: error: models.clip: config act must be "quick_gelu" or "gelu", got relu
-- SKIP: clip_errors.lua:[[@LINE+2]]: error: models.clip: config skip (final layers left out) must be an integer 0 .. layers - 1, got 2
-- KEY: clip_errors.lua:[[@LINE+1]]: error: models.clip: unknown config key head
clip(configs[define("bad")])
