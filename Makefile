# adsync: `make run` runs the zero-config demo, `make test` passes the tests.
SHELL := /bin/bash
GO ?= go
BIN := bin
STATICCHECK_VERSION := v0.8.2
GO_FILES = $(shell find . -name '*.go' -not -path './node_modules/*' -not -path './.adsync/*' -not -path './.ci/*')

.PHONY: build run test test-deps fmt-check vet bench lint clean duckdb

## build: compile bin/adsync
build:
	$(GO) build -o $(BIN)/adsync ./cmd/adsync

## run: one full pipeline pass on the zero-config default (local Postgres under .adsync/, fake service)
run: build
	./$(BIN)/adsync run

## duckdb: run SQL="..." with DuckDB in this directory (e.g. over ./out); DuckDB's Node API is installed on first use
duckdb:
	@if [ -z "$$SQL" ]; then echo 'usage: make duckdb SQL="SELECT ..."' >&2; exit 2; fi
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "make duckdb needs Node.js and npm (apt-get install nodejs npm)" >&2; exit 1; }
	@if [ ! -d export/testdata/node_modules/@duckdb/node-api ]; then \
	  echo "installing DuckDB's Node API under export/testdata (once)" >&2; \
	  (cd export/testdata && npm install --no-audit --no-fund --loglevel=error >/dev/null); fi
	@node export/testdata/duckdb_query.mjs "$$SQL"

## test: gofmt check, go vet, every test with the race detector and, beside it, each fuzz target briefly
test: test-deps fmt-check vet
	@GO=$(GO) bash .ci/test-race

## test-deps: install what the tests need beyond Go (a real OAuth client we did not write, ...)
test-deps:
	@bash .ci/test-deps

fmt-check:
	@out=$$(gofmt -l $(GO_FILES)); if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet -trimpath ./...

## bench: the benchmarks, each figure beside its baseline measured in the same run, printed and written to docs/performance-figures.md
bench:
	@bash .ci/bench

## lint: staticcheck, pinned
lint:
	GOBIN=$(CURDIR)/$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	./$(BIN)/staticcheck ./...

clean:
	rm -rf $(BIN) out
