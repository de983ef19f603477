#!/usr/bin/env bash
# Runs README's two commands on a truly fresh Debian 12 system: a minimal
# debootstrap bookworm root (variant minbase, apt set not to install
# recommended packages) with only git, make and ca-certificates added, the
# project cloned into /work/StreamQLite (the committed state, HEAD), ../shared
# copied beside it, and the host's Swift toolchain bind-mounted read-only at
# /opt/swift, as README asks.  In a chroot, with a plain PATH (no /opt/swift
# in it), it runs `make demo`, then `make test`, and prints PASS/FAIL and the
# time of each.  Not part of `make test`: it needs root, the Debian mirror and
# about 7 minutes here.
#
#   sudo bash scripts/fresh-machine-check.sh             # log: /var/tmp/streamqlite-fresh/check.log
#   sudo NO_SWIFT=1 bash scripts/fresh-machine-check.sh  # without a toolchain: make test must say
#                                                        # what to install, run the rest, and fail
# Settings (environment): WORK=folder for the root and logs (default
# /var/tmp/streamqlite-fresh), MIRROR=Debian mirror (default: the host's own, from its apt
# sources; `--print-mirror` prints it), SWIFT_HOME=the host's toolchain (default
# /opt/swift), KEEP=1 keeps the root afterwards (it is deleted otherwise).
# Exit status: 0 when both commands passed (with NO_SWIFT=1: when `make demo`
# passed and `make test` failed only at the toolchain check).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/var/tmp/streamqlite-fresh}
# The root: scripts/debian-root.sh (the host's mirror, debootstrap, mounts), shared with
# scripts/check-dist.sh.
. "$repo/scripts/debian-root.sh"
MIRROR=$(root_mirror)
if [ "${1:-}" = --print-mirror ]; then
  [ -n "$MIRROR" ] && printf '%s\n' "$MIRROR" && exit 0
  echo "fresh-machine-check: no Debian mirror in the host's apt sources (set MIRROR=…)" >&2; exit 2
fi
[ -n "$MIRROR" ] || { echo "fresh-machine-check: no Debian mirror in the host's apt sources (set MIRROR=…)" >&2; exit 2; }
SWIFT_HOME=${SWIFT_HOME:-/opt/swift}
root="$WORK/root"
log="$WORK/check.log"

[ "$(id -u)" = 0 ] || { echo "fresh-machine-check: run as root (debootstrap, chroot and mount need it)" >&2; exit 2; }
[ -d "$repo/../shared" ] || { echo "fresh-machine-check: $repo/../shared not found (the project expects ../shared beside it)" >&2; exit 2; }
if [ -z "${NO_SWIFT:-}" ] && [ ! -x "$SWIFT_HOME/usr/bin/swift" ]; then
  echo "fresh-machine-check: no Swift toolchain at $SWIFT_HOME (set SWIFT_HOME, or NO_SWIFT=1 to check the no-toolchain path)" >&2; exit 2
fi

cleanup() {
  set +e
  root_remove "$root" "${KEEP:-}" || echo "fresh-machine-check: $root kept" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$WORK"
if root_mounted "$root"; then echo "fresh-machine-check: $root still has mounts from an earlier run; unmount them first" >&2; exit 2; fi
rm -rf "$root"
: > "$log"
note() { echo "fresh-machine-check: $*" | tee -a "$log"; }

note "project commit $(git -C "$repo" log -1 --format='%h %s' | cut -c1-80)"
note "debootstrap --variant=minbase --include=git,make,ca-certificates bookworm ($MIRROR)"
t0=$SECONDS
root_make "$root" "$log" git,make,ca-certificates || { note "debootstrap FAILED"; exit 1; }
note "debootstrap: $((SECONDS - t0)) s"

git clone -q "$repo" "$root/work/StreamQLite"
cp -a "$repo/../shared" "$root/work/shared"

root_mount "$root"
if [ -z "${NO_SWIFT:-}" ]; then
  mkdir -p "$root/opt/swift"
  mount --bind "$SWIFT_HOME" "$root/opt/swift"
  mount -o remount,bind,ro "$root/opt/swift"
  note "Swift toolchain: $SWIFT_HOME mounted read-only at /opt/swift"
else
  note "Swift toolchain: none (NO_SWIFT=1)"
fi

# README's commands, one after the other, in the chroot with a fresh login's environment.
declare -A result secs
run() {
  local name=$1; shift
  note "== $name"
  local t=$SECONDS rc=0
  root_run "$root" /bin/bash -c "cd /work/StreamQLite && $*" > "$WORK/$name.log" 2>&1 || rc=$?
  secs[$name]=$((SECONDS - t))
  cat "$WORK/$name.log" >> "$log"
  if [ $rc = 0 ]; then result[$name]=PASS; else result[$name]="FAIL (exit $rc)"; fi
  note "$name: ${result[$name]} in ${secs[$name]} s (log: $WORK/$name.log)"
}
run make-demo make demo
run make-test make test

note "summary: make demo ${result[make-demo]} (${secs[make-demo]} s); make test ${result[make-test]} (${secs[make-test]} s)"
if [ -z "${NO_SWIFT:-}" ]; then
  [ "${result[make-demo]}" = PASS ] && [ "${result[make-test]}" = PASS ]
else
  # Without a toolchain `make test` must run every other suite, then fail at the check, in one clear line.
  [ "${result[make-demo]}" = PASS ] && [ "${result[make-test]}" != PASS ] \
    && grep -q '^no Swift toolchain: ' "$WORK/make-test.log" \
    && grep -q '^== fuzz ' "$WORK/make-test.log" \
    && ! grep -q '^swift test' "$WORK/make-test.log"
fi
