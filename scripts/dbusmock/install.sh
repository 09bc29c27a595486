#!/usr/bin/env bash
# Installs python-dbusmock (pinned by sha256 in requirements.txt) into DIR (default .build/dbusmock) for the
# desktop tests (issue #53): a venv of Debian's /usr/bin/python3 with its system packages, because the D-Bus
# bindings it needs (dbus-python, PyGObject) come from Debian (python3-dbus, python3-gi): dbus-python has no
# wheel on PyPI, and building one needs libdbus-1-dev and a compiler. Nothing is redone on a second run.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-.build/dbusmock}"
if [ -f "$OUT/.installed" ] && [ "$OUT/.installed" -nt scripts/dbusmock/requirements.txt ]; then
  exit 0
fi
rm -rf "$OUT"
/usr/bin/python3 -m venv --system-site-packages "$OUT"
"$OUT/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r scripts/dbusmock/requirements.txt
"$OUT/bin/python" -c 'import dbusmock, dbus, gi.repository.GLib'
touch "$OUT/.installed"
