{{! a GEMV's REPI with KVSLOTS (M <= MMAX rows): does a row after m write slot s? (the last token wins) }}  auto slot_taken = [&](long m, int s) {
    bool t = false;
    for (long u = m + 1; u < M; ++u)
      t = t || kg_ld(slots, u) == s;
    return t;
  };
