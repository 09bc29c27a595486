#!/usr/bin/env bash
# Issue #20 acceptance: build the .debs, install them with apt-get on this machine after `make uninstall`
# (a root like a user's: nothing of tnotes outside the packages), run what they installed, remove them
# and check that nothing is left behind. Needs root (apt-get); run by `make test-deb`, which CI runs too.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "test-deb: needs root (apt-get install)" >&2; exit 1; }
./scripts/make-deb.sh
make uninstall PREFIX=/usr/local >/dev/null
export DEBIAN_FRONTEND=noninteractive
fail() { echo "test-deb: FAIL: $*" >&2; exit 1; }

apt-get install -y -qq ./.build/deb/tnotes_*.deb ./.build/deb/tnotes-server_*.deb >/dev/null
echo "== installed"
command -v tnotesd | grep -qx /usr/bin/tnotesd || fail "tnotesd is not /usr/bin/tnotesd"
tnotesd --version | grep -q . || fail "tnotesd --version printed nothing"
tnotes --version | grep -q . || fail "tnotes --version printed nothing"
tnotes-server --version | grep -q . || fail "tnotes-server --version printed nothing"
for page in tnotes tnotesd tnotesd.toml tnotes-server; do man -w "$page" >/dev/null || fail "man -w $page"; done
for unit in /usr/lib/systemd/user/tnotesd.service /usr/lib/systemd/user/tnotesd.socket \
            /usr/lib/systemd/system/tnotesd.service /usr/lib/systemd/system/tnotes-server.service; do
  [ -f "$unit" ] || fail "$unit is missing"
done
grep -q '^ExecStart=/usr/bin/tnotesd' /usr/lib/systemd/user/tnotesd.service || fail "the user unit does not run /usr/bin/tnotesd"
[ -f /usr/share/bash-completion/completions/tnotes ] || fail "bash completion missing"
getent passwd tnotes-server >/dev/null || fail "the tnotes-server system user was not created"
# The installed daemon runs: a throwaway data dir and socket, one sermon, a clean stop.
tmp=$(mktemp -d)
tnotesd --data-dir "$tmp/data" --socket "$tmp/s.sock" --log-level warning & pid=$!
for _ in $(seq 100); do [ -S "$tmp/s.sock" ] && break; sleep 0.1; done
tnotes --socket "$tmp/s.sock" sermon create --title "Installed" >/dev/null || fail "tnotes could not talk to the installed tnotesd"
# SWORD is dlopen()ed on first use: the package's Depends must have brought it, and the static build must load it.
tnotes --socket "$tmp/s.sock" verse John 3:16 | grep -q "For God so loved the world" || fail "the installed tnotesd could not read the KJV (libsword)"
# Transcription runs in the recognizer worker, the installed tnotesd again (issue #52); with no sherpa-onnx
# installed, PocketSphinx (a Depends) is the engine, and `tnotes models install` has its installer.
[ -x /usr/share/tnotes/install-models.sh ] || fail "the model installer is missing from /usr/share/tnotes"
tnotes --socket "$tmp/s.sock" models | grep -q "in use: pocketsphinx" || fail "tnotes models does not show PocketSphinx in use"
if command -v espeak-ng >/dev/null; then
  espeak-ng -w "$tmp/speech.wav" "Today we read from the book of Romans."
  sid=$(tnotes --socket "$tmp/s.sock" --json sermon create --title "Spoken" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
  tnotes --socket "$tmp/s.sock" audio import "$sid" "$tmp/speech.wav" >/dev/null || fail "audio import failed"
  tnotes --socket "$tmp/s.sock" transcribe "$sid" --wait >/dev/null || fail "the installed tnotesd could not transcribe (its recognizer worker)"
fi
for lib in libcurl4 libpocketsphinx3 libsphinxbase3 libsword1.9.0; do
  dpkg-deb -f ./.build/deb/tnotes_*.deb Depends | grep -q "$lib" || fail "tnotes does not depend on $lib"
done
kill -TERM $pid; wait $pid || fail "tnotesd did not stop cleanly"
rm -rf "$tmp"
echo "== binaries, man pages, units, completions, system user: ok"

apt-get remove -y -qq tnotes tnotes-server >/dev/null
for b in /usr/bin/tnotesd /usr/bin/tnotes /usr/bin/tnotes-server; do [ ! -e "$b" ] || fail "$b is left after apt-get remove"; done
apt-get purge -y -qq tnotes tnotes-server >/dev/null
getent passwd tnotes-server >/dev/null && fail "purge left the tnotes-server user"
dpkg -L tnotes >/dev/null 2>&1 && fail "dpkg still lists tnotes"
echo "== removed and purged: nothing left"
echo "test-deb: OK"
