#!/usr/bin/env bash
# The test command: sets everything up (test/setup.sh), runs every test file (two at a time, see
# test/run-test-files.ts; the Deno client checks run from test/integration/kube-client.test.ts),
# and ends with "N passed, N failed".
#
# The control plane is Kubernetes v1.37 (the newest supported release), and the version-skew subset
# runs again against v1.35, the oldest. KUBE_VERSION=1.35 (or 1.36, 1.37) runs the whole suite
# against that release instead. KUBE_LOOM_TEST_CONTENT_TYPE=application/json runs every kube-loom the
# suite starts, and the suite's own clients, over JSON instead of protobuf.
set -uo pipefail
cd "$(dirname "$0")/.."
OLDEST_SUPPORTED=1.35
skew=()
[ -z "${KUBE_VERSION:-}" ] && skew=(--skew "$OLDEST_SUPPORTED")
SKEW_VERSION="${skew[1]:-}" bash test/setup.sh || exit 1

started=$(date +%s)
./node_modules/.bin/bun test/run-test-files.ts "${skew[@]}"
status=$?
echo "tests took $(( $(date +%s) - started ))s"
exit "$status"
