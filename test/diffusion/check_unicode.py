#!/usr/bin/env python3
"""check_unicode.py FILTER TABLE - examples/sd's NFC and lowercase
(test_sd_unicode, the FILTER) against Python's unicodedata.normalize("NFC")
and str.lower: every assigned code point alone, then 20000 seeded random
sequences of letters, combining marks (out of order), Hangul jamo and
syllables, capital sigmas between letters and case-ignorable marks, and
singletons (U+212B, CJK compatibility ideographs). Skipped (exit 77) when
this Python's Unicode is not the one the TABLE (sd_unicode_table.c) was
generated from."""
import random
import re
import subprocess
import sys
import unicodedata

filt, table = sys.argv[1], sys.argv[2]
with open(table, encoding="utf-8") as f:
    version = re.search(r"Unicode ([0-9.]+)", f.read(400)).group(1)
if version != unicodedata.unidata_version:
    print(f"SKIPPED: Python's Unicode is {unicodedata.unidata_version}, the table's {version}")
    sys.exit(77)

texts = [chr(c) for c in range(0x110000)
         if unicodedata.category(chr(c)) not in ("Cn", "Co", "Cs")]
pool = ([chr(c) for c in range(0x41, 0x7B)] + [chr(c) for c in range(0xC0, 0x250)]
        + [chr(c) for c in range(0x300, 0x370)] + [chr(c) for c in range(0x591, 0x5C8)]
        + [chr(c) for c in range(0x1DC0, 0x1E00)] + [chr(c) for c in range(0x20D0, 0x20F1)]
        + [chr(c) for c in range(0x1100, 0x1113)] + [chr(c) for c in range(0x1161, 0x1176)]
        + [chr(c) for c in range(0x11A8, 0x11C3)] + ["\uAC00", "\uAC01", "\uD7A3"]
        + list("\u0391\u03A3\u03A3\u03C3\u03B1'.\u00AD\u0130\u212B\u2126\uF900\u0F73")
        + [chr(c) for c in range(0x1F00, 0x1F20)] + [" ", "1", "\u3099", "\u304B"])
rng = random.Random(49)
for _ in range(20000):
    texts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 8))))

hexes = lambda s: " ".join("%X" % ord(c) for c in s)
out = subprocess.run([filt], input="\n".join(hexes(t) for t in texts) + "\n",
                     capture_output=True, text=True, check=True).stdout.split("\n")
bad = 0
for t, line in zip(texts, out):
    want = hexes(unicodedata.normalize("NFC", t)) + ";" + hexes(t.lower())
    if line != want:
        bad += 1
        if bad <= 10:
            print(f"{hexes(t)}: got {line}, want {want}")
print(f"check_unicode: {len(texts)} texts, {bad} differ (Unicode {version})")
sys.exit(1 if bad or len(out) < len(texts) else 0)
