#!/usr/bin/env python3
"""The real Todo-Backend spec in a headless browser against Examples/TasksServer.

    check-tasks-server-todobackend.py SPEC_DIR PATH/TO/TasksServer

SPEC_DIR is a checkout of https://github.com/TodoBackend/todo-backend-js-spec (not part of
this repository, nor of `make test-server`, which checks the same contracts with our own
code in scripts/check-tasks-server.sh). The script:

  * starts TasksServer on a free 127.0.0.1 port with an empty temporary database and
    `--cors-origin` set to the origin that serves the spec (the spec's pages call the
    server cross-origin, as todobackend.com does);
  * serves SPEC_DIR on another free port, with one page of ours beside it that loads the
    spec's scripts as its index.html does, then reports each spec's result back to this
    script when mocha has run them all;
  * runs headless `chromium` on that page with `?http://127.0.0.1:PORT/tasks` (the API root
    the spec targets: `/tasks`; a task's fields as the spec expects them: `completed`,
    `order`, `url`, see Examples/TasksServer/README.md) and prints every spec, passed or
    failed with the spec's own message.

Exits 0 when every spec passed. Stops the server and the browser it started by their PIDs.
"""
import http.server, json, os, re, shutil, signal, subprocess, sys, tempfile, threading, time

SPEC, BIN = sys.argv[1], sys.argv[2]
if not os.path.exists(os.path.join(SPEC, "js", "specs.js")):
    sys.exit(f"{SPEC}: no js/specs.js (a checkout of TodoBackend/todo-backend-js-spec is expected)")
TMP = tempfile.mkdtemp(prefix="todobackend-")
results = {}
done = threading.Event()

# The spec's index.html without its form and GitHub ribbon, plus a reporter: every test's
# result (mocha's `pass`/`fail` events, hooks included) posted to /results at `end`.
RUNNER = """<!doctype html><html><head><meta charset="utf-8"><title>Todo-Backend spec</title></head><body>
<section id="target-chooser"><input><button></button></section><section id="target-info"><span class="target-url"></span></section>
<section id="mocha"></section>
<script src="js/lib/underscore.js"></script><script src="js/lib/jquery.js"></script><script src="js/lib/q.js"></script>
<script src="js/lib/chai.js"></script><script src="js/lib/chai-as-promised.js"></script><script src="js/lib/mocha.js"></script>
<script src="js/specs.js"></script><script src="js/setup.js"></script>
<script>(function () {
  var out = [];
  runner.on("pass", function (t) { out.push({title: t.fullTitle(), state: "passed"}); });
  runner.on("fail", function (t, err) { out.push({title: t.fullTitle(), state: "failed", error: String(err && err.message)}); });
  runner.on("end", function () {
    var x = new XMLHttpRequest(); x.open("POST", "/results"); x.send(JSON.stringify({tests: out, total: runner.total}));
  });
})();</script></body></html>"""


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=SPEC, **kwargs)

    def do_GET(self):
        if self.path.split("?")[0] == "/runner.html":
            body = RUNNER.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            super().do_GET()

    def do_POST(self):
        data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        results.update(json.loads(data))
        self.send_response(204)
        self.end_headers()
        done.set()

    def log_message(self, *args):
        pass


static = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=static.serve_forever, daemon=True).start()
origin = f"http://127.0.0.1:{static.server_address[1]}"

log = os.path.join(TMP, "server.log")
server = subprocess.Popen([BIN, "--port", "0", "--db", os.path.join(TMP, "tasks.db"), "--cors-origin", origin],
                          stdout=open(log, "wb"), stderr=subprocess.STDOUT)
browser = None
try:
    port, deadline = None, time.time() + 60
    while port is None and time.time() < deadline and server.poll() is None:
        m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", open(log, "rb").read())
        port = int(m.group(1)) if m else time.sleep(0.05)
    if port is None:
        sys.exit(f"TasksServer did not start:\n{open(log).read()}")
    root = f"http://127.0.0.1:{port}/tasks"
    browser = subprocess.Popen(
        ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         f"--user-data-dir={os.path.join(TMP, 'profile')}", f"{origin}/runner.html?{root}"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(TMP, "chromium.log"), "wb"))
    if not done.wait(timeout=180):
        sys.exit("the spec did not finish within 180 s (chromium log: " + os.path.join(TMP, "chromium.log") + ")")
finally:
    for p in (browser, server):
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    static.shutdown()

tests = results.get("tests", [])
for t in tests:
    print(("PASS " if t["state"] == "passed" else "FAIL ") + t["title"])
    if t["state"] != "passed":
        print("     " + t["error"].strip().replace("\n", "\n     "))
passed = sum(t["state"] == "passed" for t in tests)
print(f"Todo-Backend spec against {root}: {passed} of {results.get('total')} specs passed")
server_log = open(log, errors="replace").read()
if re.search(r"\berror\b", server_log):
    print("server log:\n" + server_log)
shutil.rmtree(TMP, ignore_errors=True)
sys.exit(0 if tests and passed == len(tests) == results.get("total") else 1)
