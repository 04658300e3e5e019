#!/usr/bin/env bash
# Usage rows exactly once under ClickHouse faults (issue 26, item 3), run repeatedly: a real ClickHouse is
# killed (-9) mid-insert and after a commit whose reply is held back, and restarted, under a stream of
# events; every run asserts zero missing and zero duplicate rows. USAGE_ROWS_COUNT sets the repetitions
# (default 20; about a minute each on two cores).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec go test -count="${USAGE_ROWS_COUNT:-20}" -timeout 60m \
	-run 'TestUsageRowsExactlyOnceWhileClickHouseIsKilled|TestLostInsertReplyIsNotInsertedTwice|TestReusedRequestIDsAreNotDroppedOnReplay|TestLateCommitAfterAGivenUpInsertIsNotDoubled' \
	./analytics/
