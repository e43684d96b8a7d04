-- bench: embedding gather of 4096 rows from a 128256 x 4096 bf16 table.
local tab = input("tab", bf16, { 128256, 4096 })
local ids = input("ids", i32, { 4096 })
output("y", embedding(tab, ids))
