# spawnkit top-level Makefile.
#
#   make            libspawnkit (static + shared), tools, examples
#   make test       every test: C suite on each backend the host has, fuzz
#                   smoke runs, Python, Node.js, and the patched kernel under QEMU
#   make test-user  every test that needs no patched kernel
#   make test-fallback  the Python and Node suites on the portable fallback:
#                   forced, and under seccomp without clone3/pidfd_open
#   make test-packages  build the sdist, wheel and npm tarball, install each
#                   in a temporary directory with no checkout, smoke-test it
#   make test-stress  the stress and fault suite, full size (tests/stress/)
#   make test-asan  the library and the C stress programs under ASan/UBSan
#   make bench      the main benchmark (agent-tools table), then Python run()'s
#                   overhead against subprocess.run (python bench-run, seconds)
#   make bench-spawn / bench-batch / bench-node / bench-kernel / bench-warm
#   make test-warm  warm templates: cold/warm equivalence corpus
#   make install    PREFIX=/usr/local DESTDIR=
#
# Layout: include/spawnkit (public headers, UAPI mirrors), src/common (raw
# syscalls, the probe for the kernel calls), src/spawn (templates: API, user and kernel
# backends), src/batch (batches), tools (mdu, total, pathsearch), tests/<area>
# (one t_*.c per feature), tests/fuzz (libFuzzer targets), bench/, kernel/,
# python/, node/.  Nothing in src/ calls into tools/, tests/ or bindings.

PREFIX  ?= /usr/local
DESTDIR ?=
B       ?= build
CC      ?= gcc
VERSION := 0.1.0

CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes -Wshadow
CPPFLAGS_ALL := -Iinclude -Isrc -D_GNU_SOURCE $(CPPFLAGS)
CFLAGS_ALL   := -std=gnu11 $(WARN) -fPIC -fvisibility=hidden $(CFLAGS)
LIBS    := -lpthread $(shell pkg-config --exists liburing 2>/dev/null && echo -luring)
URING_CPPFLAGS := $(shell pkg-config --exists liburing 2>/dev/null && echo -DSPAWNKIT_HAVE_LIBURING=1)

LIB_SRCS  := $(sort $(wildcard src/*/*.c))
LIB_ASRCS := $(sort $(wildcard src/*/*.S))
LIB_OBJS  := $(LIB_SRCS:%.c=$(B)/%.o) $(LIB_ASRCS:%.S=$(B)/%.o)
HDRS      := $(wildcard include/spawnkit/*.h src/*/*.h)

TEST_SRCS := $(sort $(wildcard tests/*/t_*.c))
TEST_BINS := $(TEST_SRCS:%.c=$(B)/%)
# Programs the tests start (not tests themselves): build/tests/helpers/*
HELPER_SRCS := $(sort $(wildcard tests/helpers/*.c))
HELPER_BINS := $(HELPER_SRCS:%.c=$(B)/%)
# The stress and fault suite's C programs (tests/stress/c_*.c)
STRESS_SRCS := $(sort $(wildcard tests/stress/c_*.c))
STRESS_BINS := $(STRESS_SRCS:%.c=$(B)/%)
TOOL_SRCS := $(sort $(wildcard tools/*.c))
TOOL_BINS := $(TOOL_SRCS:tools/%.c=$(B)/bin/%)
EX_SRCS   := $(sort $(wildcard examples/*.c))
EX_BINS   := $(EX_SRCS:%.c=$(B)/%)

.PHONY: all lib test test-user test-c test-exports test-fuzz test-python test-node \
	test-kernel test-fallback test-packages test-stress test-stress-smoke stress-bins test-asan test-warm \
	bench bench-spawn bench-batch bench-node bench-kernel bench-warm kernel \
	deps install clean

all: lib $(TOOL_BINS) $(EX_BINS)

lib: $(B)/libspawnkit.a $(B)/libspawnkit.so $(B)/spawnkit.pc

$(B)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(URING_CPPFLAGS) $(CFLAGS_ALL) -c -o $@ $<

$(B)/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -c -o $@ $<

# The warm interpreter's bootstrap is assembled into the library (.incbin).
$(B)/src/warm/blob.o: src/warm/bootstrap.py src/warm/importcache.py

$(B)/libspawnkit.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/libspawnkit.so: $(LIB_OBJS) src/libspawnkit.map
	$(CC) -shared -Wl,-soname,libspawnkit.so.0 -Wl,--version-script=src/libspawnkit.map \
		-o $@ $(LIB_OBJS) $(LIBS)

# Libs.private: what the static archive needs, -luring only when built in.
$(B)/spawnkit.pc: src/spawnkit.pc.in Makefile
	@mkdir -p $(B)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
		-e 's|@LIBS_PRIVATE@|$(LIBS)|g' $< > $@

# Tests, tools and examples link the static library so the same binaries run
# on the host and (built with STATIC=1) inside the QEMU guest.
LDSTATIC := $(if $(STATIC),-static,)
$(B)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LDSTATIC)

$(B)/tests/%: tests/%.c $(wildcard tests/*.h tests/*/*.h) $(B)/libspawnkit.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) -o $@ $< $(B)/libspawnkit.a $(LIBS) $(LDSTATIC)

$(B)/bin/%: tools/%.c $(B)/libspawnkit.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(B)/libspawnkit.a $(LIBS) $(LDSTATIC)

$(B)/examples/%: examples/%.c $(B)/libspawnkit.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(B)/libspawnkit.a $(LIBS) $(LDSTATIC)

test-bins: $(TEST_BINS) $(HELPER_BINS) $(TOOL_BINS)

# ---- tests ---------------------------------------------------------------

deps:
	./scripts/install-deps.sh

test: deps
	./scripts/run-all-tests.sh all

test-user: deps
	./scripts/run-all-tests.sh user

test-c: lib test-bins
	./tests/run-tests.sh $(B)

# libspawnkit.so exports exactly src/libspawnkit.map, the headers' API, each
# function with a man page.
test-exports: lib
	./tests/abi/check-exports.sh $(B)

test-fuzz: lib
	$(MAKE) -C tests/fuzz B=$(abspath $(B)) run

test-python: lib
	$(MAKE) -C python test

test-node: lib
	$(MAKE) -C node test

test-kernel:
	$(MAKE) -C kernel test

# The bindings installed as test-python / test-node do it, then their suites
# three times each (scripts/test-fallback.sh).
test-fallback: lib $(B)/tests/helpers/deny_pidfd
	$(MAKE) -C python install
	$(MAKE) -C node addon node_modules/.package-lock.json
	./scripts/test-fallback.sh

# sdist, wheel (abi3, manylinux) and npm tarball, each installed with the
# checkout hidden and smoke-tested; prints sizes and install times.
test-packages:
	./scripts/install-deps.sh packages python node
	./scripts/test-packages.sh

# The stress and fault suite (tests/stress/run.sh): load, faults, bad inputs,
# batches, fuzzers for a fixed number of runs; ends with one line of totals
# and fails on any crash, hang, leak or wrong result.  test-stress is the
# full size, test-stress-smoke the one `make test` runs.  PY=... chooses the
# Python the binding is installed into and run with (default: the real
# interpreter behind python3).
stress-bins: lib $(STRESS_BINS) $(HELPER_BINS) $(TOOL_BINS)
	$(MAKE) -s -C python install $(if $(PY),PY=$(PY))
	$(MAKE) -s -C node

test-stress: stress-bins
	PY=$(PY) ./tests/stress/run.sh full

test-stress-smoke: stress-bins
	PY=$(PY) ./tests/stress/run.sh smoke

# The library and the C stress programs built with ASan and UBSan (in
# build-asan/), then the C scenarios at smoke size: a memory error or
# undefined behaviour aborts its scenario, which counts as a crash.
ASAN_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
test-asan:
	$(MAKE) -s B=build-asan CFLAGS="$(ASAN_CFLAGS)" lib \
		$(STRESS_SRCS:%.c=build-asan/%) $(HELPER_SRCS:%.c=build-asan/%)
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
		B=build-asan STRESS_ASAN=1 STRESS_RSS_SLACK_KB=262144 STRESS_ONLY='c_*' ./tests/stress/run.sh smoke

# Warm templates: the corpus cold and warm alternately, byte for byte, with
# the configured python3 and Debian's /usr/bin/python3, then warm
# interpreters that die at each step of a request (tests/warm/).
# WARM_PY runs the suite (spawnkit is installed for it, e.g. a venv's python);
# WARM_TARGETS are the interpreters under test.
WARM_PY ?= $(shell ./scripts/venv.sh)
WARM_TARGETS ?= $(shell ./scripts/find-python.sh) /usr/bin/python3
test-warm: lib
	$(MAKE) -C python install PY=$(WARM_PY)
	$(WARM_PY) tests/warm/equivalence.py $(WARM_TARGETS)
	$(WARM_PY) tests/warm/robust.py $(WARM_TARGETS)

kernel:
	$(MAKE) -C kernel bzImage

# ---- benchmarks ----------------------------------------------------------

bench: deps lib
	$(MAKE) -C bench/agent_tools run
	$(MAKE) -C python bench-run

bench-spawn: lib
	$(MAKE) -C bench/spawn run B=$(abspath $(B))

bench-batch: lib $(TOOL_BINS)
	$(MAKE) -C bench/batch run B=$(abspath $(B))

bench-node: lib
	$(MAKE) -C node bench

bench-warm: lib
	$(MAKE) -C python install PY=$(WARM_PY)
	$(WARM_PY) bench/warm/bench_warm.py $(WARM_BENCH_ARGS) $(WARM_TARGETS)

bench-kernel:
	$(MAKE) -C kernel bench

# ---- install -------------------------------------------------------------

install: all
	install -d $(DESTDIR)$(PREFIX)/include/spawnkit $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 include/spawnkit/*.h $(DESTDIR)$(PREFIX)/include/spawnkit/
	install -m 644 $(B)/libspawnkit.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(B)/libspawnkit.so $(DESTDIR)$(PREFIX)/lib/libspawnkit.so.$(VERSION)
	ln -sf libspawnkit.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libspawnkit.so.0
	ln -sf libspawnkit.so.0 $(DESTDIR)$(PREFIX)/lib/libspawnkit.so
	install -m 644 $(B)/spawnkit.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	$(if $(TOOL_BINS),install -m 755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/bin/)
	$(if $(wildcard man/man1/*.1),install -m 644 man/man1/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/)
	$(if $(wildcard man/man3/*.3),install -m 644 man/man3/*.3 $(DESTDIR)$(PREFIX)/share/man/man3/)

clean:
	rm -rf $(B)
