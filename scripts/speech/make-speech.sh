#!/usr/bin/env bash
# Makes the spoken passages the recognizer's tests and the bench score (make-speech.py says what they are) into
# DIR (default .build/speech), installing the pinned tools of requirements.txt into .build/speech-tools first.
# Safe to run again: nothing is redone when DIR is newer than the passages and this script.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-.build/speech}"
TOOLS=.build/speech-tools
if [ ! -f "$TOOLS/.installed" ] || [ scripts/speech/requirements.txt -nt "$TOOLS/.installed" ]; then
  command -v espeak-ng >/dev/null || { echo "make-speech: espeak-ng is needed (apt-get install espeak-ng)" >&2; exit 1; }
  rm -rf "$TOOLS"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes --only-binary=:all: \
    --target "$TOOLS" -r scripts/speech/requirements.txt
  touch "$TOOLS/.installed"
fi
if [ -f "$OUT/.made" ] && [ "$OUT/.made" -nt scripts/speech/passages.json ] && [ "$OUT/.made" -nt scripts/speech/make-speech.py ]; then
  exit 0
fi
PYTHONPATH="$TOOLS" python3 scripts/speech/make-speech.py "$OUT"
touch "$OUT/.made"
