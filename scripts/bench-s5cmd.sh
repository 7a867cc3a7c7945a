#!/usr/bin/env bash
# Benchmark: s3bulk vs s5cmd copying the field report's 5,000 x 100 KiB
# objects bucket to bucket (server-side) on the embedded S3 server, in one
# run, alternating tools. Prints wall seconds and client CPU seconds
# (user+sys) per run, the medians, and the ratios s3bulk/s5cmd.
#
#   S5CMD=/path/to/s5cmd ./scripts/bench-s5cmd.sh [ROUNDS]
#
# s5cmd is not part of this repository; build v2.3.0 in a scratch module:
#   go mod init x && go get github.com/peak/s5cmd/v2@v2.3.0 &&
#   go build -o /tmp/s5cmd github.com/peak/s5cmd/v2
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
s5cmd=${S5CMD:-$(command -v s5cmd || true)}
[ -x "$s5cmd" ] || { echo "set S5CMD to an s5cmd binary" >&2; exit 2; }
. scripts/lib.sh
lib_init bench-s5cmd
build_s3bulk
local_credentials
start "$work/s3bulk" serve --dir "$work/data"
export AWS_ENDPOINT_URL=$endpoint
b() { "$work/s3bulk" --no-progress "$@"; }
s5() { "$s5cmd" --endpoint-url "$AWS_ENDPOINT_URL" "$@"; }
b mb s3://src >/dev/null
b mb s3://dst >/dev/null
b --quiet seed s3://src/ --objects 5000 --size 100KiB >/dev/null
clear_dst() { s5 rm 's3://dst/*' >/dev/null 2>&1 || true; }
measure() { # name cmd... -> "name wall cpu"
  local name=$1; shift
  clear_dst
  timed "$name" "$@"
  local n
  n=$(b ls --recursive s3://dst/ | wc -l)
  [ "$n" -eq 5000 ] || { echo "$name copied $n objects, want 5000" >&2; exit 1; }
  echo "$name $wall $cpu"
}
for i in $(seq "$rounds"); do
  measure s3bulk "$work/s3bulk" --no-progress cp --recursive s3://src/ s3://dst/
  measure s5cmd "$s5cmd" --endpoint-url "$AWS_ENDPOINT_URL" cp 's3://src/*' s3://dst/
done | tee "$work/results"
for tool in s3bulk s5cmd; do
  w=$(awk -v t=$tool '$1==t {print $2}' "$work/results" | median)
  c=$(awk -v t=$tool '$1==t {print $3}' "$work/results" | median)
  echo "$tool median: wall ${w}s cpu ${c}s"
  eval "${tool}_w=$w ${tool}_c=$c"
done
echo "speed (s5cmd wall / s3bulk wall): $(echo "scale=2; $s5cmd_w / $s3bulk_w" | bc)x"
echo "client CPU per object (s3bulk / s5cmd): $(echo "scale=2; $s3bulk_c / $s5cmd_c" | bc)"
