#!/usr/bin/env bash
# A replicated cluster answers the weekly report, loses its leader, and answers it the same.
#
#   bash scripts/check-cluster.sh build/libstreamqlite-preload.so      (make test-cluster)
#
# Three dqlite nodes (Debian's go-dqlite: `dqlite-demo` nodes, the `dqlite` shell as the
# client) on free 127.0.0.1 ports, each with the preload library (LD_PRELOAD), which
# registers the extension's functions in every connection the node opens
# (Extension/preload/streamqlite_preload.c). Then:
#   1. the sample Usage table (sql/demo/create-usage.sql) is written through the cluster;
#   2. README's weekly report through the cluster equals the same query in the local
#      sqlite3 shell with build/streamqlite.so on the same data (the oracle);
#   3. the leader's process is killed (SIGKILL, no handover); a new leader is elected among the two others,
#      which answer the report the same and still take writes;
#   4. a node without the preload library answers `no such function: locale_week`
#      (so the library is what makes 2 work), and the default preload mode has no
#      file readers (`no such table: json_stream`).
# Every wait is bounded (TIMEOUT, default 60 s each); the nodes are stopped by their PIDs
# and their data removed on exit, whatever happens.
set -euo pipefail
preload=$(readlink -f "${1:-build/libstreamqlite-preload.so}")
repo=$(cd "$(dirname "$0")/.." && pwd)
ext="$repo/build/streamqlite.so"
limit=${TIMEOUT:-60}
say() { echo "check-cluster: $*"; }
fail() { echo "check-cluster: FAILED: $*" >&2; exit 1; }
[ -f "$preload" ] || fail "$preload not found (make preload)"
[ -f "$ext" ] || fail "$ext not found (make)"
for c in dqlite dqlite-demo sqlite3; do
  command -v "$c" >/dev/null || fail "'$c' not found: apt-get install go-dqlite sqlite3 (scripts/ensure-deps.sh installs them)"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamqlite-cluster.XXXXXX")
pids=()
cleanup() {
  # SIGKILL: on SIGTERM a dqlite-demo node first hands its leadership over, which waits
  # forever once the other nodes are gone.
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# Four free loopback ports (three nodes and the control node), and one API port each.
mapfile -t ports < <(python3 - <<'PY'
import socket
socks = [socket.socket() for _ in range(8)]
for s in socks: s.bind(("127.0.0.1", 0))
for s in socks: print(s.getsockname()[1])
PY
)
declare -A pid_of
start_node() {   # start_node N DBPORT APIPORT PRELOAD [JOIN]
  local n=$1 db=127.0.0.1:$2 api=127.0.0.1:$3 pre=$4 join=${5:-}
  mkdir -p "$tmp/n$n"
  LD_PRELOAD=$pre dqlite-demo --db "$db" --api "$api" --dir "$tmp/n$n" ${join:+--join "$join"} \
    > "$tmp/n$n.log" 2>&1 &
  pids+=($!); pid_of[$db]=$!
}
until_ok() {     # until_ok WHAT CMD…: retries CMD every 0.2 s for at most $limit seconds
  local what=$1 deadline=$((SECONDS + limit)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { tail -5 "$tmp"/n*.log >&2; fail "no $what after ${limit} s"; }
    sleep 0.2
  done
}
q() { timeout 20 dqlite -s "$servers" demo "$@"; }

n1=127.0.0.1:${ports[0]}; n2=127.0.0.1:${ports[1]}; n3=127.0.0.1:${ports[2]}
servers="$n1,$n2,$n3"
start=$SECONDS
start_node 1 "${ports[0]}" "${ports[4]}" "$preload"
until_ok "first node" q ".leader"
start_node 2 "${ports[1]}" "${ports[5]}" "$preload" "$n1"
start_node 3 "${ports[2]}" "${ports[6]}" "$preload" "$n1"
three_voters() { [ "$(q ".cluster" | grep -c '|voter$')" = 3 ]; }
until_ok "cluster of three voters" three_voters
say "three nodes on $servers, all voters, in $((SECONDS - start)) s"

# 1. The data, written through the cluster (the shell takes several statements at once;
#    comments are dropped because it reads a leading "--" as an option).
usage_sql=$(sed 's/--.*$//' "$repo/sql/demo/create-usage.sql" | tr '\n' ' ')
q "$usage_sql" >/dev/null || fail "writing the Usage table through the cluster"

# 2. README's report, through the cluster and in the local shell (the oracle).
report="SELECT locale_week(Date, 'en_US') AS week, locale_week_start(Date, 'en_US') AS starts,
        ROUND(SUM(Value) * 1.0 / SUM(Visits), 2) AS per_visit
  FROM Usage WHERE Date BETWEEN '2010-12-20' AND '2011-01-16 23:59:59' GROUP BY week ORDER BY week"
oracle=$(sqlite3 -bail -cmd ".load ${ext%.so}" :memory: ".read $repo/sql/demo/create-usage.sql" "$report")
[ "$(wc -l <<<"$oracle")" = 5 ] || fail "the local report has not 5 weeks: $oracle"
before=$(q "$report") || fail "the report through the cluster: $before"
[ "$before" = "$oracle" ] || fail "the cluster's report differs from the local shell's
--- local
$oracle
--- cluster
$before"
say "the weekly report through the cluster equals the local shell's ($(wc -l <<<"$before") weeks)"

# 3. Stop the leader; the other two elect one and answer the same.
leader=$(q ".leader")
[ -n "${pid_of[$leader]:-}" ] || fail "the leader '$leader' is none of our nodes"
kill -KILL "${pid_of[$leader]}"    # a crash: SIGTERM would hand the leadership over first
wait "${pid_of[$leader]}" 2>/dev/null || true
t0=$SECONDS
new_leader() { local l; l=$(q ".leader") && [ -n "$l" ] && [ "$l" != "$leader" ]; }
until_ok "new leader after stopping $leader" new_leader
say "stopped the leader $leader (pid ${pid_of[$leader]}); new leader $(q ".leader") within $((SECONDS - t0)) s"
servers=$(tr ',' '\n' <<<"$servers" | grep -vx "$leader" | paste -sd,)
after=$(q "$report") || fail "the report after losing the leader: $after"
[ "$after" = "$oracle" ] || fail "the report after losing the leader differs
--- before
$oracle
--- after
$after"
q "INSERT INTO Usage(FacetId, Value, Visits, Date) VALUES ('search', 1, 1, '2011-01-02 12:00:00')" >/dev/null \
  || fail "the two remaining nodes take no writes"
[ "$(q "SELECT count(*) FROM Usage WHERE locale_week(Date, 'en_US') = '2011-02'")" = 22 ] \
  || fail "the row written after the failover is not in US week 2011-02"
say "the two remaining nodes ($servers) answer the same report and take writes"

# 4. Controls: no preload, no functions; the default preload has no file readers.
servers=$n3
control=127.0.0.1:${ports[3]}
start_node 4 "${ports[3]}" "${ports[7]}" ""
servers=$control
until_ok "control node" q ".leader"
out=$(q "SELECT locale_week('2011-01-02', 'en_US')" 2>&1) && fail "a node without the preload library knows locale_week: $out"
grep -q "no such function: locale_week" <<<"$out" || fail "the control node said: $out"
servers=$(tr ',' '\n' <<<"$n1,$n2,$n3" | grep -vx "$leader" | paste -sd,)
out=$(q "SELECT count(*) FROM json_stream('/dev/null')" 2>&1) && fail "the default preload registered json_stream: $out"
grep -q "no such table: json_stream" <<<"$out" || fail "json_stream on the cluster said: $out"
say "controls: without the preload 'no such function: locale_week'; default mode 'no such table: json_stream'"
say "1 passed, 0 failed ($((SECONDS - start)) s)"
