#!/usr/bin/env python3
"""`streamqlite report --svg` opened in a browser: the SVG of the demo data's weekly report
(sql/demo/create-usage.sql, with empty weeks before the data, and --from/--to cutting the
first and last weeks) is rendered by headless Chromium (Debian's `chromium`) to a PNG, and
the PNG's pixels are counted per week's row: each bar must be as long as its value says (the
largest 480 px, the others in proportion, within 2 px), in the bar colour, or the lighter
one for a partial week, and the empty weeks must have none; the value axis must be drawn
under the bars with a tick at each of the text chart's tick values. The values come from the
text chart printed by the same command. The screenshot is kept (SVG_PNG=path) to look at.

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
PARTIAL = (0xA6, 0xBD, 0xDB)      # BarChart.partialColor
TOP, ROW, HEIGHT, ROOM = 60, 22, 16, 480   # BarChart's layout (the bars' left edge is read from the SVG)


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
                               "--locale", "en_US", "--from", "2010-11-25", "--to", "2011-01-20", "--svg", svg,
                               "--title", "Visits per week"],
                              capture_output=True, check=True, text=True).stdout
        weeks = [(m[1], m[2] == "*", float(m[3].replace(",", "")))
                 for m in re.finditer(r"^(\S+?)(\*?) +\d{4}-\d\d-\d\d  [# ]* (\S+)$", text, re.M)]
        assert len(weeks) == 9 and [v for _, _, v in weeks[:3]] == [0, 0, 0], text
        assert [p for _, p, _ in weeks] == [True] + [False] * 7 + [True], text
        lines = text.splitlines()
        ticks = [float(v.replace(",", "")) for v in lines[2 + len(weeks) + 1].split()]
        source = open(svg).read()
        LEFT = int(re.search(r'<rect class="bar[^"]*" x="(\d+)"', source)[1])
        # with --locale each row is labelled by its dates as the locale writes them
        assert ">Dec 26, 2010\u2009\u2013\u2009Jan 1, 2011</text>" in source, source[:2000]
        assert "<title>Visits per week</title>" in source and ">sum(Visits)</text>" in source, source[:800]
        png = os.environ.get("SVG_PNG") or os.path.join(tmp, "weeks.png")
        size = re.search(r'width="(\d+)" height="(\d+)"', source)
        subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--force-device-scale-factor=1", f"--window-size={size[1]},{size[2]}",
                        f"--screenshot={png}", "file://" + svg], capture_output=True, check=True, timeout=120)
        width, height, pixels = read_png(png)
        largest = max(v for _, _, v in weeks)

        def is_colour(p, c):
            return all(abs(p[k] - c[k]) <= 3 for k in range(3))

        for i, (week, partial, value) in enumerate(weeks):
            colour = PARTIAL if partial else BAR
            band = pixels[TOP + i * ROW:TOP + i * ROW + HEIGHT]
            count = sum(1 for row in band for p in row if is_colour(p, colour))
            expected = value / largest * ROOM
            measured = count / HEIGHT
            ok = abs(measured - expected) <= 2
            # the bar starts where the layout puts it
            if value > 0:
                ok = ok and is_colour(band[HEIGHT // 2][LEFT + 1], colour) and not is_colour(band[HEIGHT // 2][LEFT - 2], colour)
            print(f"{'ok  ' if ok else 'FAIL'} {week}{' (partial)' if partial else ''}: value {value:g}, "
                  f"bar {measured:.1f} px, expected {expected:.1f} px")
            failures += not ok
        # nothing of the bar colours outside the bars' rows
        stray = sum(1 for y in range(height) if not any(TOP + i * ROW <= y < TOP + i * ROW + HEIGHT
                                                         for i in range(len(weeks)))
                    for p in pixels[y] if is_colour(p, BAR) or is_colour(p, PARTIAL))
        print(f"{'ok  ' if stray == 0 else 'FAIL'} bar-coloured pixels outside the bars: {stray}")
        failures += stray != 0
        # the axis: a dark line the bars' width under the last row, a tick below it at each value
        axis_y = TOP + len(weeks) * ROW + 4

        def dark(p):
            return max(p) < 110

        line = max(sum(1 for x in range(LEFT, LEFT + ROOM + 1) if dark(pixels[y][x])) for y in range(axis_y - 1, axis_y + 2))
        ok = line >= ROOM - 2
        print(f"{'ok  ' if ok else 'FAIL'} the value axis: {line} dark pixels of {ROOM + 1}")
        failures += not ok
        missing = [t for t in ticks
                   if not any(dark(pixels[axis_y + 3][x]) for x in range(round(LEFT + t / largest * ROOM) - 1,
                                                                           round(LEFT + t / largest * ROOM) + 2))]
        ok = len(ticks) >= 3 and not missing
        print(f"{'ok  ' if ok else 'FAIL'} a tick under the axis at each of {ticks}: missing {missing}")
        failures += not ok
    checks = len(weeks) + 3
    print(f"cli-svg: {checks - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
