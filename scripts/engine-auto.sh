#!/usr/bin/env bash
# cp --engine auto on the embedded S3 server: seeds N objects of the field
# report's layout (100 KiB each unless SIZE says otherwise), copies them
# bucket to bucket with --engine auto, and prints what auto measured and
# decided. No control plane runs here: auto only needs one when it hands
# over to a job, and then it stops at "needs --role-arn" and copies locally.
#
#   ./scripts/engine-auto.sh [OBJECTS...]      e.g. 5000 100000
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(5000 100000)
size=${SIZE:-100KiB}
. scripts/lib.sh
lib_init engine-auto
build_s3bulk
local_credentials
start "$work/s3bulk" serve --dir "$work/data"
export AWS_ENDPOINT_URL=$endpoint
b() { "$work/s3bulk" --no-progress "$@"; }
for n in "${counts[@]}"; do
  b mb "s3://src-$n" >/dev/null
  b mb "s3://dst-$n" >/dev/null
  b --quiet seed "s3://src-$n/" --objects "$n" --size "$size" >/dev/null
  echo "== $n objects of $size"
  /usr/bin/time -f "wall %e s" "$work/s3bulk" --no-progress --quiet cp --engine auto --recursive "s3://src-$n/" "s3://dst-$n/" 2>&1 |
    grep -E '^(engine|estimate)|^wall'
  got=$(b ls --recursive "s3://dst-$n/" | wc -l)
  [ "$got" -eq "$n" ] || { echo "copied $got objects, want $n" >&2; exit 1; }
done
