#!/usr/bin/env python3
"""`streamqlite report --svg` opened in a browser: the SVG of the demo data's weekly report
(sql/demo/create-usage.sql, with empty weeks before the data) is rendered by headless
Chromium (Debian's `chromium`) to a PNG, and the PNG's pixels of the bar colour are counted
per week's row: each bar must be as long as its value says (the largest 480 px, the others
in proportion, within 2 px) and the empty weeks must have none. The values come from the
text chart printed by the same command.

Usage: check-cli-svg.py path/to/streamqlite
"""
import os
import re
import sqlite3
import struct
import subprocess
import sys
import tempfile
import zlib

CLI = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAR = (0x4E, 0x79, 0xA7)          # BarChart.barColor
TOP, ROW, HEIGHT, ROOM, LEFT = 40, 22, 16, 480, 170   # BarChart's layout


def read_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
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
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "usage.db")
        con = sqlite3.connect(db)
        con.executescript(open(os.path.join(ROOT, "sql", "demo", "create-usage.sql")).read())
        con.close()
        svg = os.path.join(tmp, "weeks.svg")
        text = subprocess.run([CLI, "report", db, "--table", "Usage", "--time", "Date", "--value", "sum(Visits)",
                               "--locale", "en_US", "--from", "2010-11-25", "--to", "2011-01-20", "--svg", svg],
                              capture_output=True, check=True, text=True).stdout
        weeks = [(m[1], float(m[2])) for m in re.finditer(r"^(\S+)  \S+  [# ]* (\S+)$", text, re.M)]
        assert len(weeks) == 9 and [v for _, v in weeks[:3]] == [0, 0, 0], text
        png = os.path.join(tmp, "weeks.png")
        size = re.search(r'width="(\d+)" height="(\d+)"', open(svg).read())
        subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--force-device-scale-factor=1", f"--window-size={size[1]},{size[2]}",
                        f"--screenshot={png}", "file://" + svg], capture_output=True, check=True, timeout=120)
        width, height, pixels = read_png(png)
        largest = max(v for _, v in weeks)

        def is_bar(p):
            return all(abs(p[k] - BAR[k]) <= 3 for k in range(3))

        for i, (week, value) in enumerate(weeks):
            band = pixels[TOP + i * ROW:TOP + i * ROW + HEIGHT]
            count = sum(1 for row in band for p in row if is_bar(p))
            expected = value / largest * ROOM
            measured = count / HEIGHT
            ok = abs(measured - expected) <= 2
            # the bar starts where the layout puts it
            if value > 0:
                ok = ok and is_bar(band[HEIGHT // 2][LEFT + 1]) and not is_bar(band[HEIGHT // 2][LEFT - 2])
            print(f"{'ok  ' if ok else 'FAIL'} {week}: value {value:g}, bar {measured:.1f} px, expected {expected:.1f} px")
            failures += not ok
        # nothing of the bar colour outside the bars' rows
        stray = sum(1 for y in range(height) if not any(TOP + i * ROW <= y < TOP + i * ROW + HEIGHT
                                                         for i in range(len(weeks)))
                    for p in pixels[y] if is_bar(p))
        print(f"{'ok  ' if stray == 0 else 'FAIL'} bar-coloured pixels outside the bars: {stray}")
        failures += stray != 0
    print(f"cli-svg: {len(weeks) + 1 - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
