#!/usr/bin/env bash
# Benchmark: shards that list only their part (docs/shards.md).
#
# KEYS keys (default 1,000,000) in the report's layout on the latency
# fixture (internal/simregion) at DELAY per request (default 130ms),
# planned by a dry run: one run without --shard ("whole"), then the SHARDS
# runs (default 8) of --shard i/SHARDS one after another, each alone on
# the machine; REPEAT rounds (default 1), whole first and shards first in
# turn. Prints one line per run (seconds, ListObjectsV2 requests, peak
# RSS), then per round: the LIST requests of all shards over the whole
# run's, and the slowest shard's wall over the whole run's. The goal:
# at most 1.2x the requests, and each shard at most 1/4 of the wall.
#
#   ./scripts/bench-shards.sh
#   KEYS=100000 SHARDS=3 DELAY=50ms ./scripts/bench-shards.sh
set -euo pipefail
cd "$(dirname "$0")/.."
keys=${KEYS:-1000000}
shards=${SHARDS:-8}
delay=${DELAY:-130ms}
repeat=${REPEAT:-1}
. scripts/lib.sh
lib_init bench-shards
build_s3bulk "$work/s3bulk"
go build -o "$work/simregion" ./internal/simregion/cmd/simregion
local_credentials
echo "load before: $(load); $keys keys, $shards shards, delay $delay; regime: simulated S3 region (internal/simregion, fixture mode)"
START_TIMEOUT=60
start "$work/simregion" -objects "$keys" -size 100KiB -delay "$delay"

# plan NAME ARGS...: one timed dry run (its JSON lines dropped, its
# summary kept); prints its line and sets $wall, $lists and $planned.
plan() {
  local name=$1 user sys rss
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$work/s3bulk" --endpoint-url "$endpoint" --no-progress --quiet --json \
    --dry-run cp --recursive "$@" s3://src/ s3://dst/ >/dev/null 2>"$work/err" ||
    { echo "$name failed:" >&2; tail -5 "$work/err" >&2; exit 1; }
  read -r wall user sys rss <"$work/t"
  lists=$(grep -o '"ListObjectsV2":[0-9]*' "$work/err" | cut -d: -f2)
  planned=$(grep -o '"objects":[0-9]*' "$work/err" | cut -d: -f2)
  printf '%-12s %7.2f s %6d LIST %8d planned %5d MiB %6.2f cpu-s\n' "$name" "$wall" "${lists:-0}" "$planned" "$((rss / 1024))" "$(echo "$user + $sys" | bc)"
  lists=${lists:-0}
}

whole() {
  plan whole
  whole_wall=$wall whole_lists=$lists
  [ "$planned" -eq "$keys" ] || { echo "whole run planned $planned keys, want $keys" >&2; exit 1; }
}

sharded() {
  shard_lists=0 shard_max=0 shard_planned=0
  for i in $(seq 0 $((shards - 1))); do
    plan "shard-$i/$shards" --shard "$i/$shards"
    shard_lists=$((shard_lists + lists))
    shard_planned=$((shard_planned + planned))
    shard_max=$(echo "if ($wall > $shard_max) $wall else $shard_max" | bc)
  done
  [ "$shard_planned" -eq "$keys" ] || { echo "shards planned $shard_planned keys in all, want $keys" >&2; exit 1; }
}

for r in $(seq "$repeat"); do
  if [ $((r % 2)) -eq 1 ]; then whole; sharded; else sharded; whole; fi
  awk -v sl="$shard_lists" -v wl="$whole_lists" -v sm="$shard_max" -v ww="$whole_wall" -v n="$shards" \
    'BEGIN {printf "round: %d shards made %.2fx the LIST requests of one whole run (%d / %d); slowest shard %.2f s = %.2fx the whole run'"'"'s %.2f s\n", n, sl / wl, sl, wl, sm, sm / ww, ww}'
done
echo "load after: $(load)"
