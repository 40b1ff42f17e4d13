#!/usr/bin/env bash
# Installs Debian trixie's PrusaSlicer (the version in scripts/prusa-slicer.version) with its libraries into a
# directory of ours, never into the host's system: a private apt configuration (own sources list naming trixie,
# own state, cache and an empty dpkg status) downloads the package and its dependency closure, each .deb is
# unpacked with dpkg-deb -x (no maintainer scripts run), and the tree is trimmed to what the headless slicer
# loads. The tree runs through its own loader (the launcher written at its root), so the host's glibc and
# libraries are never mixed in. Usage: install-prusa-slicer.sh TREE_DIR; exits non-zero if trixie is unreachable.
# Set SLICEQUOTE_SETUP_TIMING=1 to print the time and disk each step took.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(<"$here/prusa-slicer.version")
target=$1
mirror=${SLICEQUOTE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
parent=$(dirname "$target")
mkdir -p "$parent"
# Unpack beside the target, then rename: a clone that runs setup at the same time never sees a half tree.
work=$(mktemp -d "$parent/.prusa-slicer-tmp.XXXXXX")
trap 'rm -rf "$work"' EXIT
timing() { [ -n "${SLICEQUOTE_SETUP_TIMING:-}" ] && echo "setup: $*" >&2 || true; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

apt="$work/apt"
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/empty"
: >"$apt/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$apt/sources.list"
cat >"$apt/apt.conf" <<CONF
Dir::Etc::SourceList "$apt/sources.list";
Dir::Etc::SourceParts "$apt/empty";
Dir::Etc::Preferences "$apt/empty/none";
Dir::Etc::PreferencesParts "$apt/empty";
Dir::State "$apt";
Dir::State::Lists "$apt/lists";
Dir::State::status "$apt/status";
Dir::Cache "$apt";
Dir::Cache::Archives "$apt/archives";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Dir::Log "$apt";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
APT::Install-Recommends "false";
APT::Install-Suggests "false";
APT::Sandbox::User "root";
Acquire::Languages "none";
Acquire::Retries "3";
Acquire::http::Timeout "30";
CONF
export APT_CONFIG="$apt/apt.conf"
t=$(now)
apt-get -qq update >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
# The closure is resolved against an empty status: every library the slicer needs comes from trixie.
apt-get -qq -y --download-only install "prusa-slicer=$version" >>"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log" >&2; exit 1; }
debs=("$apt"/archives/*.deb)
timing "fetched ${#debs[@]} packages, $(du -sh "$apt/archives" | cut -f1), in $(since "$t")"

tree="$work/tree"
mkdir "$tree"
t=$(now)
# One at a time, in name order: packages share directories, and base-files' usrmerge links must not race.
for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$tree"; done
rm -rf "$apt"
timing "unpacked $(du -sh "$tree" | cut -f1) in $(since "$t")"

# Keep the slicer, the shared objects its loader resolves (the closure, listed by trixie's own loader), the
# vendor profiles and the copyright files; the rest (docs, man pages, locales, icons, GUI resources and the
# libraries of other packages' programs) is never opened by a CLI slice. OCCTWrapper.so (STEP import, loaded
# on demand) goes too: the server hands the slicer only OBJ, STL, 3MF and AMF.
t=$(now)
lib="$tree/usr/lib/x86_64-linux-gnu"
loader="$lib/ld-linux-x86-64.so.2"
keep="$work/keep"
{
  echo "$tree/usr/bin/prusa-slicer"
  echo "$loader"
  "$loader" --inhibit-cache --library-path "$lib" --list "$tree/usr/bin/prusa-slicer" |
    awk '/not found/ { print "not found: " $1; next } $2 == "=>" { print $3; next } $1 ~ /^\// { print $1 }'
} | tee "$work/closure" | while read -r f; do
  echo "$f"
  readlink -f "$f"
done >"$keep"
grep -q "not found" "$work/closure" && { echo "setup: the slicer needs a library trixie did not provide" >&2; exit 1; }
grep -q -v "^$tree/" "$keep" && { echo "setup: the slicer's libraries resolve outside the tree" >&2; exit 1; }
find "$tree" \( -type f -o -type l \) -not -path "$tree/usr/share/PrusaSlicer/profiles/*" \
  -not -path "$tree/usr/share/doc/*/copyright" | grep -v -x -F -f "$keep" | xargs -r -d '\n' rm -f
find "$tree" -depth -type d -empty -delete
timing "trimmed to $(du -sh "$tree" | cut -f1) in $(since "$t")"

# The launcher: trixie's loader with the tree's libraries only (not the host's ld.so.cache). It finds the tree
# from its own path, so the tree can be renamed into place and the slicer's environment needs no variables.
cat >"$tree/prusa-slicer" <<'LAUNCHER'
#!/bin/sh
# PrusaSlicer from Debian trixie, run by the tree's own loader and libraries (written by scripts/setup.sh).
root=$(dirname "$(readlink -f "$0")")
lib="$root/usr/lib/x86_64-linux-gnu"
exec "$lib/ld-linux-x86-64.so.2" --inhibit-cache --library-path "$lib" --argv0 prusa-slicer \
  "$root/usr/bin/prusa-slicer" "$@"
LAUNCHER
chmod 755 "$tree/prusa-slicer"
# Its whole output first: grep -q would stop reading early, and pipefail would count the slicer's SIGPIPE.
help=$("$tree/prusa-slicer" --help 2>&1 || true)
grep -q "^PrusaSlicer-${version%%+*}" <<<"$help" ||
  { echo "setup: the unpacked PrusaSlicer $version does not run: ${help:0:300}" >&2; exit 1; }
# Another clone may have finished first: its tree is the same version, keep it.
mv -T "$tree" "$target" 2>/dev/null || [ -x "$target/prusa-slicer" ]
