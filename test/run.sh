#!/usr/bin/env bash
# The test command: sets everything up (test/setup.sh), runs every test file (two at a time, see
# test/run-test-files.ts; the Deno client checks run from test/integration/kube-client.test.ts),
# and ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash test/setup.sh || exit 1

started=$(date +%s)
./node_modules/.bin/bun test/run-test-files.ts
status=$?
echo "tests took $(( $(date +%s) - started ))s"
exit "$status"
