#!/usr/bin/env bash
# The test command: sets everything up (test/setup.sh), runs every test (the Deno client
# checks run from test/integration/kube-client.test.ts), and ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash test/setup.sh || exit 1

log_dir=$(mktemp -d)
started=$(date +%s)

./node_modules/.bin/bun test --timeout 600000 2>&1 | tee "$log_dir/bun.log"
bun_status=${PIPESTATUS[0]}

# bun's closing lines are " 12 pass" and " 0 fail".
count() { local n; n=$(grep -Eo "$1" "$2" | grep -Eo '[0-9]+' | tail -1); echo "${n:-0}"; }
passed=$(count '^ *[0-9]+ pass$' "$log_dir/bun.log")
failed=$(count '^ *[0-9]+ fail$' "$log_dir/bun.log")
if [ "$bun_status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "tests took $(( $(date +%s) - started ))s (bun exit $bun_status)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
