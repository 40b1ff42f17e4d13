#!/usr/bin/env bash
# Installs whatever slicequote needs and is missing; fast and silent when everything is present.
# Used by `npm start`, `npm test`, `npm run bench` and CI.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing_packages() { for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || echo "$pkg"; done; }

# Two clones setting up at once (two CI runs on one machine) take turns: the second finds the packages the first
# installed. apt itself waits up to 10 minutes for a dpkg lock held by anything else.
apt_install() {
  [ -z "$(missing_packages "$@")" ] && return 0
  (
    flock 9
    local missing
    mapfile -t missing < <(missing_packages "$@")
    [ ${#missing[@]} -eq 0 ] && exit 0
    echo "setup: installing Debian packages: ${missing[*]}" >&2
    local wait=(-o DPkg::Lock::Timeout=600)
    as_root apt-get "${wait[@]}" update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get "${wait[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  ) 9>"${TMPDIR:-/tmp}/slicequote-setup-apt.lock"
}

# npm packages: reinstall only when package-lock.json changed since the last install.
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.slicequote-lock
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_hash" ]; then
  echo "setup: installing npm packages" >&2
  # npm install, not npm ci: this registry omits some optional platform packages from lock files, which npm ci refuses.
  npm install --no-audit --no-fund --loglevel=error
  echo "$lock_hash" > "$stamp"
fi

# The slicer every quote comes from: PrusaSlicer 2.9 from Debian trixie, unpacked into a tree of ours that the
# clones of this machine share (never installed over the host's system), with Debian's own prusa-slicer (2.5 on
# bookworm) as the fallback. Skipped when PRUSA_SLICER_BIN names the slicer. docs/deployment.md, "The slicer".
command -v prusa-slicer >/dev/null 2>&1 || apt_install prusa-slicer
slicer_version=$(<scripts/prusa-slicer.version)
slicer_tree="${SLICEQUOTE_CACHE:-$HOME/.cache/slicequote}/prusa-slicer-$slicer_version"
if [ -z "${PRUSA_SLICER_BIN:-}" ] && [ ! -x "$slicer_tree/prusa-slicer" ]; then
  echo "setup: installing PrusaSlicer $slicer_version from Debian trixie into $slicer_tree (330 MB download, 490 MB on disk)" >&2
  bash scripts/install-prusa-slicer.sh "$slicer_tree" ||
    echo "setup: could not install PrusaSlicer from Debian trixie (see above); quotes will be sliced by $(prusa-slicer --help 2>/dev/null | grep -o -m1 '^PrusaSlicer-[0-9.]*')" >&2
fi

# Browser tests need Debian's Chromium (never a downloaded browser build).
if [ "${1:-}" = "--with-browser" ]; then
  [ -x /usr/bin/chromium ] || apt_install chromium
fi

# The storefront widget and the dashboard are served from their Vite builds: rebuild when a source is newer
# (an app's own folder, shared/, and any further sources it names, such as the build's compression plugin).
build_if_stale() {
  local app=$1 stamp="$1/dist/.built"
  shift
  [ -f "$app/vite.config.ts" ] || return 0
  if [ ! -f "$stamp" ] || [ -n "$(find "$app" shared "$@" -type f -newer "$stamp" -not -path "$app/dist/*" -print -quit)" ]; then
    echo "setup: building $app" >&2
    npm run --silent "build:$app" >/dev/null
    touch "$stamp"
  fi
}
build_if_stale widget scripts/vite-precompress.ts
# The dashboard's offer preview renders the widget's templates, and it ships the quote signatures guide.
build_if_stale dashboard widget/src docs/quote-signatures.md scripts/vite-precompress.ts
