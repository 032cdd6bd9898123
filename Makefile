# Tresor: `make demo` and `make test` work on a fresh Debian 12 machine (as root, or with sudo).
SWIFT   ?= swift
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEPS    := libsodium-dev libgit2-dev pkg-config
# The tests also drive the real git CLI, git daemon and sshd on loopback.
TEST_DEPS := git openssh-server

.PHONY: demo test build deps test-deps bench vectors clean

deps:
	@missing=""; for p in $(DEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; fi

test-deps:
	@missing=""; for p in $(TEST_DEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; fi

build: deps
	$(SWIFT) build -c release --product tresor

demo: build
	@bash scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)/tresor"

test: deps test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps
	$(SWIFT) build -c release --product tresor-bench
	"$$($(SWIFT) build -c release --show-bin-path)/tresor-bench"

vectors: deps
	$(SWIFT) run tresor-vectors Spec/vectors

clean:
	rm -rf .build
