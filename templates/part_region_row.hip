{{! a quantized GEMV's REGIONS: the weight (wsel) and its row (wrow) that column n reads: region rg's (w, wr1, wr2 from R1, R2), its row in it, permuted where REPI rotates in the half layout }}const int rg = n < {{R1}}L ? 0 : {{#if R2}}n < {{R2}}L ? 1 : 2{{else}}1{{/if}};
        const long wrow = {{#if REPI}}{{KERNEL}}_col(rg, {{/if}}n - (rg == 0 ? 0L : {{#if R2}}rg == 2 ? {{R2}}L : {{/if}}{{R1}}L){{#if REPI}}){{/if}};
        const auto wsel = kg_pick(rg, w, wr1{{#if R2}}, wr2{{/if}});
