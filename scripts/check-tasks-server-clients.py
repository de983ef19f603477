#!/usr/bin/env python3
"""Hostile clients against Examples/TasksServer (make test-server, after the smoke test).

    check-tasks-server-clients.py PATH/TO/TasksServer [PART...]

(PART: the name of a function below, e.g. `framing slow_heads`, to run only those.)

Starts the server on 127.0.0.1 (a free port, temporary databases, short deadlines:
--client-timeout 2, --shutdown-grace 3, 2 readers, handlers on Swift's pool so every read
needs a reader) and checks that it keeps answering within its deadlines, and loses nothing
it acknowledged, whatever its clients do:

  stalled readers    more clients than readers send GET /tasks and stop reading: other
                     reads, the weekly report and writes still answer; the stalled
                     connections are closed after the client timeout, their bodies cut short
  slow readers       a client that reads slowly but steadily gets the whole body, equal to the
                     table, while other requests answer; with every reader held by one, other
                     reads get 503 + Retry-After after --reader-wait, not an endless queue
  hang-ups           request bodies cut short (closed, half-closed, stalled) and responses
                     abandoned mid-body: 4xx or a closed connection, never a 500, nothing
                     written, readers given back
  retried deletes    a DELETE retried after another client created a task never removes it
                     (ids are never reused)
  bad stored data    what POST/PATCH accept never breaks a route later; a server fault is a
                     500 saying "internal error ID", no SQL, the ID in the log
  SIGTERM            under load and with a stalled client: exits within the grace period,
                     every acknowledged task is in the database file alone (WAL checkpointed)
  kill -9            under load, then a restart: every acknowledged task is there, and new
                     ids are above every id ever given
  an older table     a tasks table from before AUTOINCREMENT, or from before `order`
                     (sort_order), is rebuilt on start: the same rows and ids, order 0, and
                     from then on ids are never reused (nor the highest one ever given)
  browsers           --cors-origin: the OPTIONS preflight answered for the origins given,
                     Access-Control-Allow-Origin on their answers, nothing for others
  HTTP/1 framing     two Host headers or none (HTTP/1.1), Transfer-Encoding in HTTP/1.0:
                     400 in the JSON of every error, nothing stored, the connection
                     closed; an HTTP/1.0 request without keep-alive: its answer, then the
                     connection closed; with keep-alive, or HTTP/1.1: it stays open
  slow heads         clients dribbling request heads a byte a second past the connection
                     cap, under a descriptor limit (prlimit --nofile=256, where 300 of them
                     locked every client out until the idle timeout): a new client is
                     answered at once (the longest-waiting head gives way), a head not whole
                     within the client timeout is disconnected; with every connection busy,
                     the newest is answered 503
  a 16 MiB POST      144,000 tasks in one request: the server's peak RSS grows by less than
                     48 MiB (three times the body; the response is ~38 MB), the response is
                     whole and equals the table; a bad last element stores nothing

Every wait is bounded; the script stops every server it started, by its PID.
"""
import json, os, re, shutil, signal, socket, sqlite3, subprocess, sys, tempfile, threading, time
import urllib.error, urllib.request

BIN = sys.argv[1]
ONLY = set(sys.argv[2:])
TMP = tempfile.mkdtemp(prefix="tasks-clients-")
CLIENT_TIMEOUT, GRACE = 2, 3
passed = failed = 0
servers = []


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, flush=True)


class Server:
    """One TasksServer process on its own database file."""

    def __init__(self, name, sample=0, db=None, extra=()):
        self.db = db or os.path.join(TMP, f"{name}.db")
        self.log = os.path.join(TMP, f"{name}.log")
        self.proc = subprocess.Popen(
            [BIN, "--port", "0", "--db", self.db, "--sample", str(sample), "--readers", "2",
             "--executor-threads", "0", "--client-timeout", str(CLIENT_TIMEOUT),
             "--shutdown-grace", str(GRACE), "--log-level", "notice", *extra],
            stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        servers.append(self)
        deadline = time.time() + 60
        self.port = None
        while time.time() < deadline and self.port is None:
            m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", open(self.log, "rb").read())
            if m:
                self.port = int(m.group(1))
            elif self.proc.poll() is not None:
                break
            else:
                time.sleep(0.05)
        if self.port is None:
            sys.exit(f"{name}: TasksServer did not start:\n{open(self.log).read()}")

    def req(self, method, path, body=None, raw=None, timeout=CLIENT_TIMEOUT + 4):
        """(status, headers, body); status None when no answer came within `timeout`."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        r = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                   headers={"Content-Type": "application/json"} if data is not None else {})
        try:
            with urllib.request.urlopen(r, timeout=timeout) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()
        except (TimeoutError, socket.timeout, urllib.error.URLError, ConnectionError) as e:
            return None, None, str(e).encode()

    def raw(self, head, rcvbuf=None):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.settimeout(CLIENT_TIMEOUT + 6)
        s.connect(("127.0.0.1", self.port))
        s.sendall(head)
        return s

    def stop(self, sig=signal.SIGTERM, within=GRACE + 8):
        """Sends `sig`; the exit status, or None when it had not exited within `within` s."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=within)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def log_text(self):
        return open(self.log, errors="replace").read()


def answers_in_time(server, what, method, path, status, body=None, limit=CLIENT_TIMEOUT + 4):
    t0 = time.time()
    code, _, data = server.req(method, path, body, timeout=limit)
    took = time.time() - t0
    check(code == status, f"{what}: {method} {path} gave {code} in {took:.1f} s, expected {status} within {limit} s: {data[:200]!r}")
    return data


def read_to_eof(s, limit):
    """Everything the socket delivers until EOF; None when EOF did not come within `limit` s."""
    got, deadline = bytearray(), time.time() + limit
    while time.time() < deadline:
        s.settimeout(max(0.05, deadline - time.time()))
        try:
            part = s.recv(1 << 16)
        except socket.timeout:
            return None
        except ConnectionResetError:
            return bytes(got)
        if not part:
            return bytes(got)
        got += part
    return None


def table(db, where="", url_base="http://x/tasks/"):
    """The tasks as the server shows them to a client that sent `Host: x` (a table of an
    earlier version, without sort_order, as order 0)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        order = "sort_order" if "sort_order" in [r[1] for r in c.execute("PRAGMA table_info(tasks)")] else "0"
        return [{"id": r[0], "title": r[1], "done": bool(r[2]), "createdAt": r[3], "completed": bool(r[2]), "order": r[4],
                 "url": url_base + str(r[0])}
                for r in c.execute(f"SELECT id, title, done, created_at, {order} FROM tasks {where} ORDER BY id")]


def poster(server, name, acked, stop, batch=1):
    """Posts tasks until `stop`; records (id, title) of every one acknowledged with 201."""
    i = 0
    while not stop.is_set():
        titles = [f"{name} {i}.{j}" for j in range(batch)]
        body = [{"title": t} for t in titles] if batch > 1 else {"title": titles[0]}
        code, _, data = server.req("POST", "/tasks", body, timeout=10)
        if code == 201:
            got = json.loads(data)
            for t in (got if batch > 1 else [got]):
                acked.append((t["id"], t["title"]))
        elif code is None:
            return  # the server went away: nothing was acknowledged
        i += 1


def slow_reader(server, path, pause=0.1):
    """A thread reading GET `path` at 64 KiB every `pause` s, and the dict where it puts the
    decoded body."""
    result = {}

    def run():
        c = server.raw(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode(), rcvbuf=65536)
        got = bytearray()
        while True:
            time.sleep(pause)
            part = c.recv(1 << 16)
            if not part:
                break
            got += part
        c.close()
        head, _, body = bytes(got).partition(b"\r\n\r\n")
        if b"chunked" in head.lower():
            out, rest = bytearray(), body
            while rest:
                size, _, rest = rest.partition(b"\r\n")
                n = int(size, 16)
                if n == 0:
                    break
                out += rest[:n]
                rest = rest[n + 2:]
            body = bytes(out)
        result["body"] = body

    t = threading.Thread(target=run)
    t.start()
    return t, result


def stalled_and_slow_readers():
    s = Server("stall", sample=100_000, extra=["--reader-wait", "1"])
    expected_size = len(s.req("GET", "/tasks", timeout=60)[2])
    check(expected_size > 6_000_000, f"GET /tasks is {expected_size} bytes (more than the socket buffers hold)")

    # Three stalled clients for two readers: each reads 1 KiB of GET /tasks and stops. The
    # third finds both readers held: it gets a 503 after --reader-wait, or a reader once the
    # first two are let go.
    stalled = []
    for _ in range(3):
        c = s.raw(b"GET /tasks HTTP/1.1\r\nHost: x\r\n\r\n", rcvbuf=4096)
        try:
            first = c.recv(1024)
        except socket.timeout:
            first = b""
            check(False, f"stalled client {len(stalled) + 1} got no response head within {CLIENT_TIMEOUT + 6} s")
        if first.startswith(b"HTTP/1.1 503"):
            c.close()
        else:
            stalled.append(c)
    check(len(stalled) >= 2, f"{len(stalled)} of 3 stalled clients got a reader")
    time.sleep(0.3)
    started = time.time()
    answers_in_time(s, "while 3 clients stall", "GET", "/tasks?limit=5", 200)
    answers_in_time(s, "while 3 clients stall", "GET", "/tasks/weekly?locale=en_US&tz=America/New_York", 200)
    answers_in_time(s, "while 3 clients stall", "GET", "/tasks/7", 200)
    answers_in_time(s, "while 3 clients stall", "POST", "/tasks", 201, body={"title": "during the stall"})
    # The stalled connections are closed by the server: their bodies end short of the result.
    # (The third got a reader when the first two were let go; reading a socket before its
    # deadline would make it a fast client, whose keep-alive connection stays open.)
    time.sleep(max(0, started + 2 * CLIENT_TIMEOUT + 2 - time.time()))
    for n, c in enumerate(stalled):
        rest = read_to_eof(c, CLIENT_TIMEOUT + 6)
        check(rest is not None, f"stalled connection {n + 1} is closed by the server ({time.time() - started:.1f} s)")
        check(rest is None or 1024 + len(rest) < expected_size, "a stalled client's body is cut short, never complete")
        c.close()
    check(time.time() - started < 3 * CLIENT_TIMEOUT + 10, f"stalled clients released in {time.time() - started:.1f} s")
    # The WAL does not grow for ever once stalled readers are gone (checkpoints complete).
    for i in range(50):
        s.req("POST", "/tasks", [{"title": f"after the stall {i}.{j}"} for j in range(200)])
    time.sleep(0.2)
    wal = os.path.getsize(s.db + "-wal")
    check(wal < 8_000_000, f"WAL after 10,000 inserts past the stall: {wal} bytes")

    # A slow reader that keeps reading (64 KiB every 0.1 s, ~1.5 MB in all) gets it all.
    expected = table(s.db, "WHERE id <= 20000")
    t, result = slow_reader(s, "/tasks?limit=20000")
    time.sleep(0.5)
    for _ in range(5):
        answers_in_time(s, "while a client reads slowly", "GET", "/tasks?limit=3", 200)
        answers_in_time(s, "while a client reads slowly", "GET", "/tasks/9", 200)
        time.sleep(0.2)
    t.join(timeout=60)
    check(result.get("body") and json.loads(result["body"]) == expected,
          f"the slow reader's body equals the table ({len(result.get('body', b''))} bytes)")

    # As many steady slow readers as readers: another read is not queued behind them without
    # bound but answered 503 with Retry-After once --reader-wait (1 s) has passed. (The whole
    # table, ~8 MB at ~1.3 MB/s each: more than the socket buffers take, so the statements run
    # and hold their readers while the clients read.)
    expected = table(s.db)
    readers = [slow_reader(s, "/tasks", pause=0.05) for _ in range(2)]
    time.sleep(0.5)
    busy = 0
    for _ in range(3):
        t0 = time.time()
        code, headers, data = s.req("GET", "/tasks?limit=5", timeout=8)
        took = time.time() - t0
        check(code in (200, 503) and took < 3, f"with every reader held by a slow client: {code} in {took:.1f} s")
        if code == 503:
            busy += 1
            check(headers.get("Retry-After") == "1" and "busy" in json.loads(data)["error"], f"503: {dict(headers)} {data!r}")
    check(busy > 0, "with every reader held by slow clients, reads are answered 503 (busy)")
    for t, result in readers:
        t.join(timeout=60)
        check(result.get("body") and json.loads(result["body"]) == expected, "each slow reader still gets the whole body")
    check(s.proc.poll() is None, "the server is still running")
    check(s.stop() == 0, "the server stops cleanly after stalled and slow readers")


def hang_ups(s):
    before = len(table(s.db))
    head = b"POST /tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    part = b'[{"title":"half"},' + b'{"title":"half"},' * 20
    # Closed mid-body, ten times.
    for _ in range(10):
        c = s.raw(head + part)
        c.close()
    # Half-closed mid-body: the body is shorter than its Content-Length, a client mistake.
    c = s.raw(head + part)
    c.shutdown(socket.SHUT_WR)
    answer = read_to_eof(c, CLIENT_TIMEOUT + 4) or b""
    c.close()
    status = answer.split(b" ", 2)[1] if answer.startswith(b"HTTP/1.1 ") else b"(none)"
    check(not status.startswith(b"5"), f"a body shorter than its Content-Length: {status!r}, not a 5xx")
    # Stalled mid-body: disconnected after the client timeout.
    c = s.raw(head + part)
    t0 = time.time()
    answer = read_to_eof(c, CLIENT_TIMEOUT + 4)
    c.close()
    check(answer is not None, f"a client that stops sending its body is disconnected ({time.time() - t0:.1f} s)")
    # Responses abandoned mid-body: the readers come back.
    for _ in range(12):
        c = s.raw(b"GET /tasks HTTP/1.1\r\nHost: x\r\n\r\n")
        c.recv(1024)
        c.close()
    for _ in range(4):
        answers_in_time(s, "after 12 abandoned responses", "GET", "/tasks?limit=3", 200)
    check(len(table(s.db)) == before, "bodies cut short wrote nothing")
    log = s.log_text()
    check(not re.search(r"\berror\b", log), "no error-level log line for client hang-ups:\n" + log[-2000:])


def retried_deletes(s):
    issued, lost, lock = [], [], threading.Lock()

    def client(n):
        for i in range(40):
            code, _, data = s.req("POST", "/tasks", {"title": f"retry {n}.{i}"})
            if code != 201:
                continue
            tid = json.loads(data)["id"]
            with lock:
                issued.append(tid)
            s.req("DELETE", f"/tasks/{tid}")
            time.sleep(0.001 * n)
            code, _, _ = s.req("DELETE", f"/tasks/{tid}")  # the retry: must find nothing
            if code != 404:
                with lock:
                    lost.append((tid, code))

    threads = [threading.Thread(target=client, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    check(len(issued) == 120 and len(set(issued)) == len(issued), f"ids never given twice ({len(issued)} issued, {len(set(issued))} distinct)")
    check(lost == [], f"retried deletes removed other clients' tasks: {lost[:5]}")
    code, _, data = s.req("POST", "/tasks", {"title": "after the deletes"})
    check(code == 201 and json.loads(data)["id"] > max(issued), "a new id is above every id given before")


def status_of(answer):
    return int(answer.split(b" ", 2)[1]) if answer and answer.startswith(b"HTTP/1.") else None


def framing(s):
    before = len(table(s.db))
    cases = (
        ("two Host headers", b"GET /tasks?limit=1 HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", b"2 Host headers"),
        ("no Host header in HTTP/1.1", b"GET /tasks?limit=1 HTTP/1.1\r\n\r\n", b"no Host header"),
        ("Transfer-Encoding in HTTP/1.0",
         b"POST /tasks HTTP/1.0\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
         b'11\r\n{"title":"te10"}\r\n0\r\n\r\n', b"Transfer-Encoding in an HTTP/1.0 request"),
        ("two Host headers after a good request",
         b"GET /tasks?limit=1 HTTP/1.1\r\nHost: x\r\n\r\nGET /tasks?limit=1 HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
         b"2 Host headers"),
    )
    for what, request, words in cases:
        c = s.raw(request)
        answer = read_to_eof(c, CLIENT_TIMEOUT + 4)
        c.close()
        last = answer[answer.rfind(b"HTTP/1.1 400 ") + 9:] if answer and b"HTTP/1.1 400 " in answer else b""
        check(answer is not None and last.startswith(b"400 ") and words in last and b'"status":400' in last,
              f"{what}: want 400 naming it, then the connection closed; got {answer!r}")
        if what.endswith("good request"):
            check(answer is not None and answer.startswith(b"HTTP/1.1 200 "), f"{what}: the good request answered first: {answer!r}")
    check(len(table(s.db)) == before, "a refused HTTP/1.0 chunked POST stored nothing")
    # HTTP/1.0 without keep-alive: answered, then closed
    c = s.raw(b"GET /tasks?limit=1 HTTP/1.0\r\nHost: x\r\n\r\n")
    answer = read_to_eof(c, 3)
    c.close()
    check(answer is not None and status_of(answer) == 200 and b"connection: close" in answer.lower(),
          f"HTTP/1.0 without keep-alive: 200 with Connection: close, then the connection closed; got {answer!r}")
    # HTTP/1.0 with keep-alive, and HTTP/1.1: two requests on one connection
    for request in (b"GET /tasks?limit=1 HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n",
                    b"GET /tasks?limit=1 HTTP/1.1\r\nHost: x\r\n\r\n"):
        c = s.raw(request)
        c.settimeout(5)
        first = c.recv(65536)
        c.sendall(request)
        time.sleep(0.3)
        second = c.recv(65536)
        c.close()
        line = request.split(b"\r\n")[0]
        check(status_of(first) == 200 and status_of(second) == 200,
              f"{line!r} with keep-alive: two answers on one connection; got {first[:60]!r}, {second[:60]!r}")


def slow_heads():
    """Clients dribbling request heads past the cap: others are still answered at once."""
    db = os.path.join(TMP, "slowheads.db")
    log = os.path.join(TMP, "slowheads.log")
    proc = subprocess.Popen(["prlimit", "--nofile=256", BIN, "--port", "0", "--db", db, "--sample", "10",
                             "--readers", "2", "--executor-threads", "0", "--client-timeout", "4",
                             "--log-level", "notice"], stdout=open(log, "ab"), stderr=subprocess.STDOUT)
    port = None
    deadline = time.time() + 60
    while time.time() < deadline and port is None:
        m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", open(log, "rb").read())
        if m:
            port = int(m.group(1))
        elif proc.poll() is not None:
            break
        else:
            time.sleep(0.05)
    try:
        check(port is not None, f"the server starts under prlimit --nofile=256: {open(log).read()[-500:]}")
        if port is None:
            return
        slow, stop = [], threading.Event()
        for _ in range(300):
            c = socket.create_connection(("127.0.0.1", port))
            c.sendall(b"G")
            slow.append(c)

        def dribble():
            # one more head byte a second on every slow connection
            for k in range(20):
                if stop.wait(1):
                    return
                for c in slow:
                    try:
                        c.sendall(b"ET /tasks HTTP/1.1\r\nHost: x\r\n"[k:k + 1])
                    except OSError:
                        pass
        t = threading.Thread(target=dribble, daemon=True)
        t.start()
        try:
            for attempt in range(3):
                t0 = time.time()
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/tasks?limit=1", timeout=3) as r:
                        code = r.status
                except Exception as e:
                    code = str(e)
                check(code == 200 and time.time() - t0 < 3,
                      f"with 300 slow heads open, a new client is answered at once: {code} after {time.time() - t0:.1f} s")
                time.sleep(0.5)
            # a head not whole within the client timeout (4 s) is disconnected
            time.sleep(5)
            closed = 0
            for c in slow:
                c.settimeout(0.01)
                try:
                    closed += c.recv(1) == b""
                except (socket.timeout, BlockingIOError):
                    pass
                except OSError:
                    closed += 1
            check(closed == len(slow), f"slow heads disconnected after the client timeout: {closed} of {len(slow)}")
        finally:
            stop.set()
            t.join()
            for c in slow:
                c.close()
    finally:
        proc.kill()
        proc.wait()
    text = open(log, errors="replace").read()
    check("sent no whole request head" in text, "the log names the slow heads it disconnected")


def busy_connections():
    """With every connection of a small cap in the middle of a request, the newest gets 503."""
    s = Server("busy", sample=10, extra=("--max-connections", "3"))
    head = b"POST /tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[{"
    busy = [s.raw(head) for _ in range(3)]
    time.sleep(0.3)
    c = s.raw(b"GET /tasks?limit=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = read_to_eof(c, 3)
    c.close()
    check(status_of(answer) == 503 and b"retry-after: 1" in (answer or b"").lower() and b'"status":503' in (answer or b""),
          f"with 3 of 3 connections busy, a fourth is answered 503 with Retry-After and closed; got {answer!r}")
    for b in busy:
        b.close()
    time.sleep(0.3)
    answers_in_time(s, "once the busy connections are gone", "GET", "/tasks?limit=1", 200)
    # idle keep-alive connections give way instead
    idle = [s.raw(b"GET /tasks?limit=1 HTTP/1.1\r\nHost: x\r\n\r\n") for _ in range(3)]
    for i in idle:
        i.recv(65536)
    answers_in_time(s, "with 3 of 3 connections idle", "GET", "/tasks?limit=1", 200)
    for i in idle:
        i.close()
    check(s.stop() == 0, "the busy server stops cleanly")


def stored_data(s):
    # Values POST/PATCH used to accept that broke a route or the CHECK later.
    for body, needle in [({"title": "x", "createdAt": "0000-01-01 00:00:00"}, "createdAt"),
                         ({"title": "x", "createdAt": "9999-12-31 23:59:59.999"}, "createdAt"),
                         ({"title": "x", "createdAt": 2460431.5}, "not a number"),
                         ({"title": "\u0000x"}, "U+0000"),
                         ({"title": "a\u0000b"}, "U+0000")]:
        code, _, data = s.req("POST", "/tasks", body)
        check(code == 400 and needle in json.loads(data).get("error", ""), f"POST {body!r}: {code} {data[:200]!r}")
        code, _, data = s.req("PATCH", "/tasks/9", body)
        check(code == 400, f"PATCH {body!r}: {code} {data[:200]!r}")
    code, _, data = s.req("POST", "/tasks", {"title": "x", "createdAt": "0001-01-01 00:00:00"})
    check(code == 201, f"the earliest createdAt is accepted: {code} {data[:200]!r}")
    code, _, data = s.req("POST", "/tasks", {"title": "x", "createdAt": "9998-12-31 23:59:59.999"})
    check(code == 201, f"the latest createdAt is accepted: {code} {data[:200]!r}")
    for locale, tz in [("en_US", "America/New_York"), ("de_DE", "Europe/Berlin"), ("ja_JP", "Asia/Tokyo"),
                       ("en_US", "Pacific/Kiritimati"), ("en_US", "Etc/GMT+12")]:
        answers_in_time(s, "with the earliest and latest tasks stored", "GET", f"/tasks/weekly?locale={locale}&tz={tz}", 200)


def internal_error():
    s = Server("fault", sample=10)
    with sqlite3.connect(s.db) as c:
        c.execute("DROP TABLE tasks")  # an operator's mistake: every route now fails in SQLite
    code, _, data = s.req("GET", "/tasks/1")
    body = json.loads(data or b"{}")
    message = body.get("error", "")
    m = re.fullmatch(r"internal error ([0-9a-f]+)", message)
    check(code == 500 and m is not None, f"a server fault is a 500 saying 'internal error ID': {code} {data[:200]!r}")
    check(b"SELECT" not in data and b"tasks" not in data, f"the 500 body shows no SQL or schema: {data[:200]!r}")
    s.stop()
    if m:
        line = [l for l in s.log_text().splitlines() if m.group(1) in l]
        check(line and "no such table" in line[0], f"the log line carries the id and the cause: {line}")


def stopped_under_load(name, sig, batch):
    """A server with 1,000 tasks, three clients posting (one `batch` tasks a request, two one
    task a request) for 1.5 s, then `sig`: (server, acknowledged (id, title), exit status, seconds)."""
    s = Server(name, sample=1000)
    acked, stop = [], threading.Event()
    threads = [threading.Thread(target=poster, args=(s, f"{name}{n}", acked, stop, 1 if n else batch)) for n in range(3)]
    for t in threads:
        t.start()
    time.sleep(1.5)
    t0 = time.time()
    status = s.stop(sig)
    took = time.time() - t0
    stop.set()
    for t in threads:
        t.join(timeout=30)
    return s, acked, status, took


def sigterm():
    s, acked, status, took = stopped_under_load("term", signal.SIGTERM, 50)
    check(status == 0, f"SIGTERM under load: exit status {status} after {took:.1f} s (grace {GRACE} s)")
    check(len(acked) > 0, f"tasks were acknowledged before SIGTERM ({len(acked)})")
    wal = s.db + "-wal"
    check(not os.path.exists(wal) or os.path.getsize(wal) == 0, "the WAL is checkpointed and empty after a clean exit")
    alone = os.path.join(TMP, "copy-of-term.db")
    shutil.copyfile(s.db, alone)  # the database file alone, as a backup would copy it
    stored = {t["id"]: t["title"] for t in table(alone)}
    missing = [a for a in acked if stored.get(a[0]) != a[1]]
    check(len(stored) >= 1000 + len(acked) and missing == [],
          f"the database file alone holds every acknowledged task ({len(acked)} acknowledged, {len(missing)} missing)")

    # With a stalled client: SIGTERM still ends the process within the grace period.
    s = Server("term-stalled", sample=100_000)
    c = s.raw(b"GET /tasks HTTP/1.1\r\nHost: x\r\n\r\n", rcvbuf=4096)
    c.recv(1024)
    body = s.raw(b"POST /tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
    time.sleep(0.3)
    t0 = time.time()
    status = s.stop(signal.SIGTERM)
    took = time.time() - t0
    check(status == 0 and took < GRACE + 5, f"SIGTERM with stalled clients: exit status {status} after {took:.1f} s")
    c.close()
    body.close()


def cors():
    def call(server, method, path, origin, extra=None):
        r = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}", method=method,
                                   headers={"Origin": origin, **(extra or {})})
        try:
            with urllib.request.urlopen(r, timeout=10) as resp:
                return resp.status, resp.headers
        except urllib.error.HTTPError as e:
            return e.code, e.headers

    preflight = {"Access-Control-Request-Method": "DELETE", "Access-Control-Request-Headers": "content-type"}
    s = Server("cors", sample=10, extra=["--cors-origin", "http://app.example", "--cors-origin", "http://other.example"])
    for origin in ["http://app.example", "http://other.example"]:
        code, h = call(s, "OPTIONS", "/tasks/3", origin, preflight)
        check(code in (200, 204) and h.get("Access-Control-Allow-Origin") == origin
              and "DELETE" in h.get("Access-Control-Allow-Methods", "") and "PATCH" in h.get("Access-Control-Allow-Methods", "")
              and "content-type" in h.get("Access-Control-Allow-Headers", "").lower(),
              f"preflight from {origin}: {code} {dict(h or {})}")
        code, h = call(s, "GET", "/tasks/3", origin)
        check(code == 200 and h.get("Access-Control-Allow-Origin") == origin, f"GET from {origin}: {code} {dict(h or {})}")
    code, h = call(s, "GET", "/tasks/3", "http://evil.example")
    check(code == 200 and h.get("Access-Control-Allow-Origin") is None, f"GET from another origin: no CORS header {dict(h or {})}")
    code, h = call(s, "OPTIONS", "/tasks", "http://evil.example", preflight)
    check(h is None or h.get("Access-Control-Allow-Origin") is None, f"preflight from another origin: {code} {dict(h or {})}")
    check(s.stop() == 0, "the CORS server stops cleanly")
    s = Server("cors-any", sample=10, extra=["--cors-origin", "*"])
    code, h = call(s, "OPTIONS", "/tasks", "http://anywhere.example", preflight)
    check(code in (200, 204) and h.get("Access-Control-Allow-Origin") == "*", f"preflight with --cors-origin '*': {code} {dict(h or {})}")
    check(s.stop() == 0, "the CORS server stops cleanly")
    s = Server("cors-none", sample=10)
    code, h = call(s, "GET", "/tasks/3", "http://app.example")
    check(code == 200 and h.get("Access-Control-Allow-Origin") is None, "no --cors-origin: no CORS header")
    check(s.stop() == 0, "the server without CORS stops cleanly")


def older_table():
    db = os.path.join(TMP, "older.db")
    with sqlite3.connect(db) as c:
        c.executescript("""
            CREATE TABLE tasks(id INTEGER PRIMARY KEY,
              title TEXT NOT NULL CHECK (typeof(title) = 'text' AND length(title) > 0),
              done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)), created_at TEXT NOT NULL);
            CREATE INDEX tasks_done ON tasks(done, id);
            INSERT INTO tasks VALUES (1, 'one', 0, '2024-01-01 00:00:00.000'), (2, 'two', 1, '2024-01-02 00:00:00.000'),
                                     (7, 'seven', 0, '2024-01-07 00:00:00.000');""")
    before = table(db)
    s = Server("older", db=db)
    check(table(db) == before, "the rebuilt table has the same rows and ids")
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        sql = c.execute("SELECT sql FROM sqlite_schema WHERE name = 'tasks'").fetchone()[0]
        index = c.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'tasks_done'").fetchone()[0]
    check("AUTOINCREMENT" in sql and index == 1, f"the rebuilt table: {sql!r}, index {index}")
    ids = []
    for _ in range(2):
        code, _, data = s.req("POST", "/tasks", {"title": "new"})
        ids.append(json.loads(data)["id"] if code == 201 else None)
        s.req("DELETE", f"/tasks/{ids[-1]}")
    check(ids == [8, 9], f"after the rebuild new ids follow the largest and are not reused: {ids}")
    check(s.stop() == 0, "the server on the rebuilt table stops cleanly")

    # A table with AUTOINCREMENT but no sort_order (before the Todo-Backend `order`), whose
    # newest tasks were deleted: rebuilt with the same rows and ids, order 0, and the highest
    # id it ever gave (sqlite_sequence, above every id left) is still never reused.
    db = os.path.join(TMP, "before-order.db")
    with sqlite3.connect(db) as c:
        c.executescript("""
            CREATE TABLE tasks(id INTEGER PRIMARY KEY AUTOINCREMENT,
              title TEXT NOT NULL CHECK (typeof(title) = 'text' AND length(title) > 0),
              done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)), created_at TEXT NOT NULL);
            CREATE INDEX tasks_done ON tasks(done, id);
            INSERT INTO tasks VALUES (3, 'three', 1, '2024-01-03 00:00:00.000'), (40, 'forty', 0, '2024-02-09 00:00:00.000'),
                                     (50, 'fifty', 0, '2024-02-19 00:00:00.000');
            DELETE FROM tasks WHERE id = 50;""")
    before = table(db)
    s = Server("before-order", db=db)
    check(table(db) == before and [t["order"] for t in before] == [0, 0], "the table rebuilt for order has the same rows and ids, order 0")
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        sql = c.execute("SELECT sql FROM sqlite_schema WHERE name = 'tasks'").fetchone()[0]
        index = c.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'tasks_done'").fetchone()[0]
        others = c.execute("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'tasks_%' AND name <> 'tasks_done'").fetchone()[0]
    check("AUTOINCREMENT" in sql and "sort_order" in sql and index == 1 and others == 0, f"the rebuilt table: {sql!r}, index {index}, {others} others")
    code, _, data = s.req("GET", "/tasks")
    check(code == 200 and json.loads(data) == table(db, url_base=f"http://127.0.0.1:{s.port}/tasks/"),
          f"GET /tasks on the rebuilt table: {code} {data[:300]!r}")
    code, _, data = s.req("POST", "/tasks", {"title": "new", "order": 4})
    task = json.loads(data) if code == 201 else {}
    check(task.get("id") == 51 and task.get("order") == 4, f"after the rebuild the first new id is above the highest ever given (50): {data[:200]!r}")
    check(s.stop() == 0, "the server on the table rebuilt for order stops cleanly")


def kill_and_restart():
    s, acked, _, _ = stopped_under_load("kill", signal.SIGKILL, 100)
    highest = max(a[0] for a in acked)
    # The newest tasks go, so that only AUTOINCREMENT keeps their ids from coming back.
    r = Server("kill-restarted", db=s.db)
    for tid in range(highest - 5, highest + 1):
        r.req("DELETE", f"/tasks/{tid}")
    stored = {t["id"]: t["title"] for t in table(r.db)}
    missing = [a for a in acked if a[0] < highest - 5 and stored.get(a[0]) != a[1]]
    check(missing == [], f"after kill -9 and a restart every acknowledged task is there ({len(acked)} acknowledged, {len(missing)} missing)")
    code, _, data = r.req("POST", "/tasks", {"title": "after the restart"})
    check(code == 201 and json.loads(data)["id"] > highest, f"after a restart a new id is above every id given ({data[:100]!r}, highest {highest})")
    check(r.stop() == 0, "the restarted server stops cleanly")


def bulk_memory():
    """A 16 MiB bulk POST (144,000 tasks with 100-letter titles, a ~38 MB response): the
    server's peak RSS grows by the body and the copy the decoder reads (2 x 16 MiB) and a
    1 MiB response buffer, not by the decoded tasks nor the response (before: about 80 MiB
    here, 150 MiB and more with short titles); the response is complete (Content-Length) and
    equals the table; a bad last element rolls back every task before it."""
    s = Server("bulk")
    item = b'{"title":"' + b"x" * 100 + b'"}'
    n = ((16 << 20) - 1) // (len(item) + 1)
    body = b"[" + b",".join([item] * n) + b"]"
    check(16 << 20 > len(body) > (16 << 20) - len(item) - 2, f"the bulk body is just under 16 MiB ({len(body)} bytes)")

    def peak_growth_kib(method, path, data):
        with open(f"/proc/{s.proc.pid}/clear_refs", "w") as f:
            f.write("5")  # VmHWM := VmRSS
        before = proc_kib(s, "VmHWM")
        code, headers, answer = s.req(method, path, raw=data, timeout=600)
        return code, headers, answer, proc_kib(s, "VmHWM") - before

    code, headers, answer, grown = peak_growth_kib("POST", "/tasks", body)
    created = json.loads(answer) if code == 201 else []
    check(code == 201 and len(created) == n and int(headers.get("Content-Length", -1)) == len(answer),
          f"POST of {n} tasks: {code}, {len(created)} tasks, Content-Length {headers and headers.get('Content-Length')} for {len(answer)} bytes")
    check(created == table(s.db, url_base=f"http://127.0.0.1:{s.port}/tasks/"), "the bulk response equals the table")
    check(grown < 48 * 1024, f"a 16 MiB bulk POST grows the server's peak RSS by {grown // 1024} MiB (bound 48 MiB; the response is {len(answer) >> 20} MiB)")
    leftovers = [f for f in os.listdir(os.path.dirname(s.db)) if f.startswith(".tasks-response-")]
    check(leftovers == [], f"no temporary response file is left: {leftovers}")

    bad = body[:-1] + b',{"title":"last","done":"yes"}]'
    code, _, answer, grown = peak_growth_kib("POST", "/tasks", bad)
    check(code == 400 and f"$[{n}].done".encode() in answer, f"a bad last element of {n + 1}: {code} {answer[:200]!r}")
    check(len(table(s.db)) == n, "and none of the tasks before it is stored")
    check(s.stop() == 0, "the server stops cleanly after the bulk POSTs")


def full_disk_log():
    """Standard output and error on a full disk (/dev/full: every write fails with ENOSPC), the
    log at its most talkative: the server starts, answers, logs its client errors and stops on
    SIGTERM with status 0 (a failed write of its port line or of a log line ended it with
    SIGILL: FileHandle.write traps on a failed write)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    db = os.path.join(TMP, "full-disk.db")
    full = open("/dev/full", "wb")
    proc = subprocess.Popen([BIN, "--port", str(port), "--db", db, "--log-level", "trace"], stdout=full, stderr=full)
    full.close()
    deadline, code = time.time() + 60, None
    while time.time() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/tasks", timeout=5) as resp:
                code = resp.status
                break
        except (urllib.error.URLError, ConnectionError, socket.timeout):
            time.sleep(0.1)
    check(code == 200, f"a server logging to a full disk answers (status {code}, exit {proc.poll()})")
    r = urllib.request.Request(f"http://127.0.0.1:{port}/tasks", data=b"{", method="POST",
                               headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(r, timeout=5)
        bad = 200
    except urllib.error.HTTPError as e:
        bad = e.code
    except (urllib.error.URLError, ConnectionError, socket.timeout):
        bad = None
    check(bad == 400, f"a server logging to a full disk answers a malformed body with 400 (got {bad})")
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        status = proc.wait(timeout=GRACE + 8)
    except subprocess.TimeoutExpired:
        proc.kill()
        status = "still running"
    check(status == 0, f"a server logging to a full disk stops on SIGTERM with status 0, not {status}")


def proc_kib(server, field):
    for line in open(f"/proc/{server.proc.pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])


OTHERS = {"hang_ups", "framing", "retried_deletes", "stored_data"}


def others():
    s = Server("others", sample=1000)
    for part in (hang_ups, framing, retried_deletes, stored_data):
        section(part, s)
    check(s.stop() == 0, "the server stops cleanly after the hostile clients")


def section(part, *args):
    """Runs one part; an exception (a hung server: a socket timeout) is a failure, and the rest still runs."""
    if ONLY and part.__name__ not in ONLY and not (part.__name__ == "others" and ONLY & OTHERS):
        return
    try:
        part(*args)
    except Exception as e:
        check(False, f"{part.__name__}: {type(e).__name__}: {e}")


try:
    for part in (stalled_and_slow_readers, others, slow_heads, busy_connections, bulk_memory, internal_error, older_table, cors, sigterm, kill_and_restart,
                 full_disk_log):
        section(part)
finally:
    for s in servers:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
    if failed:
        print("logs kept in", TMP)
    else:
        shutil.rmtree(TMP, ignore_errors=True)

print(f"tasks server hostile clients: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
