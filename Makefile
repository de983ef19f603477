# StreamQLite — build, demo, tests, benchmarks.
#
#   make            build/streamqlite.so (the loadable extension)
#   make demo       build it and print the locale-week report (README's first command)
#   make test       every test: C unit tests, SQL tests through sqlite3, Python
#                   loading checks, ASan+UBSan run, the threaded C tests under the thread
#                   sanitizer (test-c-tsan), fuzz smoke run, swift test (also under
#                   the thread sanitizer: test-swift-tsan), and a new
#                   package depending on this one by version (test-package), and the
#                   tasks server example over HTTP (test-server); make release's checks
#                   (test-release), a three-node dqlite cluster (test-cluster), every
#                   code block of README.md and docs/ (test-docs), and imports killed
#                   at random points (test-crash; allocation and I/O failures: test_faults),
#                   and every release artifact installed in a fresh Debian 12 root (test-dist)
#   make quick      the everyday loop (about 1.5 minutes after a change): the extension, the C
#                   tests, the SQL tests once, the Swift tests (debug, in parallel)
#   make install    the extension and headers into PREFIX (default /usr/local)
#   make docs       the Swift API reference (DocC) as static HTML in build/docs
#   make release VERSION=x.y.z   checks, tests and tags a release
#   make serve      the tasks server example (Examples/TasksServer) on port 8080
#   make bench      benchmarks of the extension (see BENCHMARKS.md)
#   make dist       the release artifacts in dist/: Python wheel and the Datasette and
#                   sqlite-utils plugins, Debian packages, a tarball (docs/install.md)

SHELL     := /bin/bash
CC        ?= cc
BUILD     ?= build
PKGS       = icu-i18n icu-uc
ICU_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
ICU_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -licui18n -licuuc -licudata)
# gzip and zstd input (sq_decompress.c): zlib and libzstd.
ZLIBS      = -lz -lzstd
CFLAGS    ?= -O2 -g
WARN       = -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes
ALL_CFLAGS = $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE -fPIC -IExtension/src -IExtension/include $(ICU_CFLAGS)

SRC     := $(sort $(wildcard Extension/src/*.c))
HDR     := $(wildcard Extension/src/*.h Extension/include/*.h)
EXT      = $(BUILD)/streamqlite.so

# C unit tests: every Extension/test/test_*.c is one program, linked with the
# extension's sources compiled with SQLITE_CORE against the system libsqlite3.
CTEST_SRC := $(sort $(wildcard Extension/test/test_*.c))
CTESTS     = $(patsubst Extension/test/%.c,$(BUILD)/%,$(CTEST_SRC))
CORE_OBJ   = $(patsubst Extension/src/%.c,$(BUILD)/core/%.o,$(SRC))

# scripts/ensure-deps.sh is the one place that knows what this machine needs
# and where things are: the Swift toolchain (`swift` on PATH, else README's
# /opt/swift/usr/bin), the clang for the sanitizer and fuzz builds (the
# toolchain's, which ships ASan/UBSan and libFuzzer; else Debian's clang), and
# the Python venv with apsw.
SWIFT_BIN := $(shell bash scripts/ensure-deps.sh --swift-bin)
ifneq ($(SWIFT_BIN),)
export PATH := $(SWIFT_BIN):$(PATH)
endif
ifndef CLANG
CLANG    := $(shell bash scripts/ensure-deps.sh --clang)
endif
PYTHON   ?= .venv/bin/python
SAN       = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_SRC := $(sort $(wildcard Extension/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 20

.PHONY: test-docs install release test-release preload test-cluster docs test-crash quick
.PHONY: all ext demo test test-c test-c-tsan test-sql test-python test-ext-scripts test-asan test-fuzz test-swift test-macros test-swift-tsan \
        swift-toolchain test-package test-server serve bench deps clean cli test-cli install-cli dist test-dist

all: ext
ext: $(EXT)

deps:
	@bash scripts/ensure-deps.sh

$(PYTHON):
	@bash scripts/ensure-deps.sh

$(EXT): $(SRC) $(HDR) Makefile
	@mkdir -p $(BUILD)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -shared -o $@ $(SRC) $(ICU_LIBS) $(ZLIBS) -lm -ldl

$(BUILD)/core/%.o: Extension/src/%.c $(HDR) Makefile
	@mkdir -p $(BUILD)/core
	$(CC) $(ALL_CFLAGS) -DSQLITE_CORE -DSQ_PIPE_POISON -c -o $@ $<

# test_faults also has the failing VFS the Swift fault tests use (Tests/CFaultVFS).
FAULT_VFS = Tests/CFaultVFS/fault_vfs.c
$(BUILD)/test_%: Extension/test/test_%.c $(CORE_OBJ) Extension/test/sq_test.h $(FAULT_VFS)
	$(CC) $(ALL_CFLAGS) -DSQLITE_CORE -IExtension/test -ITests/CFaultVFS/include -o $@ $< \
	  $(if $(filter faults,$*),$(FAULT_VFS)) $(CORE_OBJ) -lsqlite3 $(ICU_LIBS) $(ZLIBS) -lm

# Needs only the C build and sqlite3 (ensure-deps --demo), then a new make for the
# pkg-config flags of what it may just have installed.
demo:
	@bash scripts/ensure-deps.sh --demo
	@$(MAKE) --no-print-directory ext
	@bash sql/demo/run-demo.sh $(EXT)

# Every suite in turn (scripts/run-suites.sh: the first failure stops it; each suite's time
# is printed at the end, longest first).
TEST_SUITES = test-c test-sql test-python test-ext-scripts test-asan test-c-tsan test-fuzz test-release test-cluster \
      test-swift test-swift-tsan test-package test-server test-docs test-cli test-crash test-dist
test: deps ext
	@bash scripts/run-suites.sh $(TEST_SUITES)
	@echo "make test: all suites passed"

# The everyday loop: what most changes break, in about 1.5 minutes (make test: everything).
quick: ext test-c $(PYTHON) swift-toolchain
	$(PYTHON) sql/run-tests.py --ext $(EXT) sql/tests/*.sql
	swift build --build-tests $(SWIFT_STRICT)
	swift test --skip-build --parallel

test-c: $(CTESTS)
	@set -e; for t in $(CTESTS); do echo "== $$t"; $$t; done

# Twice: as they run (their small files on the query's thread: sq_pipe_worth_it_for), then
# with STREAMQLITE_THREADS=2, every typed-table scan through the second core's worker.
test-sql: ext $(PYTHON)
	$(PYTHON) sql/run-tests.py --ext $(EXT) sql/tests/*.sql
	STREAMQLITE_THREADS=2 $(PYTHON) sql/run-tests.py --ext $(EXT) sql/tests/*.sql

test-python: ext $(PYTHON)
	$(PYTHON) scripts/check-python-load.py $(EXT)

# Scripted checks of the loaded extension (scripts/check-ext-*): reads that
# wait on a FIFO stop on sqlite3_interrupt(); memory stays flat over 300
# load/use/close cycles.  Python's sqlite3 and apsw, a few seconds each.
test-ext-scripts: ext $(PYTHON)
	@set -e; for s in scripts/check-ext-*.py; do echo "== $$s"; $(PYTHON) $$s $(EXT); done

# ASan+UBSan: the C unit tests, the SQL test files (through the real sqlite3
# shell) and the scripted host checks (Python's sqlite3, apsw, FIFOs, the PyICU
# oracle; with the sanitizer runtime preloaded) on an instrumented build.
ASAN_HOST = ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  LD_PRELOAD="$$($(CLANG) -print-file-name=libclang_rt.asan-x86_64.so)"
test-asan: $(PYTHON)
	$(MAKE) --no-print-directory BUILD=build/asan CC=$(CLANG) CFLAGS="-O1 -g $(SAN)" \
	  build/asan/streamqlite.so $(patsubst $(BUILD)/%,build/asan/%,$(CTESTS))
	@set -e; for t in $(patsubst $(BUILD)/%,build/asan/%,$(CTESTS)); do echo "== asan $$t"; \
	  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $$t; done
	$(ASAN_HOST) $(PYTHON) sql/run-tests.py --ext build/asan/streamqlite.so sql/tests/*.sql
	@set -e; for s in scripts/check-python-load.py scripts/check-ext-*.py; do echo "== asan $$s"; \
	  $(ASAN_HOST) $(PYTHON) $$s build/asan/streamqlite.so; done

# libFuzzer harnesses, a short bounded run each (FUZZ_SECONDS), two at a time
# (scripts/run-fuzz.sh); the extension's sources are compiled once for all of them.
FUZZ_CFLAGS = -O1 -g -fsanitize=fuzzer-no-link,address,undefined -DSQLITE_CORE -IExtension/src -IExtension/include $(ICU_CFLAGS)
FUZZ_OBJ    = $(patsubst Extension/src/%.c,build/fuzz/obj/%.o,$(SRC))
FUZZ_BINS   = $(patsubst Extension/fuzz/%.c,build/fuzz/%,$(FUZZ_SRC))
build/fuzz/obj/%.o: Extension/src/%.c $(HDR) Makefile
	@mkdir -p build/fuzz/obj
	@echo "fuzz cc $<"
	@$(CLANG) $(FUZZ_CFLAGS) -c -o $@ $<
build/fuzz/fuzz_%: Extension/fuzz/fuzz_%.c $(FUZZ_OBJ)
	@echo "fuzz build $@"
	@$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) -lsqlite3 $(ICU_LIBS) $(ZLIBS) -lm \
	  2> $@.build.log || { cat $@.build.log; exit 1; }
.SECONDARY: $(FUZZ_OBJ)
test-fuzz:
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@bash scripts/run-fuzz.sh $(FUZZ_SECONDS) $(FUZZ_BINS)

# The Swift suites need a toolchain that runs (`swift --version`); without one
# they stop here with one line saying what to install where.
swift-toolchain:
	@bash scripts/ensure-deps.sh --check-swift

# make test's Swift build: the library with the package trait "Macros" (the @RowCodable
# macro; swift-syntax is built) and every test target, every warning an error, in one folder
# of its own. check-docs.py (make test-docs) builds the docs' Swift examples in that folder
# with the same flags, so they reuse the library and swift-syntax built here. make quick
# builds without the trait, in .build: neither rebuilds the other's build.
SWIFT_STRICT = -Xswiftc -warnings-as-errors
SWIFT_TEST   = --traits Macros --scratch-path .build-macros $(SWIFT_STRICT)
test-swift: swift-toolchain
	swift build --build-tests $(SWIFT_TEST)
	swift test --skip-build $(SWIFT_TEST)

# The @RowCodable macro's tests alone (expansion, agreement with Decodable; in make test-swift).
test-macros: swift-toolchain
	swift build --build-tests $(SWIFT_TEST)
	swift test --skip-build $(SWIFT_TEST) --filter StreamQLiteMacrosTests

# ThreadSanitizer on the C tests that run threads: the pipe's worker
# (test_pipe), sq_file's read-ahead and FIFO interrupts.  The Swift
# toolchain's clang runtime needs its libdispatch and BlocksRuntime.
TSAN_CTESTS  = test_pipe test_json_stream test_decompress
TSAN_RT_DIR := $(wildcard $(dir $(CLANG))../lib/swift/linux)
comma       := ,
test-c-tsan:
	@mkdir -p build/tsan
	@set -e; for t in $(TSAN_CTESTS); do \
	  $(CLANG) -O1 -g -fsanitize=thread $(WARN) -std=c11 -D_GNU_SOURCE -DSQLITE_CORE -DSQ_PIPE_POISON -IExtension/src \
	    -IExtension/include -IExtension/test $(ICU_CFLAGS) -o build/tsan/$$t Extension/test/$$t.c $(SRC) \
	    -lsqlite3 $(ICU_LIBS) $(ZLIBS) -lm -lpthread \
	    $(if $(TSAN_RT_DIR),-L$(TSAN_RT_DIR) -ldispatch -lBlocksRuntime -Wl$(comma)-rpath$(comma)$(TSAN_RT_DIR)); \
	  echo "== tsan $$t"; TSAN_OPTIONS=halt_on_error=1 build/tsan/$$t; done

# The Swift suites again under the thread sanitizer (its own build folder). A sink
# passed inout through generic code must not be a zero-sized struct under TSan:
# Swift's instrumentation crashes the runtime on those (swiftlang/swift#35579).
# scripts/tsan-suppressions.txt: one report of the Swift concurrency runtime itself (see there).
# One test at a time: in parallel, tests that
# block threads of Swift's pool starved others' tasks for over 10 s, and timed tests failed.
# Not run under TSan, as they run on one thread with no second one to race: IOFaultTests'
# sweeps of one connection (a third of the suite's time under TSan; its pool sweep runs) and
# the suites of the JSON codec alone (parity with Foundation, top-level arrays, encoding,
# the decoder's fast paths).
TSAN_SKIP = 'IOFaultTests/(import|insert)|JSONFoundationParityTests|JSONTopLevelArrayTests|JSONEncodableTests|JSONDecodingFastPathTests'
test-swift-tsan: swift-toolchain
	TSAN_OPTIONS="suppressions=$(CURDIR)/scripts/tsan-suppressions.txt $${TSAN_OPTIONS:-}" \
	  swift test --sanitize=thread --scratch-path .build-tsan --no-parallel --skip $(TSAN_SKIP)

# A brand-new package depends on this one by git URL and version tag (the
# committed state) and runs README's Swift example.
test-package: swift-toolchain
	@bash scripts/check-package-consumer.sh

# make install PREFIX=/usr/local (DESTDIR too): PREFIX/lib/streamqlite.so (`.load
# PREFIX/lib/streamqlite`: every function), PREFIX/lib/streamqlite_noread.so (a link to
# it whose name makes SQLite call the no-read entry point: no json_stream/csv_stream),
# and the C headers in PREFIX/include/streamqlite/.
PREFIX ?= /usr/local
install: ext
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/streamqlite
	install -m 644 $(EXT) $(DESTDIR)$(PREFIX)/lib/streamqlite.so
	ln -sf streamqlite.so $(DESTDIR)$(PREFIX)/lib/streamqlite_noread.so
	install -m 644 Extension/include/*.h $(DESTDIR)$(PREFIX)/include/streamqlite/

# build/libstreamqlite-preload.so: the extension's functions in every connection of a
# process it is preloaded into (sqlite3_auto_extension; a dqlite node: docs/cluster.md).
PRELOAD = $(BUILD)/libstreamqlite-preload.so
preload: $(PRELOAD)
$(PRELOAD): Extension/preload/streamqlite_preload.c $(CORE_OBJ)
	$(CC) $(ALL_CFLAGS) -DSQLITE_CORE -shared -o $@ $< $(CORE_OBJ) -lsqlite3 $(ICU_LIBS) $(ZLIBS) -lm -ldl -lpthread

# Three dqlite nodes (Debian's go-dqlite, on 127.0.0.1, the preload library in each)
# answer the weekly report, lose their leader, and answer it the same (scripts/check-cluster.sh).
test-cluster: ext $(PRELOAD)
	@bash scripts/check-cluster.sh $(PRELOAD)

# The Swift API reference (Sources/StreamQLite/StreamQLite.docc and the DocC comments) as
# static HTML in build/docs (open build/docs/documentation/streamqlite/index.html through a
# web server). The DocC plugin is a dependency only while STREAMQLITE_DOCS=1. Then every
# public declaration must have a doc comment (scripts/check-doc-coverage.py), and the
# symbol graph's top-level types must be those scripts/check-public-api.py counts.
docs: swift-toolchain
	STREAMQLITE_DOCS=1 swift package --scratch-path .build-docs --allow-writing-to-directory $(BUILD)/docs \
	  generate-documentation --target StreamQLite --output-path $(BUILD)/docs \
	  --transform-for-static-hosting --hosting-base-path /
	python3 scripts/check-doc-coverage.py
	python3 scripts/check-public-api.py --symbol-graph \
	  "$$(ls .build-docs/*/extracted-symbols/*/StreamQLite/StreamQLite.symbols.json | head -1)"

# make release VERSION=x.y.z: a clean tree, a CHANGELOG.md entry, SQ_VERSION, make test,
# then an annotated tag (scripts/release.sh); test-release checks those refusals in a clone.
release:
	@bash scripts/release.sh "$(VERSION)"
test-release:
	@bash scripts/check-release.sh
	@m=$$(bash scripts/fresh-machine-check.sh --print-mirror) && echo "fresh-machine-check's mirror, the host's own: $$m"
	@if git grep -nE 'deb\.debian\.org|pypi\.org|files\.pythonhosted\.org' -- . ; then \
	  echo "test-release: a package-registry host is named in the repository (take it from the machine)"; exit 1; fi

# Every fenced block of README.md and docs/**/*.md, run as the text shows it
# (scripts/check-docs.py; its header has the conventions): SQL through sqlite3 with the
# extension, shell, and the Swift blocks as one package in build/doc-check/swift. First
# --self-test: the checker must reject scripts/check-docs-cases/broken-examples.md.
# cli: docs/cli.md's sh blocks run the release build of the streamqlite tool, which
# check-docs.py puts on their PATH. check-public-api.py: the library declares at most 50
# public top-level types (helpers are internal, option and error types nested).
test-docs: ext swift-toolchain cli
	python3 scripts/check-layers.py --self-test
	python3 scripts/check-layers.py
	python3 scripts/check-docs.py --self-test
	python3 scripts/check-doc-sections.py
	python3 scripts/check-public-api.py
	python3 scripts/check-docs.py

# Examples/TasksServer (Hummingbird 2 + StreamQLite): built (debug, its own .build, reused),
# started on a free 127.0.0.1 port, every route exercised over HTTP, stopped by its PID.
test-server: swift-toolchain
	@EXTRA_DEBS="chromium" bash scripts/ensure-deps.sh
	@bash scripts/check-tasks-server.sh

# streamqlite, the command-line tool (Tools/streamqlite, docs/cli.md), built with the Swift
# runtime linked in: the installed binary needs only the system's libsqlite3 and libicu.
#   make install-cli PREFIX=/usr/local   (DESTDIR too): bin/streamqlite and its bash, zsh
#   and fish completion scripts under share/.
CLI_DIR  = Tools/streamqlite
CLI_BIN  = $(CLI_DIR)/.build/release/streamqlite
PREFIX  ?= /usr/local
cli: swift-toolchain
	swift build -c release --static-swift-stdlib --package-path $(CLI_DIR)

install-cli: cli
	install -D -s -m 755 $(CLI_BIN) $(DESTDIR)$(PREFIX)/bin/streamqlite
	@mkdir -p $(BUILD)/cli-completions
	$(CLI_BIN) --generate-completion-script bash > $(BUILD)/cli-completions/streamqlite
	$(CLI_BIN) --generate-completion-script zsh > $(BUILD)/cli-completions/_streamqlite
	$(CLI_BIN) --generate-completion-script fish > $(BUILD)/cli-completions/streamqlite.fish
	install -D -m 644 $(BUILD)/cli-completions/streamqlite $(DESTDIR)$(PREFIX)/share/bash-completion/completions/streamqlite
	install -D -m 644 $(BUILD)/cli-completions/_streamqlite $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_streamqlite
	install -D -m 644 $(BUILD)/cli-completions/streamqlite.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/streamqlite.fish

# The tool run as a person runs it on the demo data (scripts/check-cli.py: every command,
# the progress line in a pty, Ctrl-C mid-import), its SVG chart in headless Chromium
# (scripts/check-cli-svg.py), and `make install-cli` into a scratch prefix. Chromium is
# installed here only, not by `make deps`: 124 MB to download, 414 MB on disk, 12 s.
test-cli: cli $(PYTHON)
	@EXTRA_DEBS="chromium" bash scripts/ensure-deps.sh
	$(PYTHON) scripts/check-cli.py $(CLI_BIN)
	$(PYTHON) scripts/check-cli-svg.py $(CLI_BIN)
	$(PYTHON) scripts/check-cli-nycflights.py $(CLI_BIN)
	@rm -rf $(BUILD)/cli-install
	@$(MAKE) --no-print-directory install-cli PREFIX=$(CURDIR)/$(BUILD)/cli-install > /dev/null
	@test "$$(env -i $(BUILD)/cli-install/bin/streamqlite --version)" = "streamqlite 0.1.0" && \
	  test -s $(BUILD)/cli-install/share/zsh/site-functions/_streamqlite && echo "install-cli: ok"

# Imports killed with SIGKILL at random points (seeded, 60 s): through the sqlite3 shell
# (with and without a reject table) and the streamqlite tool (importCSV, importJSON), on a
# rollback-journal and a WAL database, and the tasks server killed during bulk POSTs (its
# debug build, as test-server makes it); each must be whole or absent, and every write
# acknowledged present (scripts/check-crash-points.py).
CRASH_SECONDS ?= 60
TASKS_SERVER_BUILD = swift build --package-path Examples/TasksServer --scratch-path Examples/TasksServer/.build
test-crash: ext cli $(PYTHON)
	$(TASKS_SERVER_BUILD) --product TasksServer 2>&1 | tail -1
	$(PYTHON) scripts/check-crash-points.py $(EXT) --cli $(CLI_BIN) --seconds $(CRASH_SECONDS) \
	  --server "$$($(TASKS_SERVER_BUILD) --show-bin-path)/TasksServer"

# The tasks backend with 10,000 sample tasks in build/tasks.db: PORT=8080 by default.
PORT ?= 8080
serve: swift-toolchain
	@mkdir -p $(BUILD)
	@test -d Examples/TasksServer/.build/release || echo "make serve: the first run builds the server and Hummingbird in release mode: over 10 minutes on 2 cores"
	swift run -c release --package-path Examples/TasksServer TasksServer --port $(PORT) --db $(BUILD)/tasks.db --sample 10000

# Every Extension/bench/bench-*.sh gets the extension's path; each prints its table.
# The JSON benchmark compares against YAJL and reads peak RSS with GNU time.
bench: ext
	@EXTRA_DEBS="libyajl-dev time" bash scripts/ensure-deps.sh
	@set -e; for b in Extension/bench/bench-*.sh; do echo "== $$b"; bash $$b $(EXT); done

# The release artifacts (scripts/make-dist.sh), then each installed as docs/install.md says
# in a fresh Debian 12 root with no compiler, running the weekly report (scripts/check-dist.sh:
# root, the Debian mirror and PyPI; about 1 minute after the 2 of make dist).
dist: swift-toolchain $(PYTHON)
	@bash scripts/make-dist.sh
test-dist: dist
	@bash scripts/check-dist.sh

clean:
	rm -rf build dist
