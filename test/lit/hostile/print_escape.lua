-- print() writes one line, each argument's control bytes, C1 controls,
-- bidi and line controls as \xNN: a model cannot drive the terminal.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o /dev/null 2> %t.log
-- RUN: test $(wc -l < %t.log) -eq 1
-- RUN: test $(LC_ALL=C tr -cd '\000-\010\013-\037\177\200-\237' < %t.log | wc -c) -eq 0
-- RUN: FileCheck %s < %t.log
-- CHECK: a\x1b[2Jb\x0ac\x09d\x07e\x7f{{	}}\xc2\x9b31m{{	}}\xe2\x80\xaeevil{{	}}\xff\xfe{{	}}wörld{{	}}table{{$}}
print("a\27[2Jb\nc\td\7e\127", "\xc2\x9b31m", "\u{202e}evil", "\xff\xfe", "w\xc3\xb6rld", {})
output("y", input("x", f32, { 4 }) * 2.0)
