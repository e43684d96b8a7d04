"""wait_audit.py - on the GPU machine: which kernels of a cubin load from
global memory before their early-launch wait.

    cuobjdump -sass model_sm_90a.cubin > model.sass
    python3 bench/probes/wait_audit.py model.sass

An early-launched kernel (templates/common.hip) may read only weights before
kg_dep_wait() (griddepcontrol.wait, ACQBULK in the SASS). ptxas treats
ld.global.nc (a const __restrict__ pointer's loads) as reading memory no
kernel writes and may schedule it above ACQBULK; such a load of an
activation then reads what the kernel before has not written yet. Counts,
per function that has the wait, its LDG instructions ahead of it (LDGSTS,
the asynchronous copies of weights, are not LDG) and prints those with any;
exit status 1 if one has. A listed function needs reading, not a fix: a
load of a weight may come first (gemv_q.hip copies a stage of Q6_K's
210-byte blocks in 2-byte pieces, with plain loads before the wait: the
Q4_K test Llama's three Q6_K GEMVs list 24-48 each)."""
import re
import sys

fn, seen_wait = None, False
hits, has_wait = {}, {}
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        fn, seen_wait = m.group(1), False
        hits[fn], has_wait[fn] = 0, False
        continue
    if fn is None:
        continue
    if "ACQBULK" in line:
        seen_wait = has_wait[fn] = True
    elif re.search(r"\bLDG\.", line) and not seen_wait:
        hits[fn] += 1
bad = [f for f in hits if has_wait[f] and hits[f]]
for f in bad:
    print("%4d LDG before the wait: %s" % (hits[f], f))
print("functions with the wait: %d, with loads ahead of it: %d" % (sum(has_wait.values()), len(bad)))
sys.exit(1 if bad else 0)
