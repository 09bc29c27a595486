#!/usr/bin/env bash
# Installs the Debian packages tnotes builds and tests with, when missing. Idempotent; quiet when all are there.
# `install-deps.sh run`: only what building and running the daemon and the CLI need (`make run`): the test
# suite's servers, browsers, buses and sound server take most of a fresh machine's install time (issue #57).
set -euo pipefail
run=(libsqlite3-dev libcurl4-openssl-dev libsystemd-dev libjemalloc-dev libpocketsphinx-dev libsphinxbase-dev pocketsphinx-en-us ffmpeg libsword-dev sword-text-kjv pkg-config libpulse-dev libopusenc-dev libogg-dev)
tests=(espeak-ng chromium postgresql socat openssl systemd iproute2 procps pulseaudio pulseaudio-utils dbus-daemon python3-dbus python3-gi gir1.2-glib-2.0 python3-venv chromium-driver openjdk-17-jre-headless)
if [ "${1:-}" = run ]; then packages=("${run[@]}"); else packages=("${run[@]}" "${tests[@]}"); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
