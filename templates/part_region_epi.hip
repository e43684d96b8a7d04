{{! gemv's REGIONS with REPI: column n0 + c of row m (acc0; accp its pair's) rotated where its region is (ROPE<r>) and stored to its region's result, or to its cache (KV<r>) at the row's position, or its slot (KVSLOTS) (skipped out of range, or where a later row has the same one: the last token wins; the includer's rows_ascend says no later row can, its slot_taken whether one does) }}{
      const long n = n0 + c;
      const int r = n < {{R1}}L ? 0 : {{#if R2}}n < {{R2}}L ? 1 : 2{{else}}1{{/if}};
      const long start = r == 0 ? 0L : {{#if R2}}r == 2 ? {{R2}}L : {{/if}}{{R1}}L;
      const long width = r == 0 ? {{R1}}L : {{#if R2}}r == 1 ? {{R2}}L - {{R1}}L : {{N}}L - {{R2}}L{{else}}{{N}}L - {{R1}}L{{/if}};
      const long lc = {{KERNEL}}_col(r, n - start);
      const int pos = kg_ld(positions, m);
      float v = acc0;
      if ({{KERNEL}}_roped(r)) {
        const int i = (int)(((n - start) % {{RE_D}}) >> 1);
        const float a = kg_rope_angle(pos, {{KERNEL}}_rev[3 * i], {{KERNEL}}_rev[3 * i + 1],
                                      {{KERNEL}}_rev[3 * i + 2]);
        const float cs = kg_cos(a), sn = kg_sin(a);
        v = (n & 1) ? acc0 * cs + accp * sn : acc0 * cs - accp * sn;
      }
      long idx = m * width + lc;
      bool put = true;
      if ({{KERNEL}}_cached(r)) {
{{#if KVSLOTS}}        const int pos = kg_ld(slots, m);
{{/if}}        put = pos >= 0 && pos < {{RE_SLOTS}};
{{#if KVSLOTS}}        put = put && !slot_taken(m, pos);
{{else}}        for (long u = m + 1; u < M && !rows_ascend; ++u)
          put = put && kg_ld(positions, u) != pos;
{{/if}}        const long layer = kg_pick(r, {{#if KV0}}layer0{{else}}0L{{/if}}, {{#if KV1}}layer1{{else}}0L{{/if}}{{#if R2}}, {{#if KV2}}layer2{{else}}0L{{/if}}{{/if}});
        idx = ((layer * (width / {{RE_D}}) + lc / {{RE_D}}) * {{RE_SLOTS}} + pos) * {{RE_D}} + lc % {{RE_D}};
      }
      if (put && r == 0)
        kg_st({{#if KV0}}cache0, idx, kg_from_f32<{{RE_C_T}}>(v){{else}}y, idx, kg_from_f32<{{OUT_T}}>(v){{/if}});
      else if (put && r == 1)
        kg_st({{#if KV1}}cache1, idx, kg_from_f32<{{RE_C_T}}>(v){{else}}yr1, idx, kg_from_f32<{{OUT_T}}>(v){{/if}});
{{#if R2}}      else if (put)
        kg_st({{#if KV2}}cache2, idx, kg_from_f32<{{RE_C_T}}>(v){{else}}yr2, idx, kg_from_f32<{{OUT_T}}>(v){{/if}});
{{/if}}    }
