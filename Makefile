# The two commands a newcomer needs: `make demo` and `make test`.
# Each installs what is missing first (scripts/install-deps.sh).

.PHONY: all build test demo bench fuzz deps clean conformance install front

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

# `make install PREFIX=~/.local`: the front as $(PREFIX)/bin/versola (C, `cc -static`: it
# links only the C library and answers a warm `versola token` itself) and the engine as
# $(PREFIX)/libexec/versola/versola (Swift runtime linked statically), which the front runs
# with exec for everything else.
PREFIX ?= /usr/local
CC ?= cc
FRONT_SOURCES := $(wildcard Sources/versola-front/*.c)

front: .build/front/versola

.build/front/versola: $(FRONT_SOURCES) Sources/versola-front/front.h
	@mkdir -p .build/front
	$(CC) -O2 -std=c11 -Wall -Wextra -Werror -static -o $@ $(FRONT_SOURCES)
	strip $@

install: deps front
	swift build -c release --static-swift-stdlib --product versola
	install -d "$(PREFIX)/bin" "$(PREFIX)/libexec/versola"
	install -m 0755 "$$(swift build -c release --show-bin-path)/versola" "$(PREFIX)/libexec/versola/versola"
	install -m 0755 .build/front/versola "$(PREFIX)/bin/versola"

clean:
	rm -rf .build .build-fuzz
