#!/usr/bin/env python3
"""emu_peer.py - the emu device's peer (runtime/kgrt_emu_peer.c) on tinygrad's
RDNA3/CDNA emulator: runs each launch of kgen's real code objects on
test/mockgpu/amd/emu.py of a tinygrad checkout, for bench/results/emu_proof.md.

  KGRT_EMU_PEER="python3 bench/emu_peer.py" TINYGRAD_DIR=/path/to/tinygrad \
    build-emu/examples/blocks_demo emu:gfx1100 77

tinygrad is not part of kgen: fetch it yourself (see emu_proof.md). The
protocol (one line each way): `map PID FD BASE SIZE ARCH` maps the device's
memory at the same address; `run ENTRY GRID BLOCK KERNARG RSRC2 LDS SCRATCH
WAVE N U...` runs a 1-D grid and answers `ok INSTRUCTIONS` or `err MESSAGE`.
Waves of a workgroup run in turn, each until a barrier or its end, as
tinygrad's own run_asm does; this loop counts the wave-instructions."""
import ctypes
import os
import sys

sys.path.insert(0, os.environ.get("TINYGRAD_DIR", ".peers/tinygrad"))
from test.mockgpu.amd import emu  # noqa: E402
from tinygrad.device import Buffer  # noqa: E402
from tinygrad.dtype import dtypes  # noqa: E402

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
PROT_RW, MAP_SHARED, MAP_FIXED_NOREPLACE = 3, 1, 0x100000
MAX_WAVE_INSTS = 200_000_000
# Cache-control instructions (MUBUF encoding, no operands) that tinygrad's
# decoder does not know; with one coherent memory they do nothing: per arch,
# the opcodes (bits 25:18) of buffer_gl0_inv, buffer_gl1_inv (gfx11) and
# buffer_wbl2, buffer_inv (gfx942).
CACHE_OPS = {"rdna3": {0x2B, 0x2C}, "cdna": {0x28, 0x29}}


def do_map(pid, fd, base, size, arch):
    f = os.open(f"/proc/{pid}/fd/{fd}", os.O_RDWR)
    got = libc.mmap(base, size, PROT_RW, MAP_SHARED | MAP_FIXED_NOREPLACE, f, 0)
    os.close(f)
    if got != base:
        raise RuntimeError(f"cannot map the device memory at {base:#x} (got {got})")
    return "cdna" if arch.startswith("gfx9") else "rdna3"


def do_run(arch, entry, grid, block, kernarg, rsrc2, lds, scratch, wave, user):
    lds_buf = Buffer("CPU", max(lds // 4, 1), dtypes.uint32).ensure_allocated()
    scratch_buf = (Buffer("CPU", scratch * wave * ((block + wave - 1) // wave), dtypes.uint8)
                   .ensure_allocated() if scratch else None)
    zero = ctypes.c_uint64(0)
    insts = 0
    program = {}
    with emu._MXCSRContext():
        for gid in range(grid):
            if lds:
                ctypes.memset(lds_buf._buf.va_addr, 0, max(lds, 4))
            waves = []
            for start in range(0, block, wave):
                st = emu._init_wave(entry, start, block, block, 1, 1, kernarg, rsrc2, scratch,
                                    arch, gid, 0, 0, user, wave)
                sbase = scratch_buf._buf.va_addr + start * scratch if scratch_buf else 0
                waves.append((st, [ctypes.c_uint64(st.sgpr_buf._buf.va_addr),
                                   ctypes.c_uint64(st.vgpr_buf._buf.va_addr), zero,
                                   ctypes.c_uint64(lds_buf._buf.va_addr),
                                   ctypes.c_uint64(sbase),
                                   ctypes.c_uint64(st.accvgpr_buf._buf.va_addr)]))
            done = [False] * len(waves)
            while not all(done):
                progressed = False
                for wi, (st, bufs) in enumerate(waves):
                    while not done[wi]:
                        pc = st.pc
                        if pc == emu.ENDPGM_PC:
                            done[wi] = True
                            break
                        if pc not in program:
                            word = ctypes.c_uint32.from_address(pc).value
                            if word >> 26 == 0x38 and (word >> 18) & 0xFF in CACHE_OPS[arch]:
                                program[pc] = (None, None, False)
                            else:
                                (prg, runtime), inst = emu._decode_at(pc, arch)
                                is_barrier = "S_BARRIER" in emu._op_name(inst).upper()
                                program[pc] = (runtime.fxn, prg.arg.globals, is_barrier)
                        fxn, globs, is_barrier = program[pc]
                        if fxn is None:
                            st.pc = pc + 8
                        else:
                            fxn(*[bufs[g] for g in globs])
                        insts += 1
                        progressed = True
                        if insts > MAX_WAVE_INSTS:
                            raise RuntimeError(f"over {MAX_WAVE_INSTS} wave-instructions")
                        if is_barrier:
                            break
                if not progressed and not all(done):
                    raise RuntimeError("no wave can make progress")
    return insts


def main():
    arch = None
    for line in sys.stdin:
        f = line.split()
        try:
            if f[0] == "map":
                arch = do_map(int(f[1]), int(f[2]), int(f[3]), int(f[4]), f[5])
                print("ok", flush=True)
            elif f[0] == "run":
                v = [int(x) for x in f[1:]]
                n = v[8]
                insts = do_run(arch, *v[:8], v[9:9 + n] if n else None)
                print(f"ok {insts}", flush=True)
            else:
                print(f"err unknown request {f[0]}", flush=True)
        except Exception as e:  # the device reports it, naming the kernel
            msg = f"{type(e).__name__}: {e}".replace("\n", " ")[:900]
            print(f"err tinygrad emu: {msg}", flush=True)


if __name__ == "__main__":
    main()
