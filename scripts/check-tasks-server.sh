#!/usr/bin/env bash
# Smoke test of Examples/TasksServer (make test-server, part of make test):
# builds it (debug, scratch path Examples/TasksServer/.build, reused between runs),
# starts it on a free 127.0.0.1 port with 3,000 sample tasks in a temporary database,
# exercises every route with real HTTP requests (Python's urllib), checks status codes
# and bodies against the database read with Python's sqlite3 and the weekly report
# against PyICU when it is installed, then stops the server by its PID; then
# scripts/check-tasks-server-clients.py: hostile clients against servers of its own;
# scripts/check-tasks-server-csrf.py: no page of another origin can write (headless Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
PKG=${TASKS_SERVER_PACKAGE:-Examples/TasksServer}   # another checkout of the example, for a run against it
SCRATCH=${TASKS_SERVER_SCRATCH:-$PKG/.build}
PY=python3
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3   # Debian's, which has python3-icu when installed

echo "== building $PKG (debug; the first build of Hummingbird takes a few minutes)"
start=$(date +%s)
swift build --package-path "$PKG" --scratch-path "$SCRATCH" --product TasksServer 2>&1 | tail -3
BIN="$(swift build --package-path "$PKG" --scratch-path "$SCRATCH" --show-bin-path)/TasksServer"
echo "   built in $(( $(date +%s) - start )) s: $BIN"

TMP=$(mktemp -d)
PID=
cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then kill "$PID"; wait "$PID" 2>/dev/null || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT

"$BIN" --port 0 --db "$TMP/tasks.db" --sample 3000 > "$TMP/server.log" 2>&1 &
PID=$!
PORT=
for _ in $(seq 1 300); do
    PORT=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$TMP/server.log")
    [ -n "$PORT" ] && break
    kill -0 "$PID" 2>/dev/null || { cat "$TMP/server.log"; echo "TasksServer exited before listening"; exit 1; }
    sleep 0.1
done
[ -n "$PORT" ] || { cat "$TMP/server.log"; echo "TasksServer did not print its port within 30 s"; exit 1; }
echo "== TasksServer pid $PID on 127.0.0.1:$PORT"

timeout 180 "$PY" - "$PORT" "$TMP/tasks.db" "$PID" <<'PYTHON'
import json, socket, sqlite3, sys, threading, time, urllib.request, urllib.error
port, dbpath, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
base = f"http://127.0.0.1:{port}"
passed = failed = 0

def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)

def req(method, path, body=None, raw=None):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    r = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        r.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(r, timeout=30) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()

def get_json(method, path, body=None, raw=None, status=200):
    code, headers, data = req(method, path, body, raw)
    check(code == status, f"{method} {path}: status {code}, expected {status}: {data[:300]!r}")
    if status != 204:
        check(headers.get("Content-Type", "").startswith("application/json"), f"{method} {path}: content type {headers.get('Content-Type')}")
    return (json.loads(data) if data else None), headers

def error(method, path, status, *needles, body=None, raw=None):
    doc, _ = get_json(method, path, body, raw, status=status)
    msg = (doc or {}).get("error", "")
    check(doc.get("status") == status, f"{method} {path}: error body status {doc}")
    for n in needles:
        check(n in msg, f"{method} {path}: error message {msg!r} lacks {n!r}")
    return msg

db = sqlite3.connect(f"file:{dbpath}?mode=ro", uri=True)
# A task as the server shows it: `completed` is `done` under its Todo-Backend name, `order`
# is stored as sort_order, `url` is built from the Host header (urllib sends 127.0.0.1:PORT).
url_base = f"{base}/tasks/"
def rows(sql, *args):
    return [{"id": r[0], "title": r[1], "done": bool(r[2]), "createdAt": r[3], "completed": bool(r[2]),
             "order": r[4], "url": url_base + str(r[0])}
            for r in db.execute(f"SELECT id, title, done, created_at, sort_order FROM tasks {sql}", args)]
def count():
    return db.execute("SELECT count(*) FROM tasks").fetchone()[0]

check(db.execute("PRAGMA journal_mode").fetchone()[0] == "wal", "database in WAL mode")
check(count() == 3000, f"3000 sample tasks, found {count()}")

# GET /tasks: every task (about 270 KB: streamed, chunked), filters, paging, bad parameters
all_tasks, headers = get_json("GET", "/tasks")
check(all_tasks == rows("ORDER BY id"), "GET /tasks equals the table")
check(headers.get("Transfer-Encoding") == "chunked" and headers.get("Content-Length") is None,
      f"GET /tasks streamed (chunked): {dict(headers)}")
small, headers = get_json("GET", "/tasks?limit=5")
check(small == rows("ORDER BY id LIMIT 5"), "GET /tasks?limit=5")
check(headers.get("Content-Length") is not None, "a one-chunk result has a Content-Length")
page, _ = get_json("GET", "/tasks?done=true&limit=50&offset=10")
check(page == rows("WHERE done = 1 ORDER BY id LIMIT 50 OFFSET 10"), "GET /tasks?done=true&limit=50&offset=10")
page, _ = get_json("GET", "/tasks?done=false&offset=2990")
check(page == rows("WHERE done = 0 ORDER BY id LIMIT -1 OFFSET 2990"), "GET /tasks?done=false&offset=2990")
page, _ = get_json("GET", "/tasks?after=100&limit=5")
check(page == rows("WHERE id > 100 ORDER BY id LIMIT 5"), "GET /tasks?after=100&limit=5")
page, _ = get_json("GET", "/tasks?done=true&after=2000&limit=7&offset=1")
check(page == rows("WHERE done = 1 AND id > 2000 ORDER BY id LIMIT 7 OFFSET 1"), "GET /tasks?done=true&after=2000&limit=7&offset=1")
check(get_json("GET", "/tasks?limit=0")[0] == [], "limit=0 gives []")
check(get_json("GET", "/tasks?offset=100000")[0] == [], "offset past the end gives []")
check(any(not t["title"].isascii() for t in all_tasks) and any('"' in t["title"] for t in all_tasks),
      "sample titles with non-ASCII letters and quotes came back intact")
error("GET", "/tasks?limit=abc", 400, "limit", "'abc'")
error("GET", "/tasks?limit=-1", 400, "limit")
error("GET", "/tasks?after=x", 400, "after", "'x'")
error("GET", "/tasks?done=yes", 400, "done", "true or false")
error("GET", "/tasks?lmit=5", 400, "unknown query parameter 'lmit'")
error("GET", "/tasks?limit=1&limit=2", 400, "given twice")

# GET /tasks/{id}
one, _ = get_json("GET", "/tasks/7")
check(one == rows("WHERE id = 7")[0], f"GET /tasks/7: {one}")
error("GET", "/tasks/999999", 404, "no task with id 999999")
error("GET", "/tasks/abc", 400, "positive integer", "'abc'")
error("GET", "/tasks/0", 400, "positive integer")

# POST /tasks: one object, an array, bulk; every kind of bad body, nothing written by a bad one
created, _ = get_json("POST", "/tasks", {"title": "Write the smoke test"}, status=201)
check(isinstance(created, dict) and created["title"] == "Write the smoke test" and created["done"] is False
      and created == rows("WHERE id = ?", created["id"])[0], f"POST one: {created}")
batch = [{"title": f"bulk {i}", "done": i % 2 == 0, "createdAt": "2024-03-0%d 10:00:00.125" % (i + 1)} for i in range(3)]
created, _ = get_json("POST", "/tasks", batch, status=201)
check([t["title"] for t in created] == ["bulk 0", "bulk 1", "bulk 2"]
      and [t["done"] for t in created] == [True, False, True]
      and created[1]["createdAt"] == "2024-03-02 10:00:00.125", f"POST array: {created}")
check([t["id"] for t in created] == list(range(created[0]["id"], created[0]["id"] + 3)), "ids in input order")
check(created == rows("WHERE id >= ? ORDER BY id", created[0]["id"]), "POST array stored as returned")
created, _ = get_json("POST", "/tasks", raw=b'{"title": "first", "title": "second"}', status=201)
check(created["title"] == "first" and created == rows("WHERE id = ?", created["id"])[0],
      f"a key given twice: the first member counts, as JSONDecoder reads it: {created}")
created, _ = get_json("POST", "/tasks", {"title": "ISO time", "createdAt": "2024-05-01T12:00:00+02:00"}, status=201)
check(created["createdAt"] == "2024-05-01 10:00:00.000", f"createdAt with an offset stored as UTC text: {created}")
before = count()
created, _ = get_json("POST", "/tasks", [{"title": f"thousand {i}"} for i in range(1000)], status=201)
check(len(created) == 1000 and count() == before + 1000, "POST of 1,000 tasks")
check(get_json("POST", "/tasks", [], status=201)[0] == [], "POST [] gives []")
before = count()
error("POST", "/tasks", 400, "malformed JSON", "line 1, column", "byte offset", raw=b'{"title": "x" "done": true}')
error("POST", "/tasks", 400, "malformed JSON", "line 2", raw=b'[{"title": "a"},\n {"title": "b"')
# one rule for every body (RFC 8259): a trailing comma is malformed, object, array or patch
error("POST", "/tasks", 400, "malformed JSON", raw=b'{"title":"x",}')
error("POST", "/tasks", 400, "malformed JSON", raw=b'[{"title":"a"},]')
error("POST", "/tasks", 400, "malformed JSON", raw=b'[{"title":"a",}]')
error("POST", "/tasks", 400, "unknown field 'colour'", body={"title": "x", "colour": "red"})
error("POST", "/tasks", 400, "$.done", "Bool", "string", body={"title": "x", "done": "yes"})
error("POST", "/tasks", 400, "$.title", "String", body={"title": 5})
error("POST", "/tasks", 400, "$.title", "null", body={"title": None})
error("POST", "/tasks", 400, "missing field 'title'", body={"done": True})
error("POST", "/tasks", 400, "title must not be empty", body={"title": "  "})
error("POST", "/tasks", 400, "$[2].done", body=[{"title": "a"}, {"title": "b"}, {"title": "c", "done": 1}])
error("POST", "/tasks", 400, "unknown field 'id'", body=[{"title": "a", "id": 5}])
error("POST", "/tasks", 400, "$.createdAt", body={"title": "a", "createdAt": "yesterday"})
error("POST", "/tasks", 400, "empty request body", raw=b"")
error("POST", "/tasks", 400, raw=b"42")
error("POST", "/tasks", 400, "malformed JSON", raw=b"\xff\xfe not json")
error("POST", "/tasks", 413, "too large", raw=b"[" + b'{"title":"x"},' * 1_300_000 + b'{"title":"x"}]')
error("POST", "/tasks?x=1", 400, "unknown query parameter 'x'", body={"title": "x"})
check(count() == before, f"bad bodies wrote nothing ({before} -> {count()})")

# PATCH /tasks/{id}
patched, _ = get_json("PATCH", "/tasks/1", {"title": "Changed", "done": False})
check(patched == rows("WHERE id = 1")[0] and patched["title"] == "Changed" and patched["done"] is False, f"PATCH: {patched}")
same, _ = get_json("PATCH", "/tasks/1", {})
check(same == patched, "PATCH {} changes nothing")
error("PATCH", "/tasks/1", 400, "unknown field 'titel'", body={"titel": "x"})
error("PATCH", "/tasks/1", 400, "$.done", "null", body={"done": None})
error("PATCH", "/tasks/1", 400, "malformed JSON", raw=b"{")
error("PATCH", "/tasks/1", 400, "malformed JSON", raw=b'{"done":true,}')
error("PATCH", "/tasks/1", 400, "empty request body", raw=b"")
error("PATCH", "/tasks/999999", 404, "no task with id 999999", body={"done": True})
check(rows("WHERE id = 1")[0] == patched, "refused patches changed nothing")

# DELETE /tasks/{id}
code, _, data = req("DELETE", "/tasks/2")
check(code == 204 and data == b"", f"DELETE: {code} {data!r}")
error("DELETE", "/tasks/2", 404, "no task with id 2")
error("GET", "/tasks/2", 404)
check(rows("WHERE id = 2") == [], "deleted from the table")

# The Todo-Backend spec (todobackend.com's specs, run by its browser clients), each step
# against the url the server gives: `completed` and `order` as a Todo-Backend client sends them.
def at(method, url, body=None, status=200):
    check(url.startswith(url_base), f"a task url on this server: {url!r}")
    return get_json(method, url[len(base):], body, status=status)[0]
todo, _ = get_json("POST", "/tasks", {"title": "a todo"}, status=201)
check(todo["title"] == "a todo" and todo["completed"] is False and todo["done"] is False and todo["order"] == 0
      and todo["url"] == url_base + str(todo["id"]), f"Todo-Backend: POST returns the new task, not completed, with its url: {todo}")
check(at("GET", todo["url"]) == todo, "Todo-Backend: GET on the new task's url returns it")
second, _ = get_json("POST", "/tasks", {"title": "another todo", "order": 523, "completed": True}, status=201)
check(second["order"] == 523 and second["completed"] is True and second["done"] is True, f"Todo-Backend: POST with order and completed: {second}")
listing, _ = get_json("GET", f"/tasks?after={todo['id'] - 1}")
check([t["title"] for t in listing] == ["a todo", "another todo"] and all(at("GET", t["url"]) == t for t in listing),
      "Todo-Backend: from the listing to each task by its url")
check(at("PATCH", todo["url"], {"title": "bathe the cat"})["title"] == "bathe the cat", "Todo-Backend: PATCH title")
patched = at("PATCH", todo["url"], {"completed": True})
check(patched["completed"] is True and patched["done"] is True, f"Todo-Backend: PATCH completed: {patched}")
check(at("PATCH", todo["url"], {"order": 95})["order"] == 95, "Todo-Backend: PATCH order")
again = at("GET", todo["url"])
check(again["title"] == "bathe the cat" and again["completed"] is True and again["order"] == 95 and again == rows("WHERE id = ?", todo["id"])[0],
      f"Todo-Backend: the changes are stored: {again}")
both = at("PATCH", todo["url"], {"title": "changed title", "completed": True})
check(both["title"] == "changed title" and both["completed"] is True and at("GET", todo["url"]) == both
      and [t for t in get_json("GET", f"/tasks?after={todo['id'] - 1}")[0] if t["id"] == todo["id"]] == [both],
      f"Todo-Backend: PATCH title and completed at once, seen by GET on the url and in the list: {both}")
check(at("PATCH", todo["url"], {"done": False, "completed": False, "order": -7})["order"] == -7 and rows("WHERE id = ?", todo["id"])[0]["done"] is False,
      "done and completed together when they agree; a negative order")
error("PATCH", f"/tasks/{todo['id']}", 400, "$.completed", "another name for done", body={"done": True, "completed": False})
error("POST", "/tasks", 400, "$.order", body={"title": "x", "order": "first"})
error("POST", "/tasks", 400, "$.order", body={"title": "x", "order": 1.5})
error("POST", "/tasks", 400, "$.order", body={"title": "x", "order": 2 ** 63})
error("PATCH", f"/tasks/{todo['id']}", 400, "$.order", "null", body={"order": None})
error("POST", "/tasks", 400, "unknown field 'url'", body={"title": "x", "url": "http://elsewhere/tasks/1"})
check(rows("WHERE id = ?", todo["id"])[0]["order"] == -7, "refused orders changed nothing")
code, _, data = req("DELETE", todo["url"][len(base):])
check(code == 204, f"Todo-Backend: DELETE the task's url: {code}")
check(req("GET", todo["url"][len(base):])[0] == 404 and todo["id"] not in [t["id"] for t in get_json("GET", f"/tasks?after={todo['id'] - 1}")[0]],
      "Todo-Backend: a deleted task is gone from its url and from the listing")

# The url's host is the request's Host header, whatever it is; without one (HTTP/1.0), or
# with one that is no URL authority, the url is the path alone. Nothing is refused for it.
def raw_request(head, body=b""):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(head + body)
    got = b""
    while True:
        part = s.recv(65536)
        if not part:
            break
        got += part
    s.close()
    status_line, _, rest = got.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]
for host, expected in [(b"Host: tasks.example:8443\r\n", "http://tasks.example:8443/tasks/"), (b"Host: [::1]:80\r\n", "http://[::1]:80/tasks/"),
                       (b"", "/tasks/"), (b"Host: user@evil.example\r\n", "/tasks/"), (b"Host: caf\xc3\xa9.example\r\n", "/tasks/")]:
    code, data = raw_request(b"GET /tasks/7 HTTP/1.0\r\nConnection: close\r\n" + host + b"\r\n")
    check(code == 200 and json.loads(data)["url"] == expected + "7", f"Host {host!r}: {code} {data[:200]!r}")
code, data = raw_request(b"POST /tasks HTTP/1.1\r\nHost: todo.example\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n",
                         b'{"title": "host"}')
check(code == 201 and json.loads(data)["url"].startswith("http://todo.example/tasks/"), f"POST with Host todo.example: {code} {data[:200]!r}")

# GET /tasks/weekly: against PyICU when installed, else the report's own totals
def oracle(locale, tz):
    import datetime, icu
    weeks = {}
    cal = icu.Calendar.createInstance(icu.TimeZone.createTimeZone(tz), icu.Locale(locale))
    F = icu.UCalendarDateFields
    for (created, done) in db.execute("SELECT created_at, done FROM tasks"):
        t = datetime.datetime.strptime(created, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
        cal.setTime(t.timestamp())
        key = "%04d-%02d" % (cal.get(F.YEAR_WOY), cal.get(F.WEEK_OF_YEAR))
        back = (cal.get(F.DAY_OF_WEEK) - cal.getFirstDayOfWeek()) % 7
        day = datetime.date(cal.get(F.YEAR), cal.get(F.MONTH) + 1, cal.get(F.DATE)) - datetime.timedelta(days=back)
        w = weeks.setdefault(key, {"week": key, "weekStart": day.isoformat(), "tasks": 0, "done": 0})
        w["tasks"] += 1
        w["done"] += done
    return [weeks[k] for k in sorted(weeks)]
try:
    import icu
except ImportError:
    icu = None
for locale, tz in [("en_US", "America/New_York"), ("de_DE", "Europe/Berlin"), ("en-GB", "UTC")]:
    report, _ = get_json("GET", f"/tasks/weekly?locale={locale}&tz={tz}")
    check(sum(w["tasks"] for w in report) == count() and [w["week"] for w in report] == sorted(w["week"] for w in report),
          f"weekly {locale}: totals and order")
    if icu:
        check(report == oracle(locale, tz), f"weekly {locale} {tz} equals PyICU's weeks")
print("weekly report checked against", "PyICU" if icu else "its totals only (no PyICU: apt install python3-icu)")
us, _ = get_json("GET", "/tasks/weekly?locale=en_US")
de, _ = get_json("GET", "/tasks/weekly?locale=de_DE")
check(us != de and us[0]["weekStart"] != de[0]["weekStart"], "en_US and de_DE weeks differ")
error("GET", "/tasks/weekly?locale=xx_YY", 400, "locale_week: unknown locale 'xx_YY'")
error("GET", "/tasks/weekly?locale=english", 400, "locale_week: ill-formed locale 'english'")
error("GET", "/tasks/weekly?locale=en_US&tz=Mars/Olympus", 400, "locale_week: unknown time zone 'Mars/Olympus'")
error("GET", "/tasks/weekly", 400, "'locale' is required")
error("GET", "/tasks/weekly?locale=en_US&week=1", 400, "unknown query parameter 'week'")

# Other routes and unknown ones
stats, _ = get_json("GET", "/stats")
check("maxLagMicros" in stats["eventLoop"] and stats["peakRSSKiB"] > 0, f"GET /stats: {stats}")
constant, _ = get_json("GET", "/bench/constant")
check(constant["id"] == 1, "GET /bench/constant")
error("GET", "/nowhere", 404)
for method, path, allow in [("PUT", "/tasks/1", "GET, HEAD, PATCH, DELETE"), ("POST", "/tasks/1", "GET, HEAD, PATCH, DELETE"),
                            ("PUT", "/tasks", "GET, HEAD, POST, DELETE"), ("PATCH", "/tasks", "GET, HEAD, POST, DELETE"),
                            ("DELETE", "/tasks/weekly", "GET, HEAD")]:
    code, headers, data = req(method, path, {"title": "x"})
    check(code == 405 and headers.get("Allow") == allow and f"{method} is not allowed" in json.loads(data)["error"],
          f"{method} {path}: {code} Allow {headers.get('Allow')!r} {data[:120]!r}")
# TRACE and OPTIONS (without CORS) are HTTP's own methods too: 405 with Allow. A method
# outside HTTP's own is 501 Not Implemented on any path, with a JSON body like every error:
# one NIO's parser knows (PROPFIND, PURGE) from the router, one it does not (BREW, a
# lowercase get) from the channel, which then closes the connection; after a pipelined
# request, once that request's response is complete. A malformed header is a JSON 400.
for method in ["TRACE", "OPTIONS"]:
    code, headers, data = req(method, "/tasks/1")
    check(code == 405 and headers.get("Allow") == "GET, HEAD, PATCH, DELETE" and json.loads(data)["status"] == 405,
          f"{method} /tasks/1: {code} Allow {headers.get('Allow')!r} {data[:120]!r}")
def raw_response(head):
    """(status, headers, body) of the one response to `head` sent raw; the server closes."""
    got = raw_exchange(head)
    status_line, _, rest = got.partition(b"\r\n")
    fields, _, body = rest.partition(b"\r\n\r\n")
    headers = dict(line.split(b": ", 1) for line in fields.split(b"\r\n"))
    return int(status_line.split()[1]), headers, body
def raw_exchange(data):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(data)
    got = b""
    while part := s.recv(65536):
        got += part
    s.close()
    return got
for method, path in [("PROPFIND", "/tasks"), ("PURGE", "/nowhere"), ("BREW", "/tasks"), ("get", "/tasks/1"), ("M-SEARCH", "/tasks")]:
    code, headers, data = raw_response(f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    body = json.loads(data) if data.startswith(b"{") else {}
    check(code == 501 and headers.get(b"Content-Type", b"").startswith(b"application/json") and body.get("status") == 501
          and body.get("error", "").startswith((f"{method.replace('-', '')} is not implemented", "unknown HTTP method")),
          f"{method} {path}: {code} {data[:160]!r}, expected a JSON 501")
got = raw_exchange(b"GET /tasks/1 HTTP/1.1\r\nHost: x\r\n\r\nBREW /tasks HTTP/1.1\r\nHost: x\r\n\r\n")
first, _, rest = got.partition(b"\r\n\r\n")
check(first.startswith(b"HTTP/1.1 200") and b"HTTP/1.1 501 Not Implemented" in rest and rest.endswith(b'"status":501}\n'),
      f"BREW pipelined after a GET: the GET's response, then the 501: {got[:400]!r}")
code, headers, data = raw_response(b"GET /tasks/1 HTTP/1.1\r\nHo st: x\r\n\r\n")
check(code == 400 and json.loads(data)["error"].startswith("malformed HTTP request"), f"a malformed header: {code} {data[:160]!r}")
for path, status in [("/tasks", 200), ("/tasks/7", 200), ("/tasks/999999", 404), ("/tasks/weekly?locale=en_US", 200),
                     ("/tasks/weekly", 400)]:
    code, headers, data = req("HEAD", path)
    check(code == status and data == b"" and headers.get("Content-Type", "").startswith("application/json"),
          f"HEAD {path}: {code} {data[:80]!r}, expected {status} and no body")

# Concurrent requests: streamed reads while writers insert; every write lands once
before = count()
results, lock = [], threading.Lock()
def reader():
    for _ in range(5):
        code, _, data = req("GET", "/tasks")
        with lock: results.append(code == 200 and len(json.loads(data)) >= before)
def writer(n):
    for i in range(25):
        code, _, data = req("POST", "/tasks", {"title": f"writer {n}/{i}"})
        with lock: results.append(code == 201)
threads = [threading.Thread(target=reader) for _ in range(4)] + [threading.Thread(target=writer, args=(n,)) for n in range(4)]
for t in threads: t.start()
for t in threads: t.join()
check(all(results) and len(results) == 120, f"concurrent reads and writes: {results.count(False)} failed of {len(results)}")
check(count() == before + 100, f"100 concurrent inserts landed: {before} -> {count()}")
check(db.execute("SELECT count(DISTINCT title) FROM tasks WHERE title LIKE 'writer %'").fetchone()[0] == 100, "each once")

# Streaming: a result of about 20 MB (200,000 more tasks). A client that stops reading
# holds the server to a few chunks in memory (it does not build the whole body); clients
# that hang up mid-body give their reader connection back (4 readers: a leak would hang
# the requests after them); the body read in full is still the table.
for i in range(200):
    code, _, _ = req("POST", "/tasks", [{"title": f"stream {i}.{j}"} for j in range(1000)])
    check(code == 201, "bulk POST for the streaming checks")
def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
def raw_get(path):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return s
full = len(req("GET", "/tasks")[2])
check(full > 16_000_000, f"streaming result size {full}")
time.sleep(0.5)
before_rss = rss_kib()
stalled = raw_get("/tasks")
stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
stalled.recv(65536)
time.sleep(1.0)
grown = rss_kib() - before_rss
check(grown < full // 1024 // 2, f"a stalled client costs the server {grown} KiB, not the body's {full // 1024} KiB")
t0 = time.time()
check(get_json("GET", "/tasks/7")[0]["id"] == 7, "other requests go on while a client stalls")
check(time.time() - t0 < 2, "and quickly")
stalled.close()
for _ in range(12):
    s = raw_get("/tasks")
    s.recv(1024)
    s.close()
results = []
def small():
    code, _, data = req("GET", "/tasks?limit=3")
    with lock: results.append(code == 200 and len(json.loads(data)) == 3)
threads = [threading.Thread(target=small) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join(timeout=20)
check(results == [True] * 8, f"after 12 hung-up clients the readers serve again: {results}")
body = json.loads(req("GET", "/tasks")[2])
check(body == rows("ORDER BY id"), "the full streamed body equals the table")

# DELETE /tasks: every task; ids are not reused after it
highest = db.execute("SELECT max(id) FROM tasks").fetchone()[0]
error("DELETE", "/tasks?all=1", 400, "unknown query parameter 'all'")
code, _, data = req("DELETE", "/tasks")
check(code == 204 and data == b"" and count() == 0, f"DELETE /tasks: {code} {data!r}, {count()} tasks left")
check(get_json("GET", "/tasks")[0] == [], "GET /tasks after DELETE /tasks is []")
created, _ = get_json("POST", "/tasks", {"title": "after clearing"}, status=201)
check(created["id"] > highest, f"the first id after DELETE /tasks is above every earlier one: {created['id']} > {highest}")
listing, _ = get_json("GET", "/tasks")
check(listing == [created] and listing[0]["completed"] is False and isinstance(listing[0]["url"], str),
      f"Todo-Backend: after DELETE /tasks and one POST the root lists that todo alone, not completed, with its url: {listing}")

print(f"tasks server smoke test: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PYTHON

kill -0 "$PID" 2>/dev/null || { cat "$TMP/server.log"; echo "TasksServer died during the test"; exit 1; }
kill "$PID"
wait "$PID" 2>/dev/null || true
PID=
if grep -qiE 'fatal|crash|error' "$TMP/server.log"; then cat "$TMP/server.log"; echo "server log has errors"; exit 1; fi
echo "== TasksServer stopped"

echo "== hostile clients: stalled and slow readers, hang-ups, retried deletes, SIGTERM, kill -9 (about a minute)"
timeout 300 "$PY" scripts/check-tasks-server-clients.py "$BIN"
timeout 300 "$PY" scripts/check-tasks-server-csrf.py "$BIN"
