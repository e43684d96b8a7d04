-- -o naming a file that is not a regular one (/dev/null here) writes into
-- it: kgen's atomic rename of a temporary file would replace the device
-- (root may), and every later reader of /dev/null would read kgen's output.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o /dev/null
-- RUN: test -c /dev/null
-- RUN: test ! -s /dev/null
output("y", input("x", f16, { 8, 64 }) * 2)
