/* llm_pretok.c - see llm_pretok.h. The stages of each pre-tokenizer are
 * llama.cpp's (src/llama-vocab.cpp, llm_tokenizer_bpe), matched as its
 * std::regex does: the leftmost match, alternatives in order, greedy. */
#include "llm_pretok.h"

#include <stdlib.h>
#include <string.h>

#include "llm_unicode.h"

enum { NONE = 0xffffffffu }; /* past the piece */

/* A piece's code points: cp[i] inside [lo, hi), NONE outside. */
typedef struct piece {
  const uint32_t *cp;
  size_t lo, hi;
} piece_t;

static uint32_t at(const piece_t *p, size_t i) {
  return i >= p->lo && i < p->hi ? p->cp[i] : NONE;
}
static int space(uint32_t c) {
  return c != NONE && llm_cp_space(c);
}
static int is(uint32_t c, llm_cp_class_t k) {
  return c != NONE && llm_cp_class(c) == k;
}
static int letter(uint32_t c) {
  return is(c, LLM_CP_LETTER);
}
static int number(uint32_t c) {
  return is(c, LLM_CP_NUMBER);
}
static int crlf(uint32_t c) {
  return c == '\r' || c == '\n';
}
typedef int (*class_of_fn)(uint32_t c);
/* [^\s\p{L}\p{N}] */
static int other(uint32_t c) {
  return c != NONE && !space(c) && !letter(c) && !number(c);
}

/* Where the piece's words end, appended. */
typedef struct ends {
  size_t *at;
  int n, cap;
} ends_t;

static int add(ends_t *e, size_t end) {
  if (e->n > 0 && e->at[e->n - 1] == end)
    return 0;
  if (e->n >= e->cap)
    return -1;
  e->at[e->n++] = end;
  return 0;
}

/* 's|'t|'re|'ve|'m|'ll|'d (case-insensitive where icase): the length. */
static size_t contraction(const piece_t *p, size_t i, int icase) {
  if (at(p, i) != '\'')
    return 0;
  uint32_t a = at(p, i + 1), b = at(p, i + 2);
  if (icase) {
    a = a >= 'A' && a <= 'Z' ? a + 32 : a;
    b = b >= 'A' && b <= 'Z' ? b + 32 : b;
  }
  if (a == 's' || a == 't' || a == 'm' || a == 'd')
    return 2;
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
    return 3;
  return 0;
}

/* \s+(?!\S)|\s+ over the run of white space at i (its length n > 0). */
static size_t spaces(const piece_t *p, size_t i, size_t n) {
  return n > 1 && at(p, i + n) != NONE ? n - 1 : n;
}

/* GPT-2's: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
static int split_gpt2(const piece_t *p, ends_t *e) {
  for (size_t i = p->lo; i < p->hi;) {
    const uint32_t c = at(p, i);
    const uint32_t d = c == ' ' ? at(p, i + 1) : c; /* after the optional space */
    size_t j = i + contraction(p, i, 0);
    if (j > i) {
    } else if (letter(d) || number(d) || other(d)) {
      class_of_fn same = letter(d) ? letter : number(d) ? number : other;
      for (j = i + (c == ' '); same(at(p, j));)
        j++;
    } else {
      size_t n = 0;
      while (space(at(p, i + n)))
        n++;
      j = i + (n > 0 ? spaces(p, i, n) : 1);
    }
    if (add(e, j))
      return -1;
    i = j;
  }
  return 0;
}

/* Llama 3's: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
 * ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ (Qwen2's: \p{N} where
 * digits is 1) */
static int split_llama3(const piece_t *p, ends_t *e, size_t digits) {
  for (size_t i = p->lo; i < p->hi;) {
    const uint32_t c = at(p, i);
    size_t j = i + contraction(p, i, 1);
    if (j > i) {
    } else if (!crlf(c) && !number(c) && (letter(c) || letter(at(p, i + 1)))) {
      for (j = i + 1; letter(at(p, j));)
        j++;
    } else if (number(c)) {
      for (j = i; number(at(p, j)) && j - i < digits;)
        j++;
    } else if (other(c == ' ' ? at(p, i + 1) : c) || (c == ' ' && at(p, i + 1) == NONE)) {
      /* (a lone space at the end: ' ?' then nothing, as llama.cpp's split) */
      for (j = i + (c == ' '); other(at(p, j));)
        j++;
      while (crlf(at(p, j)))
        j++;
    } else {
      size_t n = 0, last_crlf = 0;
      for (; space(at(p, i + n)); n++)
        if (crlf(at(p, i + n)))
          last_crlf = n + 1;
      j = i + (last_crlf > 0 ? last_crlf : n > 0 ? spaces(p, i, n) : 1);
    }
    if (add(e, j))
      return -1;
    i = j;
  }
  return 0;
}

/* s at i: its length, or 0 */
static size_t literal(const piece_t *p, size_t i, const char *s) {
  size_t k = 0;
  for (; s[k] != '\0'; ++k)
    if (at(p, i + k) != (unsigned char)s[k])
      return 0;
  return k;
}

/* CLIP's: <\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|
 * [\p{N}]|[^\s\p{L}\p{N}]+ ; a run of white space (which no alternative
 * matches) is a word of its own, for the encoder to drop */
static int split_clip(const piece_t *p, ends_t *e) {
  for (size_t i = p->lo; i < p->hi;) {
    const uint32_t c = at(p, i);
    size_t j = i + literal(p, i, "<|startoftext|>");
    if (j == i)
      j = i + literal(p, i, "<|endoftext|>");
    if (j == i)
      j = i + contraction(p, i, 0);
    if (j > i) {
    } else if (number(c)) {
      j = i + 1;
    } else {
      class_of_fn same = letter(c) ? letter : other(c) ? other : space;
      for (j = i + 1; same(at(p, j));)
        j++;
    }
    if (add(e, j))
      return -1;
    i = j;
  }
  return 0;
}

/* ---- stages matched as std::regex does: each match at the leftmost place
 * it can start, the text between matches a piece of its own ---- */

/* The length of the match at i (0: none). */
typedef size_t (*match_fn)(const piece_t *p, size_t i);

static int split_matches(const piece_t *p, ends_t *e, match_fn m) {
  size_t i = p->lo;
  while (i < p->hi) {
    size_t l = m(p, i);
    if (l == 0) {
      i++;
      continue;
    }
    if ((i > p->lo && add(e, i)) || add(e, i + l))
      return -1;
    i += l;
  }
  return add(e, p->hi);
}

/* \s?[class]+ at i */
static size_t space_then_run(const piece_t *p, size_t i, class_of_fn in) {
  size_t j = i + (space(at(p, i)) && in(at(p, i + 1)));
  if (!in(at(p, j)))
    return 0;
  while (in(at(p, j)))
    j++;
  return j - i;
}

static size_t run(const piece_t *p, size_t i, class_of_fn in) {
  size_t j = i;
  while (in(at(p, j)))
    j++;
  return j - i;
}

static int in_ranges(uint32_t c, const uint32_t (*r)[2], size_t n) {
  for (size_t k = 0; k < n; ++k)
    if (c >= r[k][0] && c <= r[k][1])
      return 1;
  return 0;
}

static int punct(uint32_t c) {
  return is(c, LLM_CP_PUNCT);
}
/* [\p{P}\$\+<=>\^~\|] (DEFAULT) and the same with ` (FALCON) */
static int punct_default(uint32_t c) {
  return punct(c) || (c < 128 && strchr("$+<=>^~|", (int)c) && c);
}
static int punct_falcon(uint32_t c) {
  return punct_default(c) || c == '`';
}
static int digit(uint32_t c) {
  return c >= '0' && c <= '9';
}
/* DeepSeek's CJK: [一-龥ࠀ-一가-퟿] (U+3000 and the like are white space to it) */
static int cjk(uint32_t c) {
  return ((c >= 0x800 && c <= 0x9fa5) || (c >= 0xac00 && c <= 0xd7ff)) && !space(c);
}
/* DeepSeek LLM's letters: the scripts with case, as its regex lists them */
static int deepseek_letter(uint32_t c) {
  static const uint32_t r[][2] = {
      {0x41, 0x5A},       {0x61, 0x7A},       {0xB5, 0xB5},       {0xC0, 0xD6},
      {0xD8, 0xF6},       {0xF8, 0x1BA},      {0x1BC, 0x1BF},     {0x1C4, 0x293},
      {0x295, 0x2AF},     {0x370, 0x373},     {0x376, 0x377},     {0x37B, 0x37D},
      {0x37F, 0x37F},     {0x386, 0x386},     {0x388, 0x38A},     {0x38C, 0x38C},
      {0x38E, 0x3A1},     {0x3A3, 0x3F5},     {0x3F7, 0x481},     {0x48A, 0x52F},
      {0x531, 0x556},     {0x10A0, 0x10C5},   {0x13A0, 0x13F5},   {0x13F8, 0x13FD},
      {0x1C90, 0x1CBA},   {0x1CBD, 0x1CBF},   {0x1D00, 0x1D2B},   {0x1D6B, 0x1D77},
      {0x1D79, 0x1D9A},   {0x1E00, 0x1F15},   {0x1F18, 0x1F1D},   {0x1F20, 0x1F45},
      {0x1F48, 0x1F4D},   {0x1F50, 0x1F57},   {0x1F59, 0x1F59},   {0x1F5B, 0x1F5B},
      {0x1F5D, 0x1F5D},   {0x1F5F, 0x1F7D},   {0x1F80, 0x1FB4},   {0x1FB6, 0x1FBC},
      {0x1FBE, 0x1FBE},   {0x1FC2, 0x1FC4},   {0x1FC6, 0x1FCC},   {0x1FD0, 0x1FD3},
      {0x1FD6, 0x1FDB},   {0x1FE0, 0x1FEC},   {0x1FF2, 0x1FF4},   {0x1FF6, 0x1FFC},
      {0x2102, 0x2102},   {0x2107, 0x2107},   {0x210A, 0x2113},   {0x2115, 0x2115},
      {0x2119, 0x211D},   {0x2124, 0x2124},   {0x2126, 0x2126},   {0x2128, 0x2128},
      {0x212A, 0x212D},   {0x212F, 0x2134},   {0x2139, 0x2139},   {0x213C, 0x213F},
      {0x2145, 0x2149},   {0x214E, 0x214E},   {0x2183, 0x2184},   {0x2C00, 0x2C7B},
      {0x2C7E, 0x2CE4},   {0x2CEB, 0x2CEE},   {0x2CF2, 0x2CF3},   {0xA640, 0xA66D},
      {0xA680, 0xA69B},   {0xA722, 0xA76F},   {0xA771, 0xA787},   {0xA78B, 0xA78E},
      {0xAB70, 0xABBF},   {0xFB00, 0xFB06},   {0xFB13, 0xFB17},   {0xFF21, 0xFF3A},
      {0xFF41, 0xFF5A},   {0x10400, 0x1044F}, {0x104B0, 0x104D3}, {0x104D8, 0x104FB},
      {0x10C80, 0x10CB2}, {0x10CC0, 0x10CF2}, {0x118A0, 0x118DF}, {0x1E900, 0x1E943}};
  return c != NONE && in_ranges(c, r, sizeof r / sizeof r[0]);
}
/* DeepSeek LLM's punctuation: [!-/:-~！-／：-～‘-‟　-。] (U+3000 is white space) */
static int deepseek_punct(uint32_t c) {
  static const uint32_t r[][2] = {{0x21, 0x2F},     {0x3A, 0x7E},     {0xFF01, 0xFF0F},
                                  {0xFF1A, 0xFF5E}, {0x2018, 0x201F}, {0x3001, 0x3002}};
  return c != NONE && in_ranges(c, r, sizeof r / sizeof r[0]);
}
/* BLOOM's: [^(\s|.,!?…。，、।۔،)] (the parentheses and bar are literal) */
static int bloom_char(uint32_t c) {
  static const uint32_t not_in[] = {'(',    ')',    '|',    '.',    ',',   '!',   '?',
                                    0x2026, 0x3002, 0xff0c, 0x3001, 0x964, 0x6d4, 0x60c};
  if (c == NONE || space(c))
    return 0;
  for (size_t k = 0; k < sizeof not_in / sizeof not_in[0]; ++k)
    if (c == not_in[k])
      return 0;
  return 1;
}

static size_t m_crlf(const piece_t *p, size_t i) {
  return crlf(at(p, i));
}
static size_t m_number(const piece_t *p, size_t i) {
  return number(at(p, i));
}
static size_t m_numbers(const piece_t *p, size_t i) {
  return run(p, i, number);
}
static size_t m_cjk(const piece_t *p, size_t i) {
  return run(p, i, cjk);
}
static size_t m_digits3(const piece_t *p, size_t i) {
  return digit(at(p, i)) && digit(at(p, i + 1)) && digit(at(p, i + 2)) ? 3 : 0;
}
static size_t m_punct_default(const piece_t *p, size_t i) {
  return run(p, i, punct_default);
}
static size_t m_punct_falcon(const piece_t *p, size_t i) {
  return run(p, i, punct_falcon);
}
static size_t m_space_letters(const piece_t *p, size_t i) {
  return space_then_run(p, i, letter);
}
static size_t m_space_punct(const piece_t *p, size_t i) {
  return space_then_run(p, i, punct);
}
static size_t m_deepseek_letters(const piece_t *p, size_t i) {
  return space_then_run(p, i, deepseek_letter);
}
static size_t m_deepseek_punct(const piece_t *p, size_t i) {
  return space_then_run(p, i, deepseek_punct);
}
/* \s+$ : white space to the end of the piece */
static size_t m_trailing_space(const piece_t *p, size_t i) {
  size_t j = i;
  while (space(at(p, j)))
    j++;
  return j > i && j == p->hi ? j - i : 0;
}
/*  ?[^(\s|.,!?…。，、।۔،)]+ */
static size_t m_bloom(const piece_t *p, size_t i) {
  size_t j = i + (at(p, i) == ' ' && bloom_char(at(p, i + 1)));
  const size_t l = run(p, j, bloom_char);
  return l > 0 ? j + l - i : 0;
}

/* A stage: a custom split (GPT2, LLAMA3 with its digits) or a match. */
enum { GPT2 = 1, LLAMA3, QWEN2, CLIP };
typedef struct stage {
  int custom;
  match_fn match;
} stage_t;

static const struct {
  const char *name;
  llm_pre_t pre;
  int ignore_merges, add_bos;
} names[] = {
    {"default", LLM_PRE_DEFAULT, 0, 0},
    {"llama3", LLM_PRE_LLAMA3, 1, 1},
    {"llama-v3", LLM_PRE_LLAMA3, 1, 1},
    {"llama-bpe", LLM_PRE_LLAMA3, 1, 1},
    {"falcon3", LLM_PRE_LLAMA3, 1, 1},
    {"dbrx", LLM_PRE_LLAMA3, 0, 0},
    {"smaug-bpe", LLM_PRE_LLAMA3, 0, 0},
    {"deepseek-llm", LLM_PRE_DEEPSEEK_LLM, 0, 0},
    {"deepseek-coder", LLM_PRE_DEEPSEEK_CODER, 0, 0},
    {"falcon", LLM_PRE_FALCON, 0, 0},
    {"mpt", LLM_PRE_GPT2, 0, 0},
    {"olmo", LLM_PRE_GPT2, 0, 0},
    {"jais", LLM_PRE_GPT2, 0, 0},
    {"gpt-2", LLM_PRE_GPT2, 0, 0},
    {"phi-2", LLM_PRE_GPT2, 0, 0},
    {"jina-es", LLM_PRE_GPT2, 0, 0},
    {"jina-de", LLM_PRE_GPT2, 0, 0},
    {"gigachat", LLM_PRE_GPT2, 0, 0},
    {"jina-v1-en", LLM_PRE_GPT2, 0, 0},
    {"jina-v2-es", LLM_PRE_GPT2, 0, 0},
    {"jina-v2-de", LLM_PRE_GPT2, 0, 0},
    {"jina-v2-code", LLM_PRE_GPT2, 0, 0},
    {"roberta-bpe", LLM_PRE_GPT2, 0, 0},
    {"starcoder", LLM_PRE_STARCODER, 0, 0},
    {"refact", LLM_PRE_STARCODER, 0, 0},
    {"command-r", LLM_PRE_STARCODER, 0, 0},
    {"smollm", LLM_PRE_STARCODER, 0, 0},
    {"codeshell", LLM_PRE_STARCODER, 0, 0},
    {"exaone", LLM_PRE_STARCODER, 0, 0},
    {"minerva-7b", LLM_PRE_STARCODER, 0, 0},
    {"qwen2", LLM_PRE_QWEN2, 0, 0},
    {"deepseek-r1-qwen", LLM_PRE_QWEN2, 0, 0},
    {"stablelm2", LLM_PRE_QWEN2, 0, 0},
    {"megrez", LLM_PRE_QWEN2, 0, 0},
    {"poro-chat", LLM_PRE_BLOOM, 0, 0},
    {"bloom", LLM_PRE_BLOOM, 0, 0},
    {"gpt3-finnish", LLM_PRE_BLOOM, 0, 0},
    {"viking", LLM_PRE_VIKING, 0, 0},
};

llm_pre_t llm_pretok_find(const char *name, size_t len, int *ignore_merges,
                          int *add_bos) {
  *ignore_merges = *add_bos = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (len == strlen(names[i].name) && memcmp(name, names[i].name, len) == 0) {
      *ignore_merges = names[i].ignore_merges;
      *add_bos = names[i].add_bos;
      return names[i].pre;
    }
  return LLM_PRE_UNKNOWN;
}

/* The stages of pre into st[8]; their count. */
static int stages(llm_pre_t pre, stage_t *st) {
  switch (pre) {
  case LLM_PRE_DEFAULT:
    st[0] = (stage_t){0, m_punct_default};
    st[1] = (stage_t){GPT2, NULL};
    st[2] = (stage_t){0, m_numbers};
    st[3] = (stage_t){0, m_digits3};
    return 4;
  case LLM_PRE_GPT2:
    st[0] = (stage_t){GPT2, NULL};
    return 1;
  case LLM_PRE_LLAMA3:
    st[0] = (stage_t){LLAMA3, NULL};
    return 1;
  case LLM_PRE_QWEN2:
    st[0] = (stage_t){QWEN2, NULL};
    return 1;
  case LLM_PRE_DEEPSEEK_LLM:
    st[0] = (stage_t){0, m_crlf};
    st[1] = (stage_t){0, m_deepseek_letters};
    st[2] = (stage_t){0, m_deepseek_punct};
    st[3] = (stage_t){0, m_trailing_space};
    st[4] = (stage_t){0, m_cjk};
    st[5] = (stage_t){0, m_numbers};
    return 6;
  case LLM_PRE_DEEPSEEK_CODER:
    st[0] = (stage_t){0, m_crlf};
    st[1] = (stage_t){0, m_space_letters};
    st[2] = (stage_t){0, m_space_punct};
    st[3] = (stage_t){0, m_cjk};
    st[4] = (stage_t){0, m_number};
    return 5;
  case LLM_PRE_FALCON:
    st[0] = (stage_t){0, m_punct_falcon};
    st[1] = (stage_t){GPT2, NULL};
    st[2] = (stage_t){0, m_digits3};
    return 3;
  case LLM_PRE_STARCODER:
    st[0] = (stage_t){0, m_number};
    st[1] = (stage_t){GPT2, NULL};
    return 2;
  case LLM_PRE_BLOOM:
    st[0] = (stage_t){0, m_bloom};
    return 1;
  case LLM_PRE_VIKING:
    st[0] = (stage_t){0, m_bloom};
    st[1] = (stage_t){0, m_number};
    return 2;
  case LLM_PRE_CLIP:
    st[0] = (stage_t){CLIP, NULL};
    return 1;
  case LLM_PRE_UNKNOWN:
    break;
  }
  return 0;
}

int llm_pretok_split(llm_pre_t pre, const uint32_t *cp, size_t n, size_t *ends, int cap) {
  stage_t st[8];
  const int n_st = stages(pre, st);
  if (n_st == 0 || cap < 1)
    return -1;
  if (n == 0)
    return 0;
  /* ends[] holds the pieces; each stage writes the next into tmp */
  size_t *tmp = malloc(sizeof *tmp * (size_t)cap);
  if (tmp == NULL)
    return -1;
  int count = 1;
  ends[0] = n;
  for (int s = 0; s < n_st && count >= 0; ++s) {
    ends_t e = {tmp, 0, cap};
    size_t lo = 0;
    for (int k = 0; k < count; lo = ends[k++]) {
      const piece_t p = {cp, lo, ends[k]};
      int rc = st[s].custom == GPT2     ? split_gpt2(&p, &e)
               : st[s].custom == LLAMA3 ? split_llama3(&p, &e, 3)
               : st[s].custom == QWEN2  ? split_llama3(&p, &e, 1)
               : st[s].custom == CLIP   ? split_clip(&p, &e)
                                        : split_matches(&p, &e, st[s].match);
      if (rc != 0) {
        count = -1;
        break;
      }
    }
    if (count >= 0) {
      memcpy(ends, tmp, sizeof *ends * (size_t)e.n);
      count = e.n;
    }
  }
  free(tmp);
  return count;
}
