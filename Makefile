# The two commands a newcomer needs: `make demo` and `make test` (the full run CI uses).
# `make check` is the inner loop: a build with warnings as errors and the unit tests only.
# Each installs what is missing first (scripts/install-deps.sh).

.PHONY: all build check test demo bench fuzz deps clean conformance lint

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	swift build

check: deps
	@bash scripts/check.sh

test: deps
	@bash scripts/test.sh

lint:
	@bash scripts/shellcheck.sh

conformance: deps
	@bash scripts/conformance.sh

demo: deps
	@bash scripts/demo.sh

bench: deps
	@bash scripts/bench.sh

# Usage: make fuzz TARGET=fuzz-jose SECONDS=600
fuzz: deps
	@bash scripts/fuzz.sh $(TARGET) $(SECONDS)

# Every build directory: .build and the separate ones (.build-fuzz, .build-tsan, .build-interop).
clean:
	rm -rf .build .build-*
