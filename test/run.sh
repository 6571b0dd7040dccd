#!/usr/bin/env bash
# The test command: sets everything up (test/setup.sh), runs every test under Bun, then
# the client tests under Deno, and ends with one summary line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash test/setup.sh || exit 1

log_dir=$(mktemp -d)
started=$(date +%s)

./node_modules/.bin/bun test --timeout 600000 2>&1 | tee "$log_dir/bun.log"
bun_status=${PIPESTATUS[0]}
./node_modules/.bin/deno test --allow-all --quiet test/deno/ 2>&1 | tee "$log_dir/deno.log"
deno_status=${PIPESTATUS[0]}

# bun prints " 12 pass" / " 0 fail"; deno prints "ok | 3 passed | 0 failed".
count() { local n; n=$(grep -Eo "$1" "$2" | grep -Eo '[0-9]+' | tail -1); echo "${n:-0}"; }
passed=$(( $(count '^ *[0-9]+ pass$' "$log_dir/bun.log") + $(count '[0-9]+ passed' "$log_dir/deno.log") ))
failed=$(( $(count '^ *[0-9]+ fail$' "$log_dir/bun.log") + $(count '[0-9]+ failed' "$log_dir/deno.log") ))
if [ "$bun_status" -ne 0 ] || [ "$deno_status" -ne 0 ]; then
  [ "$failed" -gt 0 ] || failed=1
fi
echo "tests took $(( $(date +%s) - started ))s (bun exit $bun_status, deno exit $deno_status)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
