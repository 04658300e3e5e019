# The README's two commands: `make run` and `make test`. Everything else is optional.
GO      ?= go
BIN     := bin/shariah
DATA    ?= $(abspath ../shared/data)
PKG     := github.com/shariah-screen/shariah

.PHONY: help build run test stress lint bench load sizing bench-analytics smoke screenshots services-up services-down up down cluster-up cluster-down migrate clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  %-14s %s\n", $$1, $$2}'

build: ## build bin/shariah
	$(GO) build -o $(BIN) ./cmd/shariah

run: build ## start Redis and ClickHouse locally, migrate, load the data, serve the API on :8000 and MCP on :8001
	scripts/services.sh up
	$(BIN) migrate
	$(BIN) load --default --problems 0
	@if [ -d "$(DATA)" ]; then $(BIN) load --shared "$(DATA)" --problems 0; else echo "no shared data at $(DATA): default universe only"; fi
	@# With the shared data, the SEC ingester reads its EDGAR mirror (file://) instead of sec.gov.
	if [ -d "$(DATA)/sec" ]; then export SHARIAH_SEC_DATA_URL="$${SHARIAH_SEC_DATA_URL:-file://$(DATA)/sec}" \
	  SHARIAH_SEC_WWW_URL="$${SHARIAH_SEC_WWW_URL:-file://$(DATA)/sec}" SHARIAH_SEC_SYMBOLS="$${SHARIAH_SEC_SYMBOLS:-*}"; fi; \
	SHARIAH_DATA_DIR=$$( [ -d "$(DATA)" ] && echo "$(DATA)" ) exec $(BIN) all

test: ## vet and run every test (installs Redis and ClickHouse when missing; tests start their own)
	scripts/install-services.sh
	$(GO) vet ./...
	SHARIAH_DATA_DIR=$$( [ -d "$(DATA)" ] && echo "$(DATA)" ) $(GO) test -count=1 -timeout 20m ./...
	$(MAKE) build
	scripts/mcp-check.sh

stress: ## about ten minutes, not in make test: the meter and lease tests under -race 500 times, the lease property test for 90 s, the fault tests (edge and Redis killed under load) and scripts/stress.d/*.sh
	scripts/stress.sh

lint: ## gofmt, vet, the import direction of the layout, and Redocly's lint of the OpenAPI document
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...
	scripts/check-imports.sh
	scripts/lint-openapi.sh

screenshots: ## the dashboard's screenshots for the README (headless Chromium over a seeded server): docs/img/dashboard-*.png
	SHARIAH_SCREENSHOTS=$(abspath docs/img) $(GO) test -count=1 -run '^TestDashboardInChromium$$' ./edge/

bench: ## Go benchmarks: the meter and its token lease (real Redis), search and suggest, the inline-XBRL reader and the companyfacts.zip path, webhook fan-out and delivery to 1,000 endpoints, an S&P 500 rescreen's changes delivered to 1,000 endpoints (with the shared data)
	scripts/install-services.sh
	$(GO) test -run '^$$' -bench . -benchtime 3s ./redis/
	$(GO) test -run '^$$' -bench FanOutAndDelivery -benchtime 2x ./jobs/
	SHARIAH_DATA_DIR=$$( [ -d "$(DATA)" ] && echo "$(DATA)" ) $(GO) test -run '^$$' -bench SP500RescreenChangesAndDeliveries -benchtime 1x ./edge/
	SHARIAH_DATA_DIR=$$( [ -d "$(DATA)" ] && echo "$(DATA)" ) $(GO) test -run '^$$' -bench 'Search|Suggest' -benchmem ./catalog/
	SHARIAH_DATA_DIR=$$( [ -d "$(DATA)" ] && echo "$(DATA)" ) $(GO) test -run '^$$' -bench 'ParseInlineXBRL|CompanyFactsZip' -benchmem ./ingest/sec/

bench-analytics: ## usage analytics over 100M synthetic rows in a ClickHouse of its own: insert rate, storage per row, query times cold and warm (about 7 minutes; not in make test)
	scripts/bench-analytics.sh

load: ## wrk on loopback, free/pro/enterprise keys: metered, quote, cached screening, search, suggest vs the constant route (ratio, p50/p99, targets), p99 at 8 connections, lease and search benchmarks
	scripts/load.sh

sizing: ## per-core figures for docs/deploy.md: edge req/s per core by route, worker symbols/s, ClickHouse usage rows/s (taskset, wrk; about 10 minutes)
	scripts/sizing.sh

smoke: build ## start the services and the binary, and walk the key flow with curl
	scripts/smoke.sh

services-up: ## start local Redis and ClickHouse (data in .local/)
	scripts/services.sh up

services-down: ## stop them
	scripts/services.sh down

migrate: build ## create or update the ClickHouse schema
	$(BIN) migrate

up: ## docker compose up (needs a Docker engine)
	docker compose up -d --build

down: ## docker compose down
	docker compose down

cluster-up: ## docker compose, the cluster profile: Redis Cluster, ClickHouse replicas, edges behind a load balancer on :8080 (docs/deploy.md)
	docker compose --profile cluster up -d --build cluster-lb cluster-worker cluster-ingest

cluster-down: ## stop the cluster profile
	docker compose --profile cluster down

clean:
	rm -rf bin
