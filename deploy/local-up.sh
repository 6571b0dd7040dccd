#!/usr/bin/env bash
# Sets everything up on a fresh Debian machine (test/setup.sh), then runs a local cluster minus
# kubelets (kube-apiserver, kube-controller-manager, kube-scheduler, kwok's fake node) with
# kube-loom against it in the foreground (deploy/local.ts). Extra arguments go to kube-loom.
set -euo pipefail
cd "$(dirname "$0")/.."
bash test/setup.sh
exec ./node_modules/.bin/bun deploy/local.ts "$@"
