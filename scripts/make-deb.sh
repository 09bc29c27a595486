#!/usr/bin/env bash
# Builds the Debian packages (issue #20) with dpkg-deb, from a release build:
#   tnotes_<version>_amd64.deb         tnotesd, tnotes; user and system units; tnotes(1), tnotesd(8), tnotesd.toml(5)
#   tnotes-server_<version>_amd64.deb  tnotes-server; its system unit and system user; tnotes-server(8)
# Each with shell completions (bash, zsh, fish), example configs and a copyright file; Depends worked out by
# dpkg-shlibdeps. Then lintian, whose errors fail the build. Output: .build/deb/*.deb.
#
# --build-only: only build the three binaries (into $scratch/deb-bin) and stop; MAKE_DEB_PREBUILT=1: package
# the binaries an earlier --build-only left there (scripts/test.sh builds them beside the test suite).
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0; [ "${1:-}" = --build-only ] && build_only=1
# xz's preset for the packages (see dpkg-deb below).
xz_level=${DEB_XZ_LEVEL:-6}
[[ "$xz_level" =~ ^[0-9]$ ]] || { echo "make-deb: DEB_XZ_LEVEL must be 0-9, not $xz_level" >&2; exit 2; }
./scripts/install-deps.sh
# The scratch that scripts/fuzz.sh builds in too (it says why).
scratch=.build-release
bin=$scratch/deb-bin
if [ "${MAKE_DEB_PREBUILT:-0}" != 1 ]; then
# Static Swift runtime: the package must run where no Swift toolchain is installed; what stays dynamic
# (SQLite, systemd, libstdc++, glibc) comes from Debian and becomes Depends. PocketSphinx, SWORD, libcurl, libpulse and libopusenc/libogg
# are dlopen()ed on first use (Sources/CPocketSphinx, Sources/CSword, Sources/CCurlShim, Sources/CPulseAudio, Sources/COggOpus), which
# dpkg-shlibdeps cannot see: their libraries are named in Depends by hand, by the sonames the loaders open.
for product in tnotesd tnotes tnotes-server; do
  swift build -c release --scratch-path "$scratch" --static-swift-stdlib --product "$product"
done
built=$scratch/release
for b in tnotesd tnotes tnotes-server; do
  if ldd "$built/$b" | grep -q 'libswiftCore'; then
    echo "make-deb: $built/$b links the Swift runtime dynamically (an older non-static build?); rebuilding it" >&2
    # SwiftPM keeps the build description of an earlier invocation with other flags: make it anew.
    rm -f "$built/$b" "$scratch/release.yaml"
    swift build -c release --scratch-path "$scratch" --static-swift-stdlib --product "$b"
  fi
  ! ldd "$built/$b" | grep -q 'libswiftCore' || { echo "make-deb: $built/$b is still linked to the Swift runtime" >&2; exit 1; }
done
# Kept apart: the fuzz builds that follow in the same scratch relink this package's modules with other flags.
mkdir -p "$bin"
cp "$built/tnotesd" "$built/tnotes" "$built/tnotes-server" "$bin/"
fi
[ "$build_only" = 1 ] && exit 0
for b in tnotesd tnotes tnotes-server; do [ -x "$bin/$b" ] || { echo "make-deb: $bin/$b is missing (MAKE_DEB_PREBUILT=1 with no --build-only before?)" >&2; exit 1; }; done

# Packaging tools, installed like the build's own dependencies when missing.
missing=()
for p in dpkg-dev lintian man-db binutils patchelf; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

version=$("$bin/tnotesd" --version | awk '{print $NF}')
arch=$(dpkg --print-architecture)
out=.build/deb
rm -rf "$out"
mkdir -p "$out"

# Man pages: the CLI pages come from swift-argument-parser's generate-manual plugin (made from the same
# definitions as --help, so they cannot drift); tnotesd.toml(5) is written from Config/tnotesd.toml.
man=$out/man
mkdir -p "$man"
# The plugin builds every product first; in debug, with the default build folder, that is the build the
# tests already made (the pages depend only on the commands' definitions, the same in every build).
swift package --disable-sandbox plugin generate-manual --configuration debug --authors "the tnotes developers" >/dev/null
for page in tnotes tnotesd tnotes-server; do
  # Blank lines are not mdoc (groff warns); the generator leaves some between paragraphs.
  sed '/^[[:space:]]*$/d' ".build/plugins/GenerateManual/outputs/$page/$page.1" > "$man/$page.1"
done
# tnotesd and tnotes-server are daemons: section 8.
for page in tnotesd tnotes-server; do
  sed -e 's/^\.Dt \([A-Z-]*\) 1/.Dt \1 8/' "$man/$page.1" > "$man/$page.8"
  rm "$man/$page.1"
done
python3 scripts/toml-man.py Config/tnotesd.toml > "$man/tnotesd.toml.5"

# One staging tree per package.
stage() {  # stage NAME → prints the staging dir
  local d="$out/stage/$1"
  mkdir -p "$d/DEBIAN" "$d/usr/bin" "$d/usr/share/doc/$1" "$d/usr/share/man/man1" "$d/usr/share/man/man5" "$d/usr/share/man/man8"
  echo "$d"
}
copyright() {  # copyright DIR NAME
  cat > "$1/usr/share/doc/$2/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: tnotes
Source: https://github.com/tnotes/tnotes

Files: *
Copyright: 2025-2026 the tnotes developers
License: Apache-2.0

Files: Sources/CSherpaOnnx/vendor/sherpa-onnx-c-api.h
Copyright: 2023 Xiaomi Corporation (sherpa-onnx, https://github.com/k2-fsa/sherpa-onnx)
License: Apache-2.0

License: Apache-2.0
 On Debian systems, the full text of the Apache License 2.0 can be found in
 /usr/share/common-licenses/Apache-2.0.
EOF
}
changelog() {  # changelog DIR NAME
  printf '%s (%s) unstable; urgency=medium\n\n  * Release %s.\n\n -- tnotes developers <tnotes@users.noreply.github.com>  %s\n' \
    "$2" "$version" "$version" "$(date -R -u -d @"${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")" \
    | gzip -9n > "$1/usr/share/doc/$2/changelog.gz"
}
depends() {  # depends DIR BINARY... → the Depends line dpkg-shlibdeps works out
  local d=$1; shift
  mkdir -p "$out/shlibs/debian"
  printf 'Source: tnotes\n\nPackage: tnotes\nArchitecture: any\n' > "$out/shlibs/debian/control"
  (cd "$out/shlibs" && dpkg-shlibdeps -O --ignore-missing-info "${@/#/$OLDPWD/}" 2>/dev/null) | sed -n 's/^shlibs:Depends=//p'
}
# Units as the package installs them: binaries in /usr/bin.
unit() { sed -e 's|/usr/local/bin/|/usr/bin/|g' -e 's|%h/.local/bin/|/usr/bin/|g' "$1" > "$2"; chmod 0644 "$2"; }

# --- tnotes ---
d=$(stage tnotes)
install -m 0755 "$bin/tnotesd" "$bin/tnotes" "$d/usr/bin/"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$d/usr/bin/tnotesd" "$d/usr/bin/tnotes"
# The Swift runtime is linked in statically; the toolchain's library path the linker recorded is not needed.
patchelf --remove-rpath "$d/usr/bin/tnotesd" "$d/usr/bin/tnotes"
mkdir -p "$d/usr/lib/systemd/system" "$d/usr/lib/systemd/user"
unit systemd/tnotesd.service "$d/usr/lib/systemd/system/tnotesd.service"
unit systemd/tnotesd.socket "$d/usr/lib/systemd/system/tnotesd.socket"
unit systemd/user/tnotesd.service "$d/usr/lib/systemd/user/tnotesd.service"
unit systemd/user/tnotesd.socket "$d/usr/lib/systemd/user/tnotesd.socket"
gzip -9n < "$man/tnotes.1" > "$d/usr/share/man/man1/tnotes.1.gz"
gzip -9n < "$man/tnotesd.8" > "$d/usr/share/man/man8/tnotesd.8.gz"
gzip -9n < "$man/tnotesd.toml.5" > "$d/usr/share/man/man5/tnotesd.toml.5.gz"
mkdir -p "$d/usr/share/bash-completion/completions" "$d/usr/share/zsh/vendor-completions" "$d/usr/share/fish/vendor_completions.d"
# Sourced by bash-completion, not run: no #! line (lintian: bash-completion-with-hashbang).
"$bin/tnotes" --generate-completion-script bash | sed '1{/^#!/d}' > "$d/usr/share/bash-completion/completions/tnotes"
"$bin/tnotes" --generate-completion-script zsh > "$d/usr/share/zsh/vendor-completions/_tnotes"
"$bin/tnotes" --generate-completion-script fish > "$d/usr/share/fish/vendor_completions.d/tnotes.fish"
mkdir -p "$d/usr/share/doc/tnotes/examples" "$d/usr/share/tnotes"
install -m 0644 Config/tnotesd.toml "$d/usr/share/doc/tnotes/examples/"
# `tnotes models install` runs it (issue #52): sherpa-onnx and Moonshine come from PyPI, not Debian.
install -m 0755 scripts/install-models.sh "$d/usr/share/tnotes/install-models.sh"
copyright "$d" tnotes
changelog "$d" tnotes
cat > "$d/DEBIAN/control" <<EOF
Package: tnotes
Version: $version
Architecture: $arch
Maintainer: tnotes developers <tnotes@users.noreply.github.com>
Installed-Size: $(du -sk "$d/usr" | cut -f1)
Depends: $(depends "$d" "$d/usr/bin/tnotesd" "$d/usr/bin/tnotes"), libcurl4, libpocketsphinx3, libsphinxbase3, libsword1.9.0, libpulse0, libopusenc0, libogg0, pocketsphinx-en-us, sword-text-kjv
Recommends: ffmpeg, python3-pip
Suggests: tnotes-server, sword-text-web
Section: utils
Priority: optional
Homepage: https://github.com/tnotes/tnotes
Description: keeps sermon notes safe on the desktop and syncs them
 tnotesd is a daemon that keeps sermon notes, transcripts and summaries in a
 local SQLite store and syncs them across devices through tnotes-server. It
 transcribes audio offline (PocketSphinx; run \`tnotes models install\` for
 sherpa-onnx with Moonshine, from PyPI, which gets far fewer words wrong),
 writes summaries, searches everything noted or said, and reads Bible
 passages offline (SWORD). tnotes is its command-line client. Run it per
 user: systemctl --user enable --now tnotesd.socket
EOF
# Debian's habits: units registered through deb-systemd-helper; nothing is started for a user without
# their consent (the user units are only made available; the system unit is not enabled).
cat > "$d/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = "configure" ] && command -v deb-systemd-helper >/dev/null 2>&1; then
    deb-systemd-helper update-state tnotesd.service tnotesd.socket >/dev/null || true
fi
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
EOF
cat > "$d/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
if [ "$1" = "purge" ] && command -v deb-systemd-helper >/dev/null 2>&1; then
    deb-systemd-helper purge tnotesd.service tnotesd.socket >/dev/null || true
fi
# User data ($XDG_DATA_HOME/tnotes) belongs to its users and is never removed.
EOF
chmod 0755 "$d/DEBIAN/postinst" "$d/DEBIAN/postrm"

# --- tnotes-server ---
s=$(stage tnotes-server)
install -m 0755 "$bin/tnotes-server" "$s/usr/bin/"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$s/usr/bin/tnotes-server"
patchelf --remove-rpath "$s/usr/bin/tnotes-server"
mkdir -p "$s/usr/lib/systemd/system"
# The packaged unit runs as the package's system user instead of a dynamic one (admin commands run as it too).
sed -e 's|/usr/local/bin/|/usr/bin/|g' -e 's|^DynamicUser=yes|User=tnotes-server\nGroup=tnotes-server|' \
  systemd/tnotes-server.service > "$s/usr/lib/systemd/system/tnotes-server.service"
chmod 0644 "$s/usr/lib/systemd/system/tnotes-server.service"
gzip -9n < "$man/tnotes-server.8" > "$s/usr/share/man/man8/tnotes-server.8.gz"
rmdir "$s/usr/share/man/man1" "$s/usr/share/man/man5"
mkdir -p "$s/usr/share/bash-completion/completions" "$s/usr/share/zsh/vendor-completions" "$s/usr/share/fish/vendor_completions.d"
"$bin/tnotes-server" --generate-completion-script bash | sed '1{/^#!/d}' > "$s/usr/share/bash-completion/completions/tnotes-server"
"$bin/tnotes-server" --generate-completion-script zsh > "$s/usr/share/zsh/vendor-completions/_tnotes-server"
"$bin/tnotes-server" --generate-completion-script fish > "$s/usr/share/fish/vendor_completions.d/tnotes-server.fish"
mkdir -p "$s/usr/share/doc/tnotes-server/examples"
install -m 0644 Config/tnotes-server.toml "$s/usr/share/doc/tnotes-server/examples/"
copyright "$s" tnotes-server
changelog "$s" tnotes-server
cat > "$s/DEBIAN/control" <<EOF
Package: tnotes-server
Version: $version
Architecture: $arch
Maintainer: tnotes developers <tnotes@users.noreply.github.com>
Installed-Size: $(du -sk "$s/usr" | cut -f1)
Depends: $(depends "$s" "$s/usr/bin/tnotes-server"), adduser, libsword1.9.0, sword-text-kjv
Suggests: postgresql
Section: net
Priority: optional
Homepage: https://github.com/tnotes/tnotes
Description: sync server for tnotes
 tnotes-server is the HTTP server tnotes devices sync through, on SQLite or
 PostgreSQL, with realtime pulls and published sermon pages. The package adds
 the system user tnotes-server and the unit tnotes-server.service (not enabled).
EOF
cat > "$s/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = "configure" ]; then
    if ! getent passwd tnotes-server >/dev/null; then
        adduser --system --group --home /var/lib/tnotes-server --no-create-home --quiet tnotes-server
    fi
    if command -v deb-systemd-helper >/dev/null 2>&1; then
        deb-systemd-helper update-state tnotes-server.service >/dev/null || true
    fi
fi
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
EOF
cat > "$s/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
if [ -d /run/systemd/system ] && [ "$1" = "remove" ]; then
    deb-systemd-invoke stop tnotes-server.service >/dev/null 2>&1 || true
fi
EOF
cat > "$s/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
if [ "$1" = "purge" ]; then
    if command -v deb-systemd-helper >/dev/null 2>&1; then
        deb-systemd-helper purge tnotes-server.service >/dev/null || true
    fi
    # The user the package made goes; its data in /var/lib/tnotes-server stays (it is the users' notes).
    if getent passwd tnotes-server >/dev/null && command -v deluser >/dev/null 2>&1; then
        deluser --quiet --system tnotes-server >/dev/null || true
    fi
fi
EOF
chmod 0755 "$s/DEBIAN/postinst" "$s/DEBIAN/prerm" "$s/DEBIAN/postrm"

# DEB_XZ_LEVEL: xz's preset (default 6, dpkg's own). `make test` builds its packages at 1: the same files in the
# same format, 16 % larger, and 7 s of compression instead of 41 s (14 CPU seconds instead of 73 on 2 cores,
# 2026-11-30), which the fuzz builds beside it get back. The packages people install are made at 6.
for p in tnotes tnotes-server; do
  find "$out/stage/$p" -type d -exec chmod 0755 {} +
  dpkg-deb --root-owner-group -Zxz -z"$xz_level" --build "$out/stage/$p" "$out/${p}_${version}_${arch}.deb" >/dev/null
done
ls -l "$out"/*.deb

# lintian: errors fail the build; the warnings we keep are listed in packaging/lintian-kept.md.
status=0
for deb in "$out"/*.deb; do
  lintian --no-tag-display-limit --suppress-tags-from-file packaging/lintian-overrides "$deb" || status=$?
done
exit $status
