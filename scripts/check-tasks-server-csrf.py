#!/usr/bin/env python3
"""No web page on another origin can make the tasks server write (cross-site request forgery).

    check-tasks-server-csrf.py PATH/TO/TasksServer

Part of `make test-server` (scripts/check-tasks-server.sh). A browser sends a "simple"
cross-origin POST — a form, or `fetch(…, {mode: "no-cors"})` with a text/plain or
form-encoded body — without asking the server first; it only hides the answer from the page.
So the server must refuse every write whose body is not `application/json` (which a browser
sends cross-origin only after a CORS preflight) and every write whose `Origin` it does not
allow (Examples/TasksServer/Sources/TasksAPI/WriteGuard.swift).

1. Plain HTTP (Python's http.client) against a server started without `--cors-origin`: the
   requests a page can make refused (415, 403) and nothing stored; clients without an Origin,
   and the server's own origin, still write.
2. Headless Chromium on a page served from another origin (a second port of 127.0.0.1), which
   tries every write a page can send without the server's consent: `no-cors` fetches with
   text/plain, form-encoded and JSON-looking bodies, an HTML form posting `text/plain` JSON
   into an iframe, a CORS fetch with a JSON body (the preflight is not answered), a PATCH
   and a DELETE. The page reports when all have settled; then the database must hold none
   of their tasks, and the task the page tried to change must be unchanged.
3. The same server with `--cors-origin` naming that page's origin: its JSON write is then
   allowed (the opt-in still works), a form post still refused.

Prints `csrf: N passed, N failed`; exits 1 on a failure. Stops what it started by PID.
"""
import http.client, http.server, os, re, shutil, sqlite3, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import Tally  # noqa: E402

BIN = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="tasks-csrf-")
tally = Tally("csrf")
check = tally.check
procs = []


def start_server(name, extra=()):
    db = os.path.join(TMP, f"{name}.db")
    log = os.path.join(TMP, f"{name}.log")
    p = subprocess.Popen([BIN, "--port", "0", "--db", db, *extra], stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    procs.append(p)
    deadline = time.time() + 60
    while time.time() < deadline:
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", open(log).read())
        if m:
            return p, int(m.group(1)), db
        if p.poll() is not None:
            sys.exit(f"TasksServer exited: {open(log).read()[-500:]}")
        time.sleep(0.05)
    sys.exit("TasksServer did not listen within 60 s")


def request(port, method, path, body=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


def titles(db):
    con = sqlite3.connect(db)
    try:
        return [t for (t,) in con.execute("SELECT title FROM tasks ORDER BY id")]
    finally:
        con.close()


EVIL = "https://evil.example"
JSON = {"Content-Type": "application/json"}

# 1. plain HTTP
server, port, db = start_server("plain")
own = f"http://127.0.0.1:{port}"
cases = [
    ("POST", "/tasks", b'{"title":"csrf-text-plain"}', {"Origin": EVIL, "Content-Type": "text/plain"}, 403),
    ("POST", "/tasks", b'{"title":"csrf-text-plain-no-origin"}', {"Content-Type": "text/plain"}, 415),
    ("POST", "/tasks", b'title=csrf-form', {"Origin": EVIL, "Content-Type": "application/x-www-form-urlencoded"}, 403),
    ("POST", "/tasks", b'title=csrf-form-no-origin', {"Content-Type": "application/x-www-form-urlencoded"}, 415),
    ("POST", "/tasks", b'{"title":"csrf-no-type"}', {"Origin": EVIL}, 403),
    ("POST", "/tasks", b'{"title":"csrf-json-evil"}', {"Origin": EVIL, **JSON}, 403),
    ("POST", "/tasks", b'{"title":"csrf-json-null-origin"}', {"Origin": "null", **JSON}, 403),
    ("POST", "/tasks", b'[{"title":"csrf-bulk"}]', {"Content-Type": "text/plain;charset=UTF-8"}, 415),
    ("POST", "/tasks", b'{"title":"csrf-json-charset"}', {"Origin": EVIL, "Content-Type": "application/json; charset=utf-8"}, 403),
]
for method, path, body, headers, want in cases:
    status, data = request(port, method, path, body, headers)
    check(status == want, f"{method} {path} {headers}: status {status}, expected {want}: {data[:200]!r}")
    if status >= 400:
        check(b'"error"' in data, f"{method} {path} {headers}: the refusal is not a JSON error: {data[:200]!r}")
status, data = request(port, "POST", "/tasks", b'{"title":"from curl"}', JSON)
check(status == 201, f"a client without an Origin: {status} {data[:200]!r}")
status, data = request(port, "POST", "/tasks", b'{"title":"from the same origin"}', {"Origin": own, **JSON})
check(status == 201, f"the server's own origin: {status} {data[:200]!r}")
status, data = request(port, "PATCH", "/tasks/1", b'{"done":true}', {"Origin": EVIL, **JSON})
check(status == 403, f"PATCH from another origin: {status} {data[:200]!r}")
status, data = request(port, "PATCH", "/tasks/1", b'{"done":true}', {"Content-Type": "text/plain"})
check(status == 415, f"PATCH with a text/plain body: {status} {data[:200]!r}")
status, data = request(port, "DELETE", "/tasks/1", None, {"Origin": EVIL})
check(status == 403, f"DELETE from another origin: {status} {data[:200]!r}")
status, data = request(port, "DELETE", "/tasks/2", None, {})
check(status == 204, f"DELETE without a body from a client without an Origin: {status} {data[:200]!r}")
status, data = request(port, "GET", "/tasks", None, {"Origin": EVIL})
check(status == 200, f"a read from another origin is not a write: {status}")
check(titles(db) == ["from curl"], f"tasks stored: {titles(db)} (only 'from curl' expected)")

# 2. headless Chromium on a page of another origin
PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>another origin</title></head><body>
<iframe name="sink" id="sink"></iframe>
<form id="f" method="POST" action="API/tasks" enctype="text/plain" target="sink">
<input name='{"title":"csrf-form-text-plain","x":"' value='"}'></form>
<script>
const api = "API";
const tries = [
  fetch(api + "/tasks", {method: "POST", mode: "no-cors", body: JSON.stringify({title: "csrf-nocors-text"})}),
  fetch(api + "/tasks", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"},
                         body: JSON.stringify([{title: "csrf-nocors-bulk"}])}),
  fetch(api + "/tasks", {method: "POST", mode: "no-cors",
                         headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: "title=csrf-nocors-form"}),
  fetch(api + "/tasks", {method: "POST", mode: "cors", headers: {"Content-Type": "application/json"},
                         body: JSON.stringify({title: "csrf-cors-json"})}),
  fetch(api + "/tasks/1", {method: "PATCH", mode: "cors", headers: {"Content-Type": "application/json"},
                           body: JSON.stringify({title: "csrf-patched"})}),
  fetch(api + "/tasks/1", {method: "DELETE", mode: "cors"}),
  new Promise(resolve => {
    document.getElementById("sink").addEventListener("load", resolve);
    document.getElementById("f").submit();
    setTimeout(resolve, 5000);
  }),
];
Promise.allSettled(tries).then(r => fetch("/done", {method: "POST", body: JSON.stringify(r.map(x => x.status))}));
</script></body></html>"""

done = threading.Event()
report = {}


def serve_page(api):
    body = PAGE.replace("API", api).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            report["settled"] = self.rfile.read(n).decode()
            self.send_response(204)
            self.end_headers()
            done.set()

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def run_browser(page_url):
    done.clear()
    profile = tempfile.mkdtemp(dir=TMP)
    b = subprocess.Popen(["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          "--disable-extensions", f"--user-data-dir={profile}", page_url],
                         stdout=subprocess.DEVNULL, stderr=open(os.path.join(TMP, "chromium.log"), "wb"))
    procs.append(b)
    ok = done.wait(60)
    b.terminate()
    try:
        b.wait(10)
    except subprocess.TimeoutExpired:
        b.kill()
    return ok


if shutil.which("chromium") is None:
    check(False, "chromium is not installed (make test-server installs it through scripts/ensure-deps.sh)")
else:
    before = titles(db)
    page = serve_page(own)
    ok = run_browser(f"http://127.0.0.1:{page.server_address[1]}/attack.html")
    check(ok, "the page's requests did not settle within 60 s (chromium log: " + os.path.join(TMP, "chromium.log") + ")")
    after = titles(db)
    check(after == before, f"a page on another origin changed the tasks: {before} -> {after}")
    check(not any(t.startswith("csrf") for t in after), f"a page on another origin stored tasks: {after}")
    page.shutdown()

    # 3. the origin allowed by --cors-origin
    page = serve_page("")
    origin = f"http://127.0.0.1:{page.server_address[1]}"
    page.shutdown()
    server2, port2, db2 = start_server("allowed", ["--cors-origin", origin])
    status, data = request(port2, "POST", "/tasks", b'{"title":"from the allowed origin"}', {"Origin": origin, **JSON})
    check(status == 201, f"JSON from the allowed origin {origin}: {status} {data[:200]!r}")
    status, data = request(port2, "POST", "/tasks", b'{"title":"csrf-form"}', {"Origin": origin, "Content-Type": "text/plain"})
    check(status == 415, f"a text/plain body from the allowed origin: {status} {data[:200]!r}")
    status, data = request(port2, "POST", "/tasks", b'{"title":"csrf-other"}', {"Origin": EVIL, **JSON})
    check(status == 403, f"JSON from an origin not allowed: {status} {data[:200]!r}")
    check(titles(db2) == ["from the allowed origin"], f"tasks stored with --cors-origin: {titles(db2)}")

for p in procs:
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
shutil.rmtree(TMP, ignore_errors=True)
tally.finish()
