#!/usr/bin/env bash
# Checks the release configuration (.goreleaser.yaml) with goreleaser run
# from the Go module proxy, pinned: `check` validates the file; with
# BUILD=1, `build --snapshot --clean` also builds the six binaries
# (linux, darwin, windows x amd64, arm64) into dist/ without a tag or a
# publish. No docker and no network beyond the module proxy (go run
# asks it about the version even when the module cache holds it).
#
# Slow on a small machine: compiling goreleaser took minutes on 2 cores,
# and the snapshot build 24 minutes under heavy load. Not part of CI.
#
#   ./scripts/release-check.sh
#   BUILD=1 ./scripts/release-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
goreleaser=github.com/goreleaser/goreleaser/v2@${GORELEASER_VERSION:-v2.15.1}
go run "$goreleaser" check
if [ "${BUILD:-0}" = 1 ]; then
  go run "$goreleaser" build --snapshot --clean
  ls dist/*/s3bulk*
fi
