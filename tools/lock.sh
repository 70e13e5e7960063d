#!/usr/bin/env bash
# Refresh the lock files in requirements/ from pyproject.toml's ranges: the newest versions
# that fit, every file's hash for every platform PyPI has (a Pi's aarch64 wheels included).
# Run it with the project's Python (3.11); commit what it changes with the test results.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
tool="$(mktemp -d)"
trap 'rm -rf "$tool"' EXIT
"$python" -m venv "$tool"
"$tool/bin/pip" install -q --disable-pip-version-check pip-tools==7.7.0
flags=(--quiet --upgrade --generate-hashes --allow-unsafe --strip-extras --build-deps-for editable
       --no-emit-index-url --no-emit-find-links)
"$tool/bin/pip-compile" "${flags[@]}" -o requirements/run.txt pyproject.toml
"$tool/bin/pip-compile" "${flags[@]}" --extra test -o requirements/test.txt pyproject.toml
