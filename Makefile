# cachelens: the two set-up commands are `make run` and `make test`.
# Everything else here is for developers.

PRESET ?= default
BUILD_DIR := build/$(PRESET)

.PHONY: all install-deps configure build programs run test check-fresh check-deps package bench fuzz soak asan format \
	check-format clean

all: build

install-deps:
	@scripts/install-deps.sh

configure: install-deps
	@cmake --preset $(PRESET) >/dev/null

build: configure
	@cmake --build --preset $(PRESET)

# Only the two programs (and what they link): the test suites, fuzzers and
# benchmarks are `make test`'s and `make bench`'s to build.
programs: configure
	@cmake --build --preset $(PRESET) --target cachelens cachelens-gui

# Opens the GUI on the user's cache ($$TORCHINDUCTOR_CACHE_DIR, else torchinductor_$$USER in the temp dir) or the
# sample cache; with no display, prints `cachelens scan` of it.
run: programs
	@BUILD_DIR=$(abspath $(BUILD_DIR)) scripts/run.sh

# Every test: the engine and CLI suites, and the GUI ones under QT_QPA_PLATFORM=offscreen.
test: build
	@ctest --preset $(PRESET) -j 2

# The README's set-up on a clean Debian 12 root (debootstrap; needs root and the
# Debian archive): install-deps, every preset configured, make run, the engine
# suites. check-deps stops after configuring (CI runs it). scripts/check-fresh.sh.
check-fresh:
	@scripts/check-fresh.sh

check-deps:
	@scripts/check-fresh.sh --configure-only

# The Debian package, build/$(PRESET)/cachelens_<version>_<arch>.deb (packaging/CMakeLists.txt).
package: build
	@cd $(BUILD_DIR) && cpack -G DEB

# Speed and memory against the Python/PyTorch anchors; see docs/PERFORMANCE.md.
bench: build
	@bench/run-benchmarks.sh $(BUILD_DIR)

# libFuzzer targets for every parser (clang); FUZZ_SECONDS per target, 60 by default, or a
# budget of CPU time per target: `make fuzz FUZZ_CPU_SECONDS=1800 FUZZ_KEEP=1` (keeps the
# minimized corpora in tests/fuzz/corpus/ and the runs in tests/fuzz/ledger.tsv).
# FUZZ_TARGETS picks targets (default: all of them).
fuzz: install-deps
	@tests/fuzz/run-fuzzers.sh $(FUZZ_TARGETS)

# The soak test at full length (tests/ui/tst_soak.cpp): PyTorch, Triton, OnDiskCache and
# vLLM writers and a process holding files open, beside index, prune, verify, stats and the
# window, for 8 minutes (`make test` runs it for 20 s).
soak: build
	@cd $(BUILD_DIR) && CACHELENS_SOAK_SECONDS=480 ctest -R '^tst_soak$$' --output-on-failure --timeout 900

# The test suites under AddressSanitizer and UndefinedBehaviorSanitizer.
asan: install-deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan
	@ctest --preset asan -j 2

format:
	@git ls-files '*.cpp' '*.h' | xargs clang-format -i

check-format:
	@git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run --Werror

clean:
	@rm -rf build
