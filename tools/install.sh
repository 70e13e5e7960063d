#!/usr/bin/env bash
# Make .venv with the pinned versions of requirements/ and the referee installed in it.
#
#   tools/install.sh          what the referee needs to run (requirements/run.txt)
#   tools/install.sh test     and what the tests need (requirements/test.txt), including
#                             Debian's chromium for the browser tests when it is missing
#
# Every package comes from the lock file, checked against its hashes; the referee itself is
# installed editable without fetching anything more (its build backend is pinned too).
# PYTHON names the interpreter (default python3, which must be 3.11 or later).
set -euo pipefail
cd "$(dirname "$0")/.."

what="${1:-run}"
case "$what" in
  run|test) ;;
  *) echo "usage: tools/install.sh [run|test]" >&2; exit 2 ;;
esac
python="${PYTHON:-python3}"

if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
apt_updated=""
debian_install() {  # Debian's packages named, with one apt-get update first
  [ -n "$apt_updated" ] || { $sudo apt-get update -qq; apt_updated=yes; }
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if [ "$what" = test ] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  echo "installing Debian's chromium for the browser tests" >&2
  debian_install chromium
fi

if [ ! -x .venv/bin/python ]; then
  if ! "$python" -m venv .venv; then
    # Debian's python3 makes virtual environments only with its python3-venv package.
    rm -rf .venv
    command -v apt-get >/dev/null 2>&1 || { echo "tools/install.sh: $python cannot make a venv" >&2; exit 1; }
    echo "installing Debian's python3-venv" >&2
    debian_install python3-venv
    "$python" -m venv .venv
  fi
fi
.venv/bin/python -m pip install -q --disable-pip-version-check --require-hashes -r "requirements/$what.txt"
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
