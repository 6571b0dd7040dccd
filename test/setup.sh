#!/usr/bin/env bash
# Installs what kube-loom's tests and its local control plane need on a fresh Debian machine:
# Debian packages, the pinned npm packages (Bun and Deno among them) and the Go-built
# control-plane binaries (cached by version, see test/controlplane/binaries.ts). The Go builds
# take most of a cold run's set-up, so they go on in the background while apt-get installs.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v kubectl >/dev/null || { echo "setup: kubectl not found on PATH (the tests drive objects with the real kubectl)" >&2; exit 1; }
command -v go >/dev/null || { echo "setup: go not found on PATH (needed to build kube-apiserver and etcd)" >&2; exit 1; }

# The lock file lists every platform's optional Bun and Deno packages, so `npm ci` installs exactly it.
# The `node` devDependency fetches its Node 24 binary while installing (the npm package tests run on it).
if [ ! -x node_modules/.bin/bun ] || [ ! -x node_modules/node/bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci (versions pinned by package-lock.json)" >&2
  npm ci --no-audit --no-fund --loglevel=error
fi
# The oldest Node package.json claims, beside the pinned one: the packed-package test runs on both.
echo "setup: Node $(./node_modules/.bin/bun test/support/minimum-node.ts)" >&2

# Go compiles on the CPU while apt-get mostly downloads: side by side they take the time of the builds alone.
# KUBE_VERSION picks the release (default the newest); SKEW_VERSION adds another release's API server.
build_all() {
  ./node_modules/.bin/bun test/controlplane/build.ts --with-local-cluster || return 1
  [ -z "${SKEW_VERSION:-}" ] || KUBE_VERSION="$SKEW_VERSION" ./node_modules/.bin/bun test/controlplane/build.ts
}
build_all &
build_pid=$!
trap 'kill "$build_pid" 2>/dev/null || true' EXIT

# openssl: the test PKI. prometheus: promtool checks /metrics. neutron-server and
# mariadb-server: the real OpenStack Neutron API the network controller's tests run
# (test/network/neutron-server.ts). chromium: the status page is tested in a real headless
# browser driven by playwright-core (test/integration/status-page.test.ts).
apt_packages=(openssl ca-certificates prometheus neutron-server mariadb-server chromium)
missing=()
for p in "${apt_packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}" >&2
  # Debconf configures nothing, and no service may start while installing: the tests start
  # their own servers (a policy-rc.d that refuses, unless the machine already has one).
  debconf-set-selections <<'PRESEED'
neutron-common neutron/configure_db boolean false
neutron-common neutron/configure_rabbit boolean false
neutron-common neutron/configure_ksat boolean false
neutron-common neutron/configure_nova boolean false
neutron-api neutron/configure_api-endpoint boolean false
PRESEED
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d; kill "$build_pid" 2>/dev/null || true' EXIT
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
wait "$build_pid" || { echo "setup: building the control-plane binaries failed (see above)" >&2; exit 1; }
