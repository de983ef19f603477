#!/usr/bin/env bash
# Load benchmark of the tasks backend: TasksServer (StreamQLite: rows streamed to JSON by
# writeJSON, bodies decoded by JSONValueDecoder, bulk inserts) against TasksServerGRDB (the
# same routes the usual way: GRDB + JSONEncoder/JSONDecoder), both on Hummingbird 2,
# release builds, measured with wrk on 127.0.0.1 in the same run.
#
#   Examples/TasksServer/bench/run.sh       # DURATION=10 CONNECTIONS="1 4" TASKS=100000 by default
#   CHECK_ONLY=1 Examples/TasksServer/bench/run.sh   # only the check that both servers give the same answers
#                                                    # (every measured route and the weekly report)
#   SINGLE_ROUNDS=7 DURATION=5 Examples/TasksServer/bench/run.sh
#       # only the single-task comparison: GET /tasks/{id} against GET /bench/constant on the
#       # same server, wrk -c1, alternated ROUNDS times (the order flips every round) for each
#       # server variant, all started at once on copies of the database (idle while another
#       # is measured); prints every run, then per variant and case the medians of requests/s,
#       # p50, p99 and server CPU per request, and the medians of the per-round ratios to the
#       # constant body. SINGLE_CASES: "constant constid single" (constid = the route work of
#       # /tasks/{id} with the constant body: GET /bench/constant/{id}).
#       # VARIANTS: lines "label|binary|arguments"; by default the pool's executor (requests
#       # handled on the pool's threads, point reads inline: --executor-threads 2) and the hop
#       # (--executor-threads 0: handlers on Swift's pool, each read hops to a reader thread).
#
# Cases (DURATION seconds each, for each wrk connection count in CONNECTIONS):
#   constant   GET /bench/constant       TasksServer's constant one-task body (the baseline)
#   single     GET /tasks/{random id}    one task by id
#   list128    GET /tasks?limit=128&after={random id}    (keyset paging: offset=N would step
#   list1024   GET /tasks?limit=1024&after={random id}    over N rows, in both servers alike)
#   post1000   POST /tasks with an array of 1,000 tasks
# Prints requests/s, tasks/s, latency p50/p99 (wrk --latency), the server's peak RSS during
# the case (VmHWM, reset before each case through /proc/PID/clear_refs) and the largest
# event-loop timer lag the server saw (GET /stats), and the server's CPU time (user + system,
# /proc/PID/stat) per request: less sensitive than requests/s to what else the machine runs;
# wrk's own CPU time per request (GNU time), and from both the tasks/s two otherwise idle
# cores would serve (2 CPU-seconds per second / (server + client CPU per request) x tasks). Both servers start from copies of one
# database of TASKS sample tasks, one server at a time. wrk and the server share the machine.
set -euo pipefail
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-"1 4"}
TASKS=${TASKS:-100000}
HERE=$(cd "$(dirname "$0")" && pwd)
PKG=$(dirname "$HERE")
GRDB_PKG=$(dirname "$PKG")/TasksServerGRDB
export PATH=/opt/swift/usr/bin:$PATH
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk"; exit 1; }

# SQ_BIN / GRDB_BIN: already built release binaries to use instead of building here.
if [ -z "${SQ_BIN:-}" ]; then
    echo "== release build of TasksServer"
    swift build -c release --package-path "$PKG" --scratch-path "$PKG/.build" --product TasksServer 2>&1 | tail -1
    SQ_BIN="$(swift build -c release --package-path "$PKG" --scratch-path "$PKG/.build" --show-bin-path)/TasksServer"
fi
if [ -z "${GRDB_BIN:-}" ] && [ -z "${SINGLE_ROUNDS:-}" ]; then
    echo "== release build of TasksServerGRDB"
    swift build -c release --package-path "$GRDB_PKG" --scratch-path "$GRDB_PKG/.build" --product TasksServerGRDB 2>&1 | tail -1
    GRDB_BIN="$(swift build -c release --package-path "$GRDB_PKG" --scratch-path "$GRDB_PKG/.build" --show-bin-path)/TasksServerGRDB"
fi

WORK=$(mktemp -d)
PID=
OTHER_PIDS=""
cleanup() {
    for p in $PID $OTHER_PIDS; do
        if kill -0 "$p" 2>/dev/null; then kill "$p"; wait "$p" 2>/dev/null || true; fi
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

# start BIN DB: starts a server on a free loopback port; sets PID and PORT
start() {
    "$1" --port 0 --db "$2" ${3:-} > "$WORK/server.log" 2>&1 &
    PID=$!
    PORT=
    for _ in $(seq 1 600); do
        PORT=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$WORK/server.log")
        [ -n "$PORT" ] && return 0
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    cat "$WORK/server.log"; echo "server did not start"; exit 1
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=; }

echo "== sample database: $TASKS tasks"
start "$SQ_BIN" "$WORK/seed.db" "--sample $TASKS"
stop
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" "$WORK/seed.db"

# wrk scripts: random ids and offsets; the POST body is 1,000 tasks
cat > "$WORK/single.lua" <<LUA
math.randomseed(42)
request = function() return wrk.format("GET", "/tasks/" .. math.random(1, $TASKS)) end
LUA
cat > "$WORK/constant.lua" <<LUA
math.randomseed(42)
request = function() return wrk.format("GET", "/bench/constant") end
LUA
cat > "$WORK/constid.lua" <<LUA
math.randomseed(42)
request = function() return wrk.format("GET", "/bench/constant/" .. math.random(1, $TASKS)) end
LUA
for n in 128 1024; do
cat > "$WORK/list$n.lua" <<LUA
math.randomseed(42)
request = function() return wrk.format("GET", "/tasks?limit=$n&after=" .. math.random(0, $TASKS - $n)) end
LUA
done
python3 - "$WORK/post1000.json" <<'PY'
import json, sys
tasks = [{"title": f"Benchmark task {i} ✓", "done": i % 2 == 0, "createdAt": "2024-06-%02d 09:30:00.000" % (i % 28 + 1)} for i in range(1000)]
open(sys.argv[1], "w").write(json.dumps(tasks))
PY
cat > "$WORK/post1000.lua" <<LUA
local f = io.open("$WORK/post1000.json", "rb")
wrk.method = "POST"
wrk.path = "/tasks"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
LUA

# Both servers answer the same requests with the same data (compared as JSON).
if [ -z "${SINGLE_ROUNDS:-}" ]; then
echo "== same answers from both servers"
cp "$WORK/seed.db" "$WORK/a.db"; cp "$WORK/seed.db" "$WORK/b.db"
start "$SQ_BIN" "$WORK/a.db"; A=$PORT; APID=$PID; PID=
start "$GRDB_BIN" "$WORK/b.db"; B=$PORT
python3 - "$A" "$B" "$WORK/post1000.json" <<'PY' || { kill $APID; exit 1; }
import json, sys, urllib.error, urllib.request
a, b, post = sys.argv[1], sys.argv[2], open(sys.argv[3], "rb").read()
def fetch(port, path, body=None, method=None):
    r = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method or ("POST" if body else "GET"))
    if body:
        r.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(r) as resp:
        text = resp.read()
    # Each task's url has the Host the client sent, so the server's own port: compared without it.
    def unported(v):
        if isinstance(v, list):
            return [unported(t) for t in v]
        if isinstance(v, dict) and isinstance(v.get("url"), str):
            return {**v, "url": v["url"].replace(f"http://127.0.0.1:{port}/", "http://HOST/")}
        return v
    return unported(json.loads(text))
for path in ["/tasks/1", "/tasks/777", "/tasks?limit=128&after=5000", "/tasks?limit=1024&after=0",
             "/tasks?done=true&limit=100&offset=50", "/tasks?done=false&after=99000"]:
    x, y = fetch(a, path), fetch(b, path)
    assert x == y, f"{path}: servers differ"
# The weekly report (locale weeks in a time zone): ICU through SQL here, Foundation's Calendar there.
total = len(fetch(a, "/tasks"))
for path in ["/tasks/weekly?locale=en_US&tz=America/New_York", "/tasks/weekly?locale=de_DE&tz=Europe/Berlin",
             "/tasks/weekly?locale=ar_EG&tz=UTC", "/tasks/weekly?locale=en_GB"]:
    # (Not Africa/Cairo: Debian 12's ICU 72 carries time zone data from before Egypt brought
    # back summer time in 2023, Foundation's own ICU has it, and 2024 weeks differ by an hour.)
    x, y = fetch(a, path), fetch(b, path)
    assert x == y, f"{path}: servers differ"
    assert sum(w["tasks"] for w in x) == total and len(x) >= 26, f"{path}: {len(x)} weeks, {sum(w['tasks'] for w in x)} tasks of {total}"
for port in (a, b):
    try:
        fetch(port, "/tasks/weekly?locale=en_US&tz=Mars/Olympus")
        raise AssertionError(f"port {port}: an unknown time zone was accepted")
    except urllib.error.HTTPError as e:
        assert e.code == 400 and "Mars/Olympus" in json.loads(e.read())["error"], f"port {port}: {e.code}"
x, y = fetch(a, "/tasks", post), fetch(b, "/tasks", post)
assert len(x) == len(y) == 1000 and x == y, "POST answers differ"
# The Todo-Backend fields: completed (done's other name), order, url; PATCH of each; DELETE.
todo = json.dumps({"title": "a todo", "order": 523, "completed": True, "createdAt": "2024-07-01 08:00:00.000"}).encode()
x, y = fetch(a, "/tasks", todo), fetch(b, "/tasks", todo)
assert x == y and x["order"] == 523 and x["completed"] is True and x["url"] == f"http://HOST/tasks/{x['id']}", f"POST with order: {x} {y}"
for change in [{"order": 95}, {"completed": False}, {"title": "bathe the cat", "done": True, "order": -1}]:
    body = json.dumps(change).encode()
    x, y = fetch(a, f"/tasks/{x['id']}", body, "PATCH"), fetch(b, f"/tasks/{y['id']}", body, "PATCH")
    assert x == y and all(x[k] == v for k, v in change.items()), f"PATCH {change}: {x} {y}"
assert fetch(a, f"/tasks/{x['id']}") == fetch(b, f"/tasks/{y['id']}") == x, "GET after PATCH"
print("   same bodies for /tasks/{id}, limit=128, limit=1024, the weekly report (4 locales/zones), POST of 1,000,"
      " and the Todo-Backend fields (completed, order, url) through POST, PATCH and GET")
PY
kill $APID; wait $APID 2>/dev/null || true; stop
fi
[ -n "${CHECK_ONLY:-}" ] && { echo "== CHECK_ONLY: no load test"; exit 0; }

echo "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); wrk -t1, ${DURATION}s per case"
RESULTS="$WORK/results.txt"
printf "%-11s %-9s %4s %11s %12s %9s %9s %9s %8s %8s %8s %12s\n" server case conn "requests/s" "tasks/s" "p50" "p99" "peakRSS" "maxLag" "cpu/req" "wrk/req" "2core-tasks/s" | tee "$RESULTS"

# The server's CPU time (user + system) so far, in clock ticks.
cputicks() { awk '{print $14 + $15}' /proc/$PID/stat; }

# run SERVER CASE LUA TASKS_PER_REQUEST CONNECTIONS
run() {
    curl -s "http://127.0.0.1:$PORT/stats?reset=true" >/dev/null
    echo 5 > /proc/$PID/clear_refs 2>/dev/null || true
    local t0; t0=$(cputicks)
    /usr/bin/time -f "%U %S" -o "$WORK/wrkcpu.txt" \
        wrk -t1 -c"$5" -d"${DURATION}s" --latency -s "$3" "http://127.0.0.1:$PORT" > "$WORK/wrk.txt" 2>&1
    local ticks=$(( $(cputicks) - t0 )) requests
    requests=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
    if grep -q "Non-2xx" "$WORK/wrk.txt" || grep -q "Socket errors" "$WORK/wrk.txt"; then
        cat "$WORK/wrk.txt"; echo "$1 $2: errors during the run"; exit 1
    fi
    local rps p50 p99 rss lag
    rps=$(awk '/^Requests\/sec/ {print $2}' "$WORK/wrk.txt")
    p50=$(awk '$1 == "50%" {print $2}' "$WORK/wrk.txt")
    p99=$(awk '$1 == "99%" {print $2}' "$WORK/wrk.txt")
    rss=$(awk '/^VmHWM/ {printf "%.0fMB", $2/1024}' /proc/$PID/status)
    lag=$(curl -s "http://127.0.0.1:$PORT/stats" | python3 -c "import json,sys; print('%.1fms' % (json.load(sys.stdin)['eventLoop']['maxLagMicros']/1000))")
    local cpu wrkcpu cap
    cpu=$(echo "$ticks * 1000000 / $(getconf CLK_TCK) / $requests" | bc)
    wrkcpu=$(awk -v n="$requests" '{printf "%.0f", ($1 + $2) * 1000000 / n}' "$WORK/wrkcpu.txt")
    # What two otherwise idle cores would serve: 2 CPU-seconds per second over server + client CPU per request.
    cap=$(echo "2000000 * $4 / ($cpu + $wrkcpu)" | bc)
    printf "%-11s %-9s %4s %11.0f %12.0f %9s %9s %9s %8s %6sus %6sus %12s\n" "$1" "$2" "$5" "$rps" "$(echo "$rps * $4" | bc)" "$p50" "$p99" "$rss" "$lag" "$cpu" "$wrkcpu" "$cap" | tee -a "$RESULTS"
}

if [ -n "${SINGLE_ROUNDS:-}" ]; then
    VARIANTS=${VARIANTS:-"inline|$SQ_BIN|--executor-threads 2
hop|$SQ_BIN|--executor-threads 0"}
    # constid: GET /bench/constant/{random id}, the route work of /tasks/{id} with the
    # constant body (servers from before it existed: SINGLE_CASES="constant single").
    SINGLE_CASES=${SINGLE_CASES:-"constant constid single"}
    declare -A PIDS PORTS
    LABELS=()
    while IFS='|' read -r label bin args; do
        [ -n "$label" ] || continue
        cp "$WORK/seed.db" "$WORK/$label.db"
        start "$bin" "$WORK/$label.db" "$args"
        PIDS[$label]=$PID; PORTS[$label]=$PORT; OTHER_PIDS="$OTHER_PIDS $PID"; PID=
        LABELS+=("$label")
        # The answers are the task (checked against the database file) and a 404.
        python3 - "$PORT" "$WORK/seed.db" "$label" <<'PY'
import json, sqlite3, sys, urllib.error, urllib.request
port, db, label = sys.argv[1:]
row = sqlite3.connect(db).execute("SELECT id, title, done, created_at, sort_order FROM tasks WHERE id = 777").fetchone()
got = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/tasks/777").read())
assert got == {"id": row[0], "title": row[1], "done": bool(row[2]), "createdAt": row[3], "completed": bool(row[2]),
               "order": row[4], "url": f"http://127.0.0.1:{port}/tasks/777"}, (label, got, row)
try:
    urllib.request.urlopen(f"http://127.0.0.1:{port}/tasks/999999999"); raise AssertionError(label + ": no 404")
except urllib.error.HTTPError as e:
    assert e.code == 404
PY
    done <<< "$VARIANTS"
    echo "   servers: ${LABELS[*]}; each answers /tasks/777 as the database has it"
    for r in $(seq 1 "$SINGLE_ROUNDS"); do
        for label in "${LABELS[@]}"; do
            PID=${PIDS[$label]}; PORT=${PORTS[$label]}
            if (( r % 2 )); then order=$SINGLE_CASES; else order=$(echo $SINGLE_CASES | tr ' ' '\n' | tac | tr '\n' ' '); fi
            for case in $order; do run "$label" "$case" "$WORK/$case.lua" 1 1; done
        done
    done
    PID=
    echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "== medians over $SINGLE_ROUNDS rounds (ratio: of each round's single and constant runs)"
    python3 - "$RESULTS" <<'PY'
import statistics, sys
runs = {}
def us(text):  # wrk's latency: 123.45us, 1.23ms, 1.00s
    for unit, f in (("us", 1), ("ms", 1e3), ("s", 1e6)):
        if text.endswith(unit): return float(text[:-len(unit)]) * f
    raise ValueError(text)
lines = open(sys.argv[1]).read().split("\n")[1:]
for line in filter(None, lines):
    f = line.split()
    runs.setdefault(f[0], {}).setdefault(f[1], []).append((float(f[3]), us(f[5]), us(f[6]), float(f[9].rstrip("us"))))
med = statistics.median
# Per case: medians; ratios to the same round's constant run (requests/s: constant over the
# case, so higher is slower; p50 and CPU per request: the case over constant).
print("%-8s %-9s %11s %7s %9s %7s %9s %11s %7s" % ("variant", "case", "requests/s", "ratio", "p50", "ratio", "p99", "cpu/req", "ratio"))
for label, cases in runs.items():
    c = cases["constant"]
    for case, x in cases.items():
        rps = med([a[0] / b[0] for a, b in zip(c, x)])
        p50 = med([b[1] / a[1] for a, b in zip(c, x)])
        cpu = med([b[3] / a[3] for a, b in zip(c, x)])
        print("%-8s %-9s %11.0f %7.3f %7.0fus %7.3f %7.0fus %9.0fus %7.3f" % (
            label, case, med(v[0] for v in x), rps, med(v[1] for v in x), p50, med(v[2] for v in x), med(v[3] for v in x), cpu))
PY
    exit 0
fi

for c in $CONNECTIONS; do
    for server in StreamQLite GRDB; do
        if [ $server = StreamQLite ]; then bin=$SQ_BIN; else bin=$GRDB_BIN; fi
        cp "$WORK/seed.db" "$WORK/run.db"; rm -f "$WORK/run.db-wal" "$WORK/run.db-shm"
        start "$bin" "$WORK/run.db"
        [ $server = StreamQLite ] && run $server constant "$WORK/constant.lua" 1 "$c"
        run $server single "$WORK/single.lua" 1 "$c"
        run $server list128 "$WORK/list128.lua" 128 "$c"
        run $server list1024 "$WORK/list1024.lua" 1024 "$c"
        run $server post1000 "$WORK/post1000.lua" 1000 "$c"
        stop
    done
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
