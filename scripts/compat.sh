#!/usr/bin/env bash
# The differential tests with both peers live: every case of
# internal/compattest through s3bulk, s5cmd v2.3.0 and the AWS CLI, checked
# against the compat contract (docs/compat.md), and the peers' results
# checked against those recorded in internal/compattest/testdata.
#
#   ./scripts/compat.sh            # check
#   ./scripts/compat.sh -update    # re-record the peers' results
#
# The aws CLI must be on PATH (or named by S3BULK_COMPAT_AWS). s5cmd is
# S3BULK_COMPAT_S5CMD if set, else built once from the Go module proxy into
# the user cache directory.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${S3BULK_COMPAT_AWS:-}" ] && ! command -v aws >/dev/null; then
  echo "compat.sh: the aws CLI is not on PATH (or set S3BULK_COMPAT_AWS)" >&2
  exit 2
fi
for v in S3BULK_COMPAT_AWS S3BULK_COMPAT_S5CMD; do
  [ "${!v:-}" != off ] || { echo "compat.sh: $v=off: this script runs the peers live" >&2; exit 2; }
done
# -v shows each peer's mode (live or recorded) and the case counts; the
# full log is kept only when something fails.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
go test -count=1 -timeout 20m ./internal/compattest/ -run TestCompat -v "$@" >"$log" 2>&1 || status=$?
if [ "$status" -eq 0 ]; then
  grep -E 'compat_test.go:[0-9]+: (aws|s5cmd|[0-9]+ cases|recorded|-update)|^ok' "$log" || true
else
  grep -vE '^=== (RUN|PAUSE|CONT|NAME)' "$log"
fi
exit "$status"
