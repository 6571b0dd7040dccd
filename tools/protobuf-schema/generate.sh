#!/usr/bin/env bash
# Regenerates pkg/kube/protobuf/schema.generated.ts from the Go types of the k8s.io/api version in
# this directory's go.mod. Needs only Go.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$here"
exec go run . "$repo/pkg/kube/protobuf/schema.generated.ts"
