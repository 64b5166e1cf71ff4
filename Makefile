# fabmpi — top-level entry points.
#   make            build (into build/)
#   make demo       install what is missing, build, run the examples with 4 ranks
#   make test       install what is missing, build, run every default test suite
#   make test-asan  the MPI tests under AddressSanitizer + UBSan (build-asan/)
#   make test-tsan  the threaded MPI tests (MPI_THREAD_MULTIPLE, progress thread) under ThreadSanitizer
#   make test-fuzz  each libFuzzer target FUZZ_SECONDS (60) from its seed corpus (clang, build-fuzz/)
#   make test-valgrind  the MPI tests with every rank under valgrind memcheck
#   make test-cluster   two hosts (network namespaces + sshd) joined by mpiexec --launcher ssh
#   make test-mpich     MPICH's test suite (../shared/mpich-testsuite), C directories, <= 8 ranks
#   make test-mpich-fortran  the same suite's f77, f90 and f08 directories
#   make bench      fabmpi vs Open MPI vs MPICH, side by side (bench/RESULTS.md)
#   make bench-osu  the OSU Micro-Benchmarks 7.4, defaults, vs Open MPI and MPICH (bench/OSU.md)
#   make install PREFIX=/opt/fabmpi
#   make docs       regenerate docs/ENV.md from the knob table

PREFIX ?= /usr/local
BUILD ?= build
WERROR ?= 0
SHELL := /bin/bash

# Build: compiler, Meson+Ninja, cmocka; libfabric (OFI transport); PMIx and
# Slurm's PMI-2 (external launchers).  Tests also start a one-node Slurm and
# launch through Open MPI's and MPICH's launchers.
DEPS := gcc g++ gfortran make pkg-config meson ninja-build libcmocka-dev python3 \
        libfabric-dev libfabric-bin libpmix-dev libpmi2-0-dev libhwloc-dev
TEST_DEPS := slurmd slurmctld slurm-client munge openmpi-bin mpich procps cmake libomp-dev \
             openssh-server openssh-client iproute2
BENCH_DEPS := openmpi-bin libopenmpi-dev mpich libmpich-dev gnuplot-nox libtool

MESON_OPTS := -Dwerror=$(if $(filter 1,$(WERROR)),true,false)

.PHONY: all build deps test-deps bench-deps demo test test-asan test-tsan test-fuzz test-cluster test-ofi test-am test-valgrind test-mpich test-mpich-fortran bench bench-osu install docs clean

all: build

# Install missing Debian packages; without root, say exactly what to install.
define ensure_packages
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "fabmpi needs these Debian packages:$$missing"; \
	    echo "install them with: sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

deps:
	$(call ensure_packages,$(DEPS))

bench-deps:
	$(call ensure_packages,$(DEPS) $(BENCH_DEPS))

test-deps:
	$(call ensure_packages,$(DEPS) $(TEST_DEPS))

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	meson configure $(BUILD) $(MESON_OPTS) >/dev/null
	ninja -C $(BUILD)

demo: build
	bash examples/run-demo $(BUILD)

test: test-deps build
	bash tests/run-all $(BUILD)

test-asan: deps
	[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
	ninja -C build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp) \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  bash tests/run-all build-asan

# The threaded tests (tests/mpi/TESTLIST's thr_*, env_thread, mpit_event
# whose events are also told on the progress thread, and active messages
# whose handlers run there, tasks parked in an installed crt runtime) with the
# library, the launcher and the tests built under ThreadSanitizer.  Not the
# OpenMP ones (omp_*): libgomp is not instrumented, so TSan cannot see its
# task dependences and reports races that are none.
test-tsan: deps
	[ -f build-tsan/build.ninja ] || meson setup build-tsan -Db_sanitize=thread -Db_lundef=false -Dbuildtype=debugoptimized
	ninja -C build-tsan
	TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=$(abspath tests/tsan.supp) \
	  python3 tests/run-mpi-tests build-tsan --filter thr_ --timeout-scale 4
	TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=$(abspath tests/tsan.supp) \
	  python3 tests/run-mpi-tests build-tsan --filter env_thread
	TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=$(abspath tests/tsan.supp) \
	  python3 tests/run-mpi-tests build-tsan --filter ofi_grouping --timeout-scale 4
	TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=$(abspath tests/tsan.supp) \
	  python3 tests/run-mpi-tests build-tsan --filter mpit_event --timeout-scale 4
	TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=$(abspath tests/tsan.supp) \
	  python3 tests/run-mpi-tests build-tsan --filter 'am_basic n=3 [FABMPI_PROGRESS_THREAD=on]' --timeout-scale 4
	TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=$(abspath tests/tsan.supp) \
	  python3 tests/run-mpi-tests build-tsan --filter 'am_rma n=3 [FABMPI_PROGRESS_THREAD=on' --timeout-scale 4
	TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=$(abspath tests/tsan.supp) \
	  python3 tests/run-mpi-tests build-tsan --filter 'am_dht n=3 [FABMPI_PROGRESS_THREAD=on]' --timeout-scale 4
	TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=$(abspath tests/tsan.supp) \
	  python3 tests/run-mpi-tests build-tsan --filter task_crt --timeout-scale 4

# The parsers that read bytes from outside the process, under libFuzzer +
# ASan + UBSan (tests/fuzz/): each target FUZZ_SECONDS, one after another.
FUZZ_SECONDS ?= 60
test-fuzz: deps
	@command -v clang >/dev/null || { echo "make test-fuzz needs clang: apt-get install -y clang"; exit 1; }
	[ -f build-fuzz/build.ninja ] || CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=false \
	  -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug -Doptimization=1
	ninja -C build-fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run-fuzz build-fuzz

# Two hosts on this machine: network namespaces joined by a veth pair, sshd in
# each, our mpiexec --launcher ssh across them over the OFI net provider.
test-cluster: test-deps build
	python3 tests/run-cluster-tests $(BUILD)

# The whole MPI suite over libfabric: providers net, tcp;ofi_rxm x engines
# sw, ofi, and shm with software matching, x 2, 3, 4 ranks; sockets,
# udp;ofi_rxd, net;ofi_rxm with the engine auto picks (about 750 cases; too
# long for `make test`).
test-ofi: test-deps build
	python3 tests/run-ofi-matrix $(BUILD)

# The active-message layer's matrix (tests/mpi/TESTLIST.am): every AM test
# at 2, 3, 4, 8 ranks over shm, net and tcp;ofi_rxm, 10^6-request floods.
test-am: test-deps build
	python3 tests/run-mpi-tests $(BUILD) --testlist tests/mpi/TESTLIST.am

# MPICH's conformance tests: configure needs automake's and libtool's helper
# scripts (tests/run-mpich copies them in); about an hour on 2 cores.
test-mpich: build
	$(call ensure_packages,automake libtool)
	bash tests/run-mpich $(BUILD)

# Its Fortran directories, configured apart with our mpif77 and mpifort
# (docs/MPICH-TESTS.md); about 5 minutes.
test-mpich-fortran: build
	$(call ensure_packages,automake libtool)
	bash tests/run-mpich $(BUILD) f77 f90 f08

# Every MPI test at its listed rank counts, each rank under valgrind memcheck.
test-valgrind: build
	python3 tests/run-mpi-tests $(BUILD) --launcher "$(abspath $(BUILD))/tools/mpiexec -n {n} $(abspath tests/valgrind-wrap)"

bench: bench-deps build
	python3 bench/run-bench --build $(BUILD)

# OMB 7.4 from ../shared, unmodified, built against each implementation (libtool
# supplies the ltmain.sh its configure expects); ROUNDS rounds (default 5).
ROUNDS ?= 5
bench-osu: bench-deps build
	$(call ensure_packages,libtool)
	python3 bench/run-osu --build $(BUILD) --rounds $(ROUNDS)

install: deps
	[ -f $(BUILD)-install/build.ninja ] || meson setup $(BUILD)-install --prefix=$(abspath $(PREFIX)) --libdir=lib -Dtests=false
	meson configure $(BUILD)-install --prefix=$(abspath $(PREFIX)) >/dev/null
	ninja -C $(BUILD)-install
	meson install -C $(BUILD)-install

docs: build
	$(BUILD)/tools/fabmpi_info --markdown > docs/ENV.md

clean:
	rm -rf $(BUILD) build-asan build-fuzz $(BUILD)-install
