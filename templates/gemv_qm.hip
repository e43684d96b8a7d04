/* gemv_qm: y[m, n] = sum_k x[m, k] * w[n, k] for the M <= MMAX <= 8 rows of x
 * (M given at run time, x f16 or bf16: {{T}}), w [N, K] in GGUF Q4_0 blocks
 * (an f16 scale d, then 16 bytes qs: weight j < 16 is the low nibble of
 * qs[j] minus 8, weight j + 16 its high nibble minus 8), row n the RB = K /
 * 32 * 18 bytes of its blocks (w comes as 16-bit units; offsets below are
 * bytes). gemv_q's kernel on targets with mma.sync m16n8k16 in x's dtype
 * (gemv_q's params: source); the multiplies run on the tensor cores, f32
 * sums; w is read once per launch.
 * A task is 16 rows n0 .. n0 + 15 of w for one workgroup; row chunk c is
 * blocks 8c .. 8c + 7 (144 bytes, 16-byte aligned as K % 256 == 0). The task
 * is walked in SPT steps of CPS chunks of every row; in a step, wave v takes
 * chunks v, v + WAVES, ... The GRID workgroups (at most what the target
 * holds at once: they stay resident and stage x once) take tasks
 * blockIdx.x, blockIdx.x + GRID, ... Steps, task after task, stream through
 * the workgroup's ring of SLOTS slots in LDS, SLOTS - 1 ahead of the one
 * computed: wave v copies rows v, v + WAVES, ... of a step with 16-byte
 * asynchronous copies (each copy instruction of the wave reads 512
 * consecutive bytes of a row), into rows RS bytes apart; one barrier per
 * step publishes the step and frees the slot computed before it.
 * A block of 16 rows is two m16n8k16 products: lane l (g = l / 4, t = l % 4)
 * holds A rows g and g + 8, the qs bytes 4t .. 4t + 3 of each (rows RS
 * bytes apart, RS / 4 = 4 mod 8: the 32 lanes read 32 banks), decoded to four
 * registers of two elements (kg_q4_0_mma_words: nibble | MAGIC, exactly
 * the integer plus QOFF, no int-to-float conversion); B column g is x row g
 * (row 0 again for g >= M, whose C columns are never stored), staged in LDS
 * in the same order, 16 bytes per lane and block; C starts at -QOFF times
 * the block's sum of x (staged beside it), so C is the block's sum of x
 * times the integers; acc += d * C in f32.
 * At a task's end the waves' partial sums go through LDS (two buffers, by
 * task parity) and are added in wave order after the next step's barrier:
 * no atomics, the same bits every run.
 * XW (x does not fit the LDS whole: a down projection's K = 14336 at 8
 * rows): the walk is step-major instead, step s of each of the workgroup's
 * JT <= JTMAX tasks in turn, each task its own accumulators, and x lives in
 * two windows of a step's NBW blocks, window s + 1 staged by the first
 * slot of step s (the next barrier publishes it; its buffer held window
 * s - 1, which every wave is done with). A wave adds a task's chunks in the
 * same order either way, so the sums are the same bits.
 * The weights do not depend on earlier kernels: the first SLOTS - 1 steps'
 * copies are issued before kg_dep_wait(), and x and the epilogue's operands
 * are read after it (common.hip, early launch); kg_dep_launch() first lets
 * the next kernel start as soon as every workgroup of this one has started.
 * A row past N (a guard for N % 16 != 0) is read as row N - 1, not stored.
 * Epilogue: the stored value is EPI over acc0 (the sum), acc1 (PAIR: the
 * same sum over a second weight w1 of w's shape, for a gate/up pair: a
 * task's rows are then 8 columns' rows of w and w1 in turn) and the
 * operands e<k> read at the result's index (a<k> in EPI), rounded to OUT_T. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{T}}) x, KG_GLOBAL(const unsigned short) w,{{#if PAIR}} KG_GLOBAL(const unsigned short) w1,{{/if}}{{> epi_args}}, long M) {
  static_assert({{WAVE}} == 32, "gemv_qm: mma.sync takes warps of 32 lanes");
  constexpr int WAVES = {{BLOCK}} / 32;
  /* blocks and chunks per row; chunks per step, steps per task, chunks of a
   * step per wave; a task's last step has LAST chunks */
  constexpr int NB = {{K}} / 32;
  constexpr int NCH = NB / 8;
  constexpr int CPS = {{CPS}};
  constexpr int SPT = (NCH + CPS - 1) / CPS;
  constexpr int LAST = NCH - (SPT - 1) * CPS;
  constexpr int CPW = (CPS + WAVES - 1) / WAVES;
  /* a slot: the 16 rows of a step, RS bytes apart (RS / 4 words = 4 mod 8:
   * the 8 rows of a quarter wave's reads fall in different banks) */
  constexpr int RS = CPS * 144 + (CPS % 2 == 0 ? 16 : 0);
  constexpr int SLOT = 16 * RS;
  /* a task's 16 rows are CT columns of PR rows each (PAIR: row n of w, then
   * of w1) */
  constexpr int PR = {{#if PAIR}}2{{else}}1{{/if}};
  constexpr int CT = 16 / PR;
  constexpr long TASKS = ({{N}} + CT - 1) / CT;
  constexpr int SLOTS = {{SLOTS}};
  /* x row m, block b at byte m XR + 64 b (lane t's 16 bytes at + 16 t),
   * rows 64 bytes apart in banks; lane t's C start for block b at float 16 b
   * + 4 t: x rows 2t, 2t + 1, 2t, 2t + 1, C's order */
  constexpr int XR = NB * 64 + 64;
{{#if XW}}  /* XW: a window is NBW blocks of each row, rows XRW bytes apart */
  constexpr int NBW = CPS * 8, XRW = NBW * 64 + 64;
{{/if}}
  /* the LDS: the ring, x, the C starts, two buffers of partial sums */
  KG_SHARED_BUFFER(lds, {{SHARED_BYTES}});
  kg_dep_launch();
  const int wave = (int)(threadIdx.x / 32u), lane = (int)(threadIdx.x % 32u);
  const int g = lane / 4, t = lane % 4;
  const int J = (long)blockIdx.x < TASKS ? (int)((TASKS - 1 - blockIdx.x) / {{GRID}} + 1) * SPT : 0;
  unsigned char *xs = lds + SLOTS * SLOT;
{{#if XW}}  float *cs = (float *)(xs + 2 * {{MMAX}} * XRW);
  const int JT = J / SPT; /* this workgroup's tasks */
{{else}}  float *cs = (float *)(xs + {{MMAX}} * XR);
{{/if}}
  float *part = cs + NB * 16;

  /* step j (chunks s CPS .. of the 16 rows of task j / SPT, s = j % SPT) into
   * slot j % SLOTS: NC chunks of each row, 9 NC pieces of 16 bytes; wave v
   * copies rows v, v + WAVES, ..., its lanes taking consecutive pieces */
  const auto copy = [&](const int nc, int j) { /* nc: a constant at each (inlined) call */
{{#if XW}}    const long n0 = ((long)blockIdx.x + (long)(j % JT) * {{GRID}}) * CT;
    const long st = j / JT;
{{else}}    const long n0 = ((long)blockIdx.x + (long)(j / SPT) * {{GRID}}) * CT;
    const long st = j % SPT;
{{/if}}    unsigned char *slot = lds + j % SLOTS * SLOT;
#pragma unroll
    for (int r = wave; r < 16; r += WAVES) {
      const long n = n0 + r / PR < {{N}} ? n0 + r / PR : {{N}} - 1;
      const auto wsel = {{#if PAIR}}r % 2 ? w1 : {{/if}}w;
      const long h = n * ({{RB}}L / 2) + st * CPS * 72 + 8 * lane; /* 16-bit units */
      unsigned short *d = (unsigned short *)(slot + r * RS + 16 * lane);
#pragma unroll
      for (int q = 0; q < (9 * CPS + 31) / 32; ++q)
        if (lane + 32 * q < 9 * nc)
          kg_async_copy<8>(d + 256 * q, wsel, h + 256 * q, true);
    }
  };
  const auto issue = [&](int j) {
    if (j < J) {
      if ({{#if XW}}j / JT{{else}}j % SPT{{/if}} == SPT - 1)
        copy(LAST, j);
      else
        copy(CPS, j);
    }
    kg_async_commit();
  };
  /* the ring's first steps: the weights do not depend on earlier kernels */
  for (int j = 0; j < SLOTS - 1; ++j)
    issue(j);
  kg_dep_wait();
  /* x: blocks b0 .. b0 + nb - 1 of each row (rows rs bytes apart from dst),
   * a block (m, b) per thread and turn: lane t's elements 4t + {0, 2, 16,
   * 18, 1, 3, 17, 19} (kg_q4_0_mma_words' order), and the C start -QOFF *
   * sum; rows m >= M start at 0 (never stored); the next barrier publishes
   * them */
  const auto stage_x = [&](const int b0, const int nb, unsigned char *dst, const int rs) {
    for (int it = (int)threadIdx.x; it < 8 * nb; it += {{BLOCK}}) {
      const int m = it / nb, bl = it % nb, b = b0 + bl;
      float sum = 0.0f;
      if (m < M && m < {{MMAX}}) {
        {{T}} v[32];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const kg_vec<{{T}}, 8> xv = kg_ldv<8>(x, m * {{K}}L + b * 32 + i * 8);
#pragma unroll
          for (int e = 0; e < 8; ++e) {
            v[8 * i + e] = xv.v[e];
            sum += kg_to_f32(xv.v[e]);
          }
        }
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          kg_vec<{{T}}, 8> f;
          f.v[0] = v[4 * q];
          f.v[1] = v[4 * q + 2];
          f.v[2] = v[4 * q + 16];
          f.v[3] = v[4 * q + 18];
          f.v[4] = v[4 * q + 1];
          f.v[5] = v[4 * q + 3];
          f.v[6] = v[4 * q + 17];
          f.v[7] = v[4 * q + 19];
          *(kg_vec<{{T}}, 8> *)(dst + m * rs + 64 * bl + 16 * q) = f;
        }
      }
      cs[16 * b + 4 * (m / 2) + m % 2] = -{{QOFF}} * sum;
      cs[16 * b + 4 * (m / 2) + m % 2 + 2] = -{{QOFF}} * sum;
    }
  };
{{#if XW}}  /* window s into buffer s % 2 */
  const auto stage = [&](const int s) {
    stage_x(s * NBW, NB - s * NBW < NBW ? NB - s * NBW : NBW, xs + s % 2 * {{MMAX}} * XRW, XRW);
  };
  stage(0);
{{else}}  stage_x(0, NB, xs, XR);
{{/if}}
  /* task u's sums: C element e of lane l is row g + 8 (e / 2), column (x
   * row) 2t + e % 2; the waves' partial sums added in wave order (sums[i]:
   * column c's row i, of w and of w1) */
  const auto store = [&](int u) {
    const float *p = part + u % 2 * WAVES * 128;
    const long n0 = ((long)blockIdx.x + (long)u * {{GRID}}) * CT;
    for (int o = (int)threadIdx.x; o < CT * {{MMAX}}; o += {{BLOCK}}) {
      const int c = o % CT, m = o / CT;
      if (m < M && n0 + c < {{N}}) {
        float sums[PR];
#pragma unroll
        for (int i = 0; i < PR; ++i) {
          const int r = c * PR + i;
          const int l = r % 8 * 4 + m / 2, e = r / 8 * 2 + m % 2;
          sums[i] = 0.0f;
          for (int v = 0; v < WAVES; ++v)
            sums[i] += p[(v * 4 + e) * 32 + l];
        }
        const float acc0 = sums[0];
{{#if PAIR}}        const float acc1 = sums[1];
{{/if}}        const long idx = m * {{N}}L + n0 + c;
        {{> epi_store}}
      }
    }
  };

  /* slot j, step s of the workgroup's task u: its copies landed (this
   * thread's, then everyone's), every wave done with the slot before, whose
   * task's sums are stored if it ended there (pend: task pu); the next
   * copies issued; then the multiplies, into acc */
{{#if XW}}  const int xrow = g < M ? g : 0;
{{else}}  const unsigned char *xl = xs + (g < M ? g : 0) * XR + 16 * t;
{{/if}}  const auto slot = [&](const int j, const int s, const int u, const bool pend, const int pu,
                        float *acc) {
    kg_async_wait<SLOTS - 2>();
    __syncthreads();
    if (pend)
      store(pu);
    issue(j + SLOTS - 1);
{{#if XW}}    if (u == 0 && s + 1 < SPT)
      stage(s + 1);
    const unsigned char *xl = xs + (s % 2 * {{MMAX}} + xrow) * XRW + 16 * t;
    const int xb0 = s * NBW; /* the window's first block */
{{else}}    const int xb0 = 0;
{{/if}}#pragma unroll
    for (int i = 0; i < CPW; ++i) {
      const int c = wave + i * WAVES; /* the chunk in the step */
      if (c < (s == SPT - 1 ? LAST : CPS)) { /* the same for the whole wave, as mma.sync needs */
        const unsigned *s0 = (const unsigned *)(lds + j % SLOTS * SLOT + g * RS + c * 144) + t;
        const unsigned *s1 = s0 + 8 * RS / 4;
        const int b0 = (s * CPS + c) * 8;
#pragma unroll
        for (int b = 0; b < 8; ++b) {
          const kg_vec<unsigned, 4> xb = *(const kg_vec<unsigned, 4> *)(xl + 64 * (b0 - xb0 + b));
          const kg_vec<float, 4> c0 = *(const kg_vec<float, 4> *)(cs + 16 * (b0 + b) + 4 * t);
          float cc[4] = {c0.v[0], c0.v[1], c0.v[2], c0.v[3]};
          unsigned q0[1], q1[1], a0[4], a1[4];
          kg_q_lds_words<1>(s0, b * 18 + 2, q0);
          kg_q_lds_words<1>(s1, b * 18 + 2, q1);
          kg_q4_0_mma_words(q0[0], {{QMAGIC}}, a0);
          kg_q4_0_mma_words(q1[0], {{QMAGIC}}, a1);
          const unsigned lo[4] = {a0[0], a1[0], a0[1], a1[1]}, hi[4] = {a0[2], a1[2], a0[3], a1[3]};
          const unsigned xlo[2] = {xb.v[0], xb.v[1]}, xhi[2] = {xb.v[2], xb.v[3]};
          kg_mma_16x8x16<{{BF16}}>(cc, lo, xlo);
          kg_mma_16x8x16<{{BF16}}>(cc, hi, xhi);
          /* d of rows g and g + 8: the 16 bits at the block's start (s0 and
           * s1 point t words in) */
          const float d0 = kg_f16_bits_to_f32((unsigned short)kg_q_lds_u16(s0 - t, b * 18));
          const float d1 = kg_f16_bits_to_f32((unsigned short)kg_q_lds_u16(s1 - t, b * 18));
          acc[0] += d0 * cc[0];
          acc[1] += d0 * cc[1];
          acc[2] += d1 * cc[2];
          acc[3] += d1 * cc[3];
        }
      }
    }
    if (s == SPT - 1) {
      float *p = part + u % 2 * WAVES * 128;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        p[(wave * 4 + e) * 32 + lane] = acc[e];
        acc[e] = 0.0f;
      }
    }
  };
{{#if XW}}  float acc[{{JTMAX}}][4] = {};
  for (int s = 0; s < SPT; ++s) {
#pragma unroll
    for (int u = 0; u < {{JTMAX}}; ++u)
      if (u < JT) {
        const int j = s * JT + u;
        slot(j, s, u, j > 0 && (j - 1) / JT == SPT - 1, (j - 1) % JT, acc[u]);
      }
  }
  if (J > 0) {
    __syncthreads();
    store(JT - 1);
  }
{{else}}  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int j = 0; j < J; ++j)
    slot(j, j % SPT, j / SPT, j > 0 && (j - 1) % SPT == SPT - 1, (j - 1) / SPT, acc);
  if (J > 0) {
    __syncthreads();
    store((J - 1) / SPT);
  }
{{/if}}}
