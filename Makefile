# tnotes — the two commands of the quick start are `make run` and `make test`.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift

.PHONY: deps build release run test clean

deps:
	@./scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Builds and runs the daemon in the foreground: local-only, embedded SQLite, no config needed.
run: release
	./.build/release/tnotesd

# The whole test suite (what CI runs).
test: deps
	./scripts/test.sh

clean:
	rm -rf .build
