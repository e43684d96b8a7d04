#!/usr/bin/env bash
# drift_moved_field.sh SCRATCH - kgrt-sys's drift test must fail on a
# deliberately wrong declaration: a copy of the crate in SCRATCH with one
# field of kgrt_tensor_info_t moved (flags after parts) must fail its drift
# test, naming the field. Needs what `cargo test` needs (KGRT_LIB_DIR,
# KGRT_INCLUDE_DIR: the copy is not beside runtime/).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1
rm -rf "$work" && mkdir -p "$work"
cp -r "$here/kgrt-sys/Cargo.toml" "$here/kgrt-sys/build.rs" "$here/kgrt-sys/src" \
  "$here/kgrt-sys/tests" "$work/"
python3 - "$work/src/lib.rs" <<'PY'
import sys
path = sys.argv[1]
s = open(path).read()
old = "        pub flags: u32,\n        pub split: u32,\n        pub parts: u32,\n"
new = "        pub split: u32,\n        pub parts: u32,\n        pub flags: u32,\n"
assert s.count(old) == 1, "kgrt_tensor_info_t's fields are not where this test expects"
open(path, "w").write(s.replace(old, new))
PY
if out=$(: | cargo test --offline --manifest-path "$work/Cargo.toml" --test drift 2>&1); then
  echo "$out" | tail -20
  echo "FAIL: the drift test passed with kgrt_tensor_info_t.flags moved"
  exit 1
fi
echo "$out" | grep -E "kgrt_tensor_info_t\.(flags|split|parts)" | head -8
echo "$out" | grep -q "field kgrt_tensor_info_t.flags" || {
  echo "$out" | tail -20
  echo "FAIL: the drift test failed without naming the moved field"
  exit 1
}
echo "ok: the drift test fails on the moved field"
