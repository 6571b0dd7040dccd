#!/usr/bin/env bash
# Sets everything up on a fresh Debian machine (test/setup.sh) and runs kube-loom against a
# local control plane in the foreground (deploy/local.ts). Extra arguments go to kube-loom.
set -euo pipefail
cd "$(dirname "$0")/.."
bash test/setup.sh
exec ./node_modules/.bin/bun deploy/local.ts "$@"
