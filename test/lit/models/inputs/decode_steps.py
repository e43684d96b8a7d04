"""The kernels a plan launches for one token (T = 1, the decode step): each
step of a table (kgen --emit=table) whose select range holds 1, or that runs
always, printed one kernel name a line in plan order."""
import re
import sys

text = open(sys.argv[1]).read()
names = re.findall(r'^\s*\{"([A-Za-z0-9_]+)", ', text.split("kgrt_kernel_t kernels[")[1].split("};")[0], re.M)
steps = text.split("kgrt_step_t steps[")[1].split("};")[0]
for m in re.finditer(r'\{(\d+), \{\d+, \{[-0-9, ]+\}\}, \d+, \d+, \{(\d+), \{[-0-9, ]+\}\}, (-?\d+)LL, (-?\d+)LL,', steps):
    k, scale, lo, hi = int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4))
    if scale == 0 or lo <= 1 <= hi:
        print(names[k])
