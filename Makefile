# tnotes — the two commands of the quick start are `make run` and `make test`.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
# Which build to install: release (default) or debug (tests use the debug build they already have).
CONFIG ?= release
BINDIR = $(DESTDIR)$(PREFIX)/bin
UNITDIR = $(DESTDIR)$(PREFIX)/lib/systemd/system
USERUNITDIR = $(DESTDIR)$(PREFIX)/lib/systemd/user
DOCDIR = $(DESTDIR)$(PREFIX)/share/doc/tnotes
BINARIES = tnotesd tnotes tnotes-server
# Release builds link the Swift runtime in statically, as the Debian packages ship them: the binary the quick
# start runs, the bench measures and the packages carry is one build (and ~3.8 MiB less resident at idle than
# with the shared runtime, measured on tnotesd).
RELEASE_FLAGS = -c release --static-swift-stdlib

.PHONY: deps deps-run build release run test install uninstall clean deb test-deb

deps:
	@./scripts/install-deps.sh

# What `make run` needs, without the test suite's servers, browsers and buses.
deps-run:
	@./scripts/install-deps.sh run

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

# Builds and runs the daemon in the foreground: local-only, embedded SQLite, no config needed. Builds only
# what it runs (the daemon, and the CLI to talk to it), not the server, the bench or the fuzzers.
run: deps-run
	$(SWIFT) build $(RELEASE_FLAGS) --product tnotesd
	$(SWIFT) build $(RELEASE_FLAGS) --product tnotes
	./.build/release/tnotesd

# The whole test suite (what CI runs).
test: deps
	./scripts/test.sh

# Binaries, systemd units (ExecStart pointed at $(PREFIX)/bin), the example configs, the README and docs/.
install:
	@[ -x .build/$(CONFIG)/tnotesd ] || $(SWIFT) build $(if $(filter release,$(CONFIG)),$(RELEASE_FLAGS),-c $(CONFIG))
	install -d $(BINDIR) $(UNITDIR) $(USERUNITDIR) $(DOCDIR)/examples $(DOCDIR)/docs
	for b in $(BINARIES); do install -m 0755 .build/$(CONFIG)/$$b $(BINDIR)/$$b; done
	for u in tnotesd.service tnotesd.socket tnotes-server.service; do \
	  sed 's|/usr/local/bin/|$(PREFIX)/bin/|g' systemd/$$u > $(UNITDIR)/$$u; chmod 0644 $(UNITDIR)/$$u; done
	for u in tnotesd.service tnotesd.socket; do \
	  sed 's|%h/.local/bin/|$(PREFIX)/bin/|g' systemd/user/$$u > $(USERUNITDIR)/$$u; chmod 0644 $(USERUNITDIR)/$$u; done
	install -m 0644 Config/tnotesd.toml Config/tnotes-server.toml $(DOCDIR)/examples/
	install -m 0644 README.md $(DOCDIR)/README.md
	install -m 0644 docs/*.md $(DOCDIR)/docs/
	install -d $(DESTDIR)$(PREFIX)/share/tnotes
	install -m 0755 scripts/install-models.sh $(DESTDIR)$(PREFIX)/share/tnotes/install-models.sh

uninstall:
	for b in $(BINARIES); do rm -f $(BINDIR)/$$b; done
	rm -f $(UNITDIR)/tnotesd.service $(UNITDIR)/tnotesd.socket $(UNITDIR)/tnotes-server.service
	rm -f $(USERUNITDIR)/tnotesd.service $(USERUNITDIR)/tnotesd.socket
	rm -rf $(DOCDIR) $(DESTDIR)$(PREFIX)/share/tnotes

# Debian packages (tnotes, tnotes-server) in .build/deb, checked by lintian.
deb: deps
	./scripts/make-deb.sh

# Builds the packages, installs them with apt-get (root), runs what they installed, removes them.
test-deb: deps
	./scripts/test-deb.sh

clean:
	rm -rf .build
