#!/usr/bin/env bash
# Prepares the peer suites' clients: `setup.sh [python] [tools]` (both when none is named).
#   python: a venv in test/peers/python/.venv with requirements.txt installed (--require-hashes).
#   tools:  Helm and kcp's kubectl plugins built with `go build` from the pinned modules under test/peers/tools/
#           into test/peers/tools/.bin (Go's own build cache makes a second build a matter of seconds).
# Each part writes a stamp of its inputs when done and does nothing while the stamp matches, so running it again is
# cheap. .ci/run runs it before `npm test`; the peer files run it themselves when a part was prepared before but its
# inputs changed since.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(python tools)

# sha256 over the files that decide what a part installs (this script included).
stamp_of() { cat "$@" "$here/setup.sh" | sha256sum | cut -d' ' -f1; }

setup_python() {
  local dir="$here/python" venv="$here/python/.venv"
  local want; want="$(stamp_of "$dir/requirements.txt")"
  if [ -f "$venv/.kcpt-stamp" ] && [ "$(cat "$venv/.kcpt-stamp")" = "$want" ]; then return 0; fi
  local python="${PYTHON:-python3}"
  echo "peers: creating the Python venv (test/peers/python/.venv) from requirements.txt" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --require-hashes \
    --only-binary=:all: -r "$dir/requirements.txt"
  echo "$want" > "$venv/.kcpt-stamp"
}

# `go build` of the module's tools into .bin; a module builds every `tool` its go.mod names.
build_module() {
  local module="$1" bin="$here/tools/.bin"
  local want; want="$(stamp_of "$here/tools/$module/go.mod" "$here/tools/$module/go.sum")"
  if [ -f "$bin/.stamp-$module" ] && [ "$(cat "$bin/.stamp-$module")" = "$want" ]; then return 0; fi
  mkdir -p "$bin"
  echo "peers: building $module (go build; the first build on a machine takes minutes)" >&2
  local started=$SECONDS
  # -mod=readonly: go.mod and go.sum are the pins, a build never changes them.
  (cd "$here/tools/$module" && GOFLAGS=-mod=readonly go build -trimpath -ldflags='-s -w' -o "$bin/" tool)
  echo "peers: built $module in $((SECONDS - started)) s" >&2
  echo "$want" > "$bin/.stamp-$module"
}

for part in "${parts[@]}"; do
  case "$part" in
    python) setup_python ;;
    tools) build_module helm; build_module kcp-plugins ;;
    helm | kcp-plugins) build_module "$part" ;;
    *) echo "setup.sh: unknown part '$part' (python, tools, helm, kcp-plugins)" >&2; exit 2 ;;
  esac
done
