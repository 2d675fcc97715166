# The two commands a newcomer needs: `make demo` and `make test`.
# Each installs what is missing first (scripts/install-deps.sh).

.PHONY: all build test demo bench fuzz deps clean conformance

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	swift build

test: deps
	@bash scripts/test.sh

conformance: deps
	@bash scripts/conformance.sh

demo: deps
	@bash scripts/demo.sh

bench: deps
	@bash scripts/bench.sh

# Usage: make fuzz TARGET=fuzz-jose SECONDS=600
fuzz: deps
	@bash scripts/fuzz.sh $(TARGET) $(SECONDS)

clean:
	rm -rf .build .build-fuzz
