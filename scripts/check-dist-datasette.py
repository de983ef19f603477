#!/usr/bin/env python3
"""Datasette with datasette-streamqlite, as a visitor meets it (part of make test-dist).

    check-dist-datasette.py BASE_URL DATABASE_NAME DB_FILE

BASE_URL is a running `datasette serve` (check-dist.sh starts it in the fresh Debian root,
on 127.0.0.1); DB_FILE the database it serves, read here for the ISO-week oracle
(check-dist-root.py).  Checks:
  - the SQL page, rendered by headless Chromium (Debian's chromium), shows the weekly
    report grouped by locale_week: every week, start, visit count and value per visit in
    the table Datasette draws, equal to the oracle;
  - the JSON API (?_shape=array) returns the same rows;
  - json_stream('/etc/passwd') is refused: the plugin loads the no-read entry point.
"""
import html
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
check = __import__("check-dist-root")


def main():
    base, name, db = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
    want = check.oracle(db)
    page = f"{base}/{name}?" + urllib.parse.urlencode({"sql": check.REPORT})
    dom = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page],
                         capture_output=True, text=True, timeout=120).stdout
    rows = []
    for tr in re.findall(r"<tr>(.*?)</tr>", dom, re.S):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
                 for c in re.findall(r'<td class="col-[^"]*"[^>]*>(.*?)</td>', tr, re.S)]
        if len(cells) == 4:
            rows.append(cells)
    if not rows:
        print(f"check-dist: Datasette's SQL page shows no report table; the page began:\n{dom[:2000]}")
        sys.exit(1)
    check.compare("Datasette SQL page in headless Chromium (datasette-streamqlite)", check.rows_of(rows), want)

    api = f"{base}/{name}.json?" + urllib.parse.urlencode({"sql": check.REPORT, "_shape": "array"})
    check.compare("Datasette JSON API", check.rows_of(json.load(urllib.request.urlopen(api, timeout=30))), want)

    bad = f"{base}/{name}.json?" + urllib.parse.urlencode({"sql": "SELECT * FROM json_stream('/etc/passwd')"})
    try:
        body = urllib.request.urlopen(bad, timeout=30).read().decode()
    except urllib.error.HTTPError as e:
        body = e.read().decode()
    if "root:" in body or "no such table: json_stream" not in body:
        print(f"check-dist: Datasette: json_stream('/etc/passwd') was not refused: {body[:300]}")
        sys.exit(1)
    print("check-dist: Datasette: json_stream('/etc/passwd') refused (no such table: json_stream)")


if __name__ == "__main__":
    main()
