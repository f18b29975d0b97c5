#!/usr/bin/env python3
"""pngcolumn.py PNG X RRGGBB: how many pixels of column X are within 40 of
colour RRGGBB in each channel, read from rsvg-convert's 8-bit RGB(A) PNG with
nothing but zlib, so that a test sees what the picture draws, not only what
its SVG says."""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, w, h, bpp = 8, b'', 0, 0, 4
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and ctype in (2, 6), 'not 8-bit RGB or RGBA'
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, stride, rows = zlib.decompress(idat), bpp * w, []
    prev = bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return rows, bpp


(rows, bpp), x, want = pixels(sys.argv[1]), int(sys.argv[2]), bytes.fromhex(sys.argv[3])
print(sum(1 for r in rows if all(abs(r[bpp * x + k] - want[k]) <= 40 for k in range(3))))
