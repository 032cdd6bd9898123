# Tresor: `make demo` and `make test` work on a fresh Debian 12 machine (as root, or with sudo).
SHELL   := /bin/bash
SWIFT   ?= swift
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEPS    := libsodium-dev libgit2-dev libssl-dev pkg-config libargon2-dev zlib1g-dev
# The tests also drive the real git CLI, git daemon and sshd on loopback; the import tests the real gpg,
# pass and keepassxc-cli, and pykeepass (from PyPI: Debian 12's 4.0.3 cannot write every KDBX 4 variant).
TEST_DEPS := git openssh-server gnupg pass keepassxc python3 python3-pip
PYKEEPASS := pykeepass>=4.1

.PHONY: demo test build deps test-deps bench vectors clean

deps:
	@missing=""; for p in $(DEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; fi

test-deps:
	@missing=""; for p in $(TEST_DEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; fi
	@python3 -c 'from importlib.metadata import version; import sys; sys.exit(tuple(map(int, version("pykeepass").split(".")[:2])) < (4, 1))' 2>/dev/null \
	  || { echo "installing: $(PYKEEPASS) (pip)"; $(SUDO) python3 -m pip install -q --break-system-packages '$(PYKEEPASS)'; }

build: deps
	$(SWIFT) build -c release --product tresor

demo: build
	@command -v git >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq git >/dev/null; }
	@bash scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)/tresor"

# The tests are XCTest. The CLI tests run twice: against the debug build, and against the release
# binary users get (optimised code can differ: object lifetimes end earlier). The last line is the
# summary of both runs: "N passed, N failed, N skipped".
test: deps test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) build -c release --product tresor
	@mkdir -p .build
	@set -o pipefail; $(SWIFT) test --skip-build --disable-swift-testing 2>&1 | tee .build/test-output.log
	@set -o pipefail; TRESOR_BIN="$$($(SWIFT) build -c release --show-bin-path)/tresor" \
	  $(SWIFT) test --skip-build --disable-swift-testing --filter tresorTests 2>&1 | tee -a .build/test-output.log
	@grep -A1 -E "^Test Suite '(All tests|Selected tests)' (passed|failed)" .build/test-output.log \
	  | sed -nE 's/.*Executed ([0-9]+) tests?, with (([0-9]+) tests? skipped and )?([0-9]+) failures?.*/\1:\3:\4/p' \
	  | awk -F: '{ run += $$1; skipped += $$2; failed += $$3 } END { if (run == 0) { print "no test ran"; exit 1 } \
	      printf "%d passed, %d failed, %d skipped\n", run - skipped - failed, failed, skipped }'

bench: deps
	$(SWIFT) build -c release --product tresor-bench
	"$$($(SWIFT) build -c release --show-bin-path)/tresor-bench"

vectors: deps
	$(SWIFT) run tresor-vectors Spec/vectors
	python3 Spec/vectors/merge/generate.py

clean:
	rm -rf .build
