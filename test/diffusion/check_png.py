#!/usr/bin/env python3
"""check_png.py FILE WIDTH HEIGHT - FILE is a whole 8-bit RGB PNG of that
size (signature, IHDR, every chunk's CRC, the image data inflated to one
filter byte and WIDTH x 3 bytes a row, IEND) whose pixels are not all one
value. Exits 1 with a line saying what is wrong."""
import struct
import sys
import zlib


def fail(why):
    print(f"check_png: {sys.argv[1]}: {why}")
    sys.exit(1)


def main():
    path, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("no PNG signature")
    at, chunks = 8, []
    while at < len(data):
        if at + 8 > len(data):
            fail("truncated chunk header")
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        if len(body) != n or at + 12 + n > len(data):
            fail(f"truncated chunk {kind!r}")
        (crc,) = struct.unpack(">I", data[at + 8 + n:at + 12 + n])
        if zlib.crc32(kind + body) != crc:
            fail(f"bad CRC in chunk {kind!r}")
        chunks.append((kind, body))
        at += 12 + n
    if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND":
        fail("chunks do not start with IHDR and end with IEND")
    w, h, depth, color = struct.unpack(">IIBB", chunks[0][1][:10])
    if (w, h, depth, color) != (width, height, 8, 2):
        fail(f"{w} x {h}, depth {depth}, color type {color}; want {width} x {height} 8-bit RGB")
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    if len(raw) != height * (1 + width * 3):
        fail(f"{len(raw)} bytes of image data, want {height * (1 + width * 3)}")
    pixels = b"".join(raw[r * (1 + width * 3) + 1:(r + 1) * (1 + width * 3)] for r in range(height))
    if len(set(pixels)) < 2:
        fail("every byte of the image is the same")
    print(f"check_png: {path}: {w} x {h} RGB, {len(set(pixels))} distinct byte values")


main()
