# Tresor: `make demo` and `make test` work on a fresh Debian 12 machine (as root, or with sudo).
SHELL   := /bin/bash
SWIFT   ?= swift
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEPS    := libsodium-dev libgit2-dev libssl-dev pkg-config libncurses-dev libargon2-dev zlib1g-dev
# The tests also drive the real git CLI, git daemon and sshd on loopback, real terminal programs (vi and
# nano typed into through tmux, tresor ui driven through tmux, xclip/xsel under Xvfb, oathtool for one-time
# codes), the import's real gpg, pass and keepassxc-cli, the zxcvbn package and pykeepass from PyPI (Debian
# 12's 4.0.3 cannot write every KDBX 4 variant), and Spec/reference, which needs PyNaCl.
# Completion is typed into the real bash, zsh and fish; the installed manual page is read with man-db's man.
# A passphrase asked without a terminal is typed into Debian's pinentry-curses, drawn in a tmux pane.
TEST_DEPS := git openssh-server openssl vim nano tmux xvfb xclip xsel oathtool gnupg pass keepassxc python3 python3-pip python3-nacl \
	zsh fish man-db bash-completion pinentry-curses
PYKEEPASS := pykeepass>=4.1
# The deep tier (make test-deep) also fills a login form in Debian's Firefox ESR with Debian's browserpass extension,
# driven through Marionette (marionette-driver from PyPI, into .build/marionette) and xdotool under Xvfb.
DEEP_DEPS := firefox-esr webext-browserpass xdotool xvfb python3-pip
MARIONETTE := marionette-driver==3.7.1
# Debian's interpreter, the one python3-nacl installs into.
PYTHON  := /usr/bin/python3
# The release binary links the Swift runtime and FoundationEssentials statically: it runs on a machine without the
# Swift toolchain (only system libraries remain: libc, libstdc++, libm). How it is built for a quick start
# (Benchmarks/README.md, start-up):
# - linked by the toolchain's lld with its relative relocations packed (DT_RELR, glibc 2.36): 1.1 MB less to read and
#   0.24 M fewer instructions at each start than gold's table of 45,000;
# - each function in its own section, placed by scripts/start-up.order (`make start-up-order` writes it) so that the
#   code `--version`, `ls` and `show` run sits on a few pages: about 40 fewer page faults at each start;
# - concrete generic types' metadata reached through their accessors rather than by mangled name, which made the
#   runtime check `Hashable` of a dictionary's key by scanning every conformance record of the binary (0.27 M);
# - no symbol exported but those the libraries need: the runtime's `dladdr` at start scanned 5,000 (0.15 M), which
#   only named functions in a crash's backtrace.
RELEASE := -c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
  -Xswiftc -Xfrontend -Xswiftc -function-sections \
  -Xlinker --symbol-ordering-file=$(CURDIR)/scripts/start-up.order -Xlinker --no-warn-symbol-ordering \
  -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors -Xlinker --no-export-dynamic
# The binary, and its data files beside it (Tresor_TresorData.resources, where DataFiles looks first): tresor does
# not link the TresorData target, so building the product alone leaves a binary without its word list.
BUILD_TRESOR := $(SWIFT) build $(RELEASE) --product tresor && $(SWIFT) build $(RELEASE) --target TresorData
PREFIX  ?= /usr/local
DESTDIR ?=

.PHONY: start-up-order check-layers docs demo test test-deep deep-deps build install deps test-deps bench vectors check-vectors probe-vectors clean zxcvbn-check

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

deep-deps:
	@missing=""; for p in $(DEEP_DEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; fi
	@[ -f .build/marionette/marionette_driver/__init__.py ] || python3 -m pip install --quiet --disable-pip-version-check \
	  --root-user-action=ignore --target .build/marionette '$(MARIONETTE)'

# The long system tests: the classes named *DeepTests (each starts with requireDeepTier()): convergence and join
# properties at depth, kill -9 at every step, the browser. They run the debug build (its failpoints).
test-deep: deps test-deps deep-deps
	$(SWIFT) build --build-tests
	@scripts/run-tests.sh deep

build: deps
	$(BUILD_TRESOR)

# `make install PREFIX=/usr/local [DESTDIR=/tmp/stage]`: the binary (and git-credential-tresor, a link to it that git runs as
# its credential helper `tresor`), its data files (share/tresor, where
# DataFiles looks next to bin/), the manual page generated from the commands by swift-argument-parser's
# generate-manual plugin, and the bash, zsh and fish completion scripts in the places those shells look.
# The manual comes from the commands' own help, so the plugin may build them in debug mode (quick when the
# debug build exists, as in make test) without disturbing the static release build of the binary.
install: deps
	$(SWIFT) package plugin generate-manual --configuration debug --authors "Tresor"
	$(BUILD_TRESOR)
	@set -e; bin="$$($(SWIFT) build $(RELEASE) --show-bin-path)"; root="$(DESTDIR)$(PREFIX)"; \
	install -d "$$root/bin" "$$root/share/tresor" "$$root/share/man/man1" "$$root/share/bash-completion/completions" \
	  "$$root/share/zsh/site-functions" "$$root/share/fish/vendor_completions.d"; \
	install -m 0755 "$$bin/tresor" "$$root/bin/tresor"; strip --strip-all "$$root/bin/tresor"; \
	ln -sf tresor "$$root/bin/git-credential-tresor"; \
	cp -R Sources/TresorData/Resources/. "$$root/share/tresor/"; \
	chmod -R u=rwX,go=rX "$$root/share/tresor"; \
	install -m 0644 .build/plugins/GenerateManual/outputs/tresor/tresor.1 "$$root/share/man/man1/tresor.1"; \
	"$$bin/tresor" --generate-completion-script bash > "$$root/share/bash-completion/completions/tresor"; \
	"$$bin/tresor" --generate-completion-script zsh > "$$root/share/zsh/site-functions/_tresor"; \
	"$$bin/tresor" --generate-completion-script fish > "$$root/share/fish/vendor_completions.d/tresor.fish"; \
	echo "installed tresor in $$root"

demo: build
	@command -v git >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq git >/dev/null; }
	@bash scripts/demo.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)/tresor"

# The fast tier. The vector tests are Swift Testing, one test case per vector. The XCTest classes run two at a time,
# each in its own process (scripts/run-tests.sh prints the time of each): the CLI tests against the release binary
# users get, installed as `make install` installs it; the classes with failpoint tests (compiled into debug builds
# only) again against the debug build. The last line sums up every run: "N passed, N failed, N skipped".
# Before the tests: no compiler warning, no function in Sources/ over 80 lines, the public API unbroken.
test: deps test-deps check-layers zxcvbn-check check-vectors
	@mkdir -p .build
	@set -o pipefail; $(SWIFT) build --build-tests 2>&1 | tee .build/build.log
	@scripts/check-warnings.sh .build/build.log
	@python3 scripts/long-functions.py
	@bash scripts/public-api.sh && bash scripts/public-api.sh --check-breaking
	$(MAKE) --no-print-directory install PREFIX="$(CURDIR)/.build/install-test" DESTDIR=
	@mkdir -p .build
	@set -o pipefail; $(SWIFT) test --skip-build --disable-xctest 2>&1 | grep -E "^(✘|✔ Test run)|known issue" | tee .build/swift-testing-output.log
	@set -o pipefail; TRESOR_BIN="$(CURDIR)/.build/install-test/bin/tresor" TRESOR_INSTALLED="$(CURDIR)/.build/install-test" \
	  TRESOR_RELEASE_DIR="$$($(SWIFT) build $(RELEASE) --show-bin-path)" \
	  scripts/run-tests.sh fast | tee .build/test-output.log
	@set -o pipefail; scripts/run-tests.sh debug-build tresorTests.SyncSafetyTests tresorTests.CommandTests \
	  "tresorTests.ScopeTests/testAScopedMergeWritesItsObjectsAsOnePackAndAKillBeforeItsCommitLosesNothing" | tee -a .build/test-output.log

# The strength estimator's data files and Spec/strength/reference.jsonl must be exactly what the real zxcvbn
# package says (Spec/GENERATOR.md §5.5); it is installed into .build/python, never system-wide.
zxcvbn-check:
	@[ -f .build/python/zxcvbn/__init__.py ] || python3 -m pip install --quiet --disable-pip-version-check \
	  --root-user-action=ignore --target .build/python zxcvbn==4.5.0
	@PYTHONPATH=.build/python python3 Spec/strength/zxcvbn_data.py --check
	@PYTHONPATH=.build/python python3 Spec/strength/zxcvbn_reference.py --check

# The order of the functions tresor runs as it starts (scripts/start-up-order.py), from the release binary as it is.
start-up-order: deps
	@dpkg -s valgrind >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind >/dev/null; }
	$(BUILD_TRESOR)
	python3 scripts/start-up-order.py "$$($(SWIFT) build $(RELEASE) --show-bin-path)/tresor"
	@# (The build does not see the list change: the binary goes, to be linked again with it.)
	rm -f "$$($(SWIFT) build $(RELEASE) --show-bin-path)/tresor"
	$(BUILD_TRESOR)

# The benchmarks measure the binary as installed: release, Swift runtime linked statically. compare.py runs
# tresor side by side with pass and keepassxc-cli on the same entries (Benchmarks/README.md; ~10 minutes).
BENCH_BUILD := $(SWIFT) build $(RELEASE)
BENCH_DEPS  := git gnupg pass keepassxc eatmydata time python3
bench: deps
	@missing=""; for p in $(BENCH_DEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; fi
	$(BENCH_BUILD) --product tresor
	$(BENCH_BUILD) --product tresor-bench
	$(BENCH_BUILD) --product tresor-ui-bench
	$(PYTHON) -B Benchmarks/compare.py "$$($(BENCH_BUILD) --show-bin-path)"
	"$$($(BENCH_BUILD) --show-bin-path)/tresor-bench"
	"$$($(BENCH_BUILD) --show-bin-path)/tresor-ui-bench" "$$($(BENCH_BUILD) --show-bin-path)/tresor"
	$(PYTHON) -B Benchmarks/integrations.py "$$($(BENCH_BUILD) --show-bin-path)"

# Spec/vectors is written by the second implementation in Spec/reference (Python), never by TresorCore.
vectors: test-deps
	$(PYTHON) -B Spec/reference/generate.py Spec/vectors

# Both implementations agree on every vector: Spec/reference must write exactly the committed files, and
# the Swift tests (make test) pass on them.
check-vectors: test-deps
	@out="$$(mktemp -d)"; trap 'rm -rf "$$out"' EXIT; \
	$(PYTHON) -B Spec/reference/generate.py "$$out/vectors" >/dev/null && \
	if diff -r "$$out/vectors" Spec/vectors; then echo "Spec/reference writes the committed Spec/vectors"; \
	else echo "Spec/vectors differs from what Spec/reference writes (make vectors, then review)"; exit 1; fi

# Beyond the committed vectors: Spec/reference answers several hundred more inputs (hostile JSON, paths and
# headers, random merges) and the Swift vector tests run on them. Not part of make test; for new rules.
probe-vectors: deps test-deps
	$(SWIFT) build --build-tests
	@out="$$(mktemp -d)"; trap 'rm -rf "$$out"' EXIT; \
	$(PYTHON) -B Spec/reference/probe.py "$$out/vectors" && \
	TRESOR_VECTORS="$$out/vectors" $(SWIFT) test --skip-build --disable-xctest --filter VectorTests >"$$out/log" 2>&1; \
	status=$$?; grep -v ' started\.$$' "$$out/log"; exit $$status

clean:
	rm -rf .build

# Each module imports only what its layer may see (scripts/check-layers.sh).
check-layers:
	@bash scripts/check-layers.sh

# The library's reference documentation (DocC), in .build/docs.
docs: deps
	$(SWIFT) package --disable-sandbox --allow-writing-to-directory .build/docs generate-documentation \
	  --target Tresor --output-path .build/docs --transform-for-static-hosting
