# A fresh minimal Debian 12 root to try the project in, for scripts/fresh-machine-check.sh
# (README's commands) and scripts/check-dist.sh (the release artifacts).  Sourced, not run:
#
#   root_mirror                  the host's Debian mirror: the first archive ending in /debian
#                                in its apt sources (the machine's own choice; none is named here)
#   root_make ROOT LOG PKG,...   debootstrap --variant=minbase bookworm with those packages;
#                                apt as on a fresh install (bookworm, -updates, -security; no
#                                recommends), the host's resolv.conf and any CA the host network
#                                added (/usr/local/share/ca-certificates), so apt and pip work
#   root_mount ROOT              /proc, /sys and /dev inside
#   root_run ROOT CMD...         CMD in the root as a fresh login (env -i, plain PATH)
#   root_remove ROOT [KEEP]      unmounts and deletes it (keeps it with KEEP non-empty; never
#                                deletes a root with a mount left under it)
# MIRROR (environment) replaces root_mirror's choice.

root_mirror() {
  if [ -n "${MIRROR:-}" ]; then printf '%s' "$MIRROR"; return; fi
  { grep -hsE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
      | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^[a-z+]+:\/\//) { print $i; break } }'
    grep -hsE '^[[:space:]]*URIs:' /etc/apt/sources.list.d/*.sources | awk '{ for (i = 2; i <= NF; i++) print $i }'
  } | sed 's:/*$::' | grep -E '/debian$' | head -n 1 || true
}

root_make() {
  local root=$1 log=$2 pkgs=$3 mirror
  mirror=$(root_mirror)
  [ -n "$mirror" ] || { echo "no Debian mirror in the host's apt sources (set MIRROR=…)" >&2; return 2; }
  command -v debootstrap >/dev/null || {
    apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  rm -rf "$root"
  debootstrap --variant=minbase --include="$pkgs" bookworm "$root" "$mirror" >> "$log" 2>&1 \
    || { tail -20 "$log" >&2; echo "debootstrap failed (log: $log)" >&2; return 1; }
  cat > "$root/etc/apt/sources.list" <<SRC
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${mirror%/debian}/debian-security bookworm-security main
SRC
  echo 'APT::Install-Recommends "false";' > "$root/etc/apt/apt.conf.d/99no-recommends"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # The root shares the host's network.  Where that network inspects TLS, its CA is one the
  # host added to /usr/local/share/ca-certificates: the root gets the same (a property of the
  # network, nothing the project installs), or apt and pip could not reach their servers.
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    chroot "$root" update-ca-certificates >> "$log" 2>&1
    echo "the host network's CA certificates added: $(cd /usr/local/share/ca-certificates && echo *.crt)" >> "$log"
  fi
}

root_mount() {
  local root=$1
  mount -t proc proc "$root/proc"
  mount -t sysfs sysfs "$root/sys"
  mount --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"
}

root_run() {
  local root=$1; shift
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

root_mounted() { grep -q " $1" /proc/mounts; }

root_remove() {
  local root=$1 keep=${2:-} m
  for m in opt/swift proc sys dev; do
    if grep -q " $root/$m " /proc/mounts; then
      umount -R "$root/$m" 2>/dev/null || umount -R -l "$root/$m"
    fi
  done
  if root_mounted "$root"; then
    echo "mounts are still active under $root; not deleting it:" >&2
    grep " $root" /proc/mounts >&2
    return 1
  fi
  [ -z "$keep" ] && [ -d "$root" ] && rm -rf "$root"
  return 0
}
