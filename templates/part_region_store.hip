{{! column n0 + c of row m to its region's result (gemv's REGIONS): y [M, R1], yr1 [M, R2 - R1] (to N without R2), yr2 [M, N - R2] }}{
      const long n = n0 + c;
      const {{OUT_T}} r = kg_from_f32<{{OUT_T}}>(acc0);
      if (n < {{R1}}L)
        kg_st(y, m * {{R1}}L + n, r);
{{#if R2}}      else if (n < {{R2}}L)
        kg_st(yr1, m * ({{R2}}L - {{R1}}L) + n - {{R1}}L, r);
      else
        kg_st(yr2, m * ({{N}}L - {{R2}}L) + n - {{R2}}L, r);
{{else}}      else
        kg_st(yr1, m * ({{N}}L - {{R1}}L) + n - {{R1}}L, r);
{{/if}}    }