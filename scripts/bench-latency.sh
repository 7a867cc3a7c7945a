#!/usr/bin/env bash
# Benchmark: the latency regime (docs/design/0004-requests-in-flight.md).
# Every figure in one run, side by side: this tree's s3bulk ("new") against
# a baseline build of BASE ("base", a git revision, built from this
# repository), and s5cmd where it applies.
#
#   copy     20,000 copies bucket to bucket at DELAY per request (instant
#            S3 fixture, internal/simregion): new, base, s5cmd, defaults; and
#            raw, the fixture's trivial client (internal/simregion/cmd/rawload:
#            1,024 bare requests in flight, no SDK): the ceiling of the
#            fixture and of the machine at that moment.
#   list     LIST_SIZES keys (default 10,000, 100,000, 1,000,000 and
#            2,000,000; the report's layout) planned by a dry run at DELAY
#            per page, then printed by `ls --recursive` (S3's byte order):
#            new, base; the two builds' ls outputs must be the same bytes,
#            dates masked (BASE lists with one chain). Then each build's
#            peak RSS by size (the median of its rounds) and how far the
#            largest is above the smallest listing's: a listing's memory
#            must not grow with the number of keys.
#   throttle THROTTLE_OBJECTS (default 30,000) copies at DELAY under a
#            limit of 3,500 writes/s for the bucket (503 SlowDown above
#            it): new, base, each against a fixture of its own, with the
#            share of its requests answered SlowDown.
#   memory   20,000 copies with --concurrency 2000: new, peak RSS.
#   upload   10,000 files of 100 KiB uploaded at DELAY: new, base, and raw
#            (10,000 bare PutObjects of 100 KiB from memory).
#   download 10,000 objects of 100 KiB downloaded at DELAY into an empty
#            directory: new, base.
#   local    5,000 x 100 KiB bucket to bucket on the embedded S3 server
#            (versitygw), with LOCAL_LATENCIES added per request (default
#            "0 30ms"): new, base, s5cmd (--metadata-directive COPY, the
#            same work) and rclone (--transfers 64) when present; fx is
#            the server's CPU, and each latency ends with the medians.
#
#   S5CMD=/path/to/s5cmd ./scripts/bench-latency.sh [copy list throttle memory upload download local]
#
# Environment: BASE (default d57bf33), DELAY (default 130ms), ROUNDS for
# the local runs (default 3), REPEAT for the copy, list, upload, download and
# throttle runs (default 1; each round runs every tool once, side by side;
# in copy, list, throttle, download and local, new and base go first in turn). Prints one line per run: name, seconds, items
# per second, peak RSS in MiB, client CPU seconds, and the fixture's CPU
# seconds during the run (fx, where it applies). The fixture answers
# every request after DELAY and stores nothing; it runs as its own process
# so that the client's memory and CPU are its own.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${BASE:-d57bf33}
delay=${DELAY:-130ms}
rounds=${ROUNDS:-3}
repeat=${REPEAT:-1}
s5cmd=${S5CMD:-$(command -v s5cmd || true)}
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(copy list throttle memory upload download local)
. scripts/lib.sh
lib_init bench-latency
build_s3bulk "$work/new"
go build -o "$work/simregion" ./internal/simregion/cmd/simregion
go build -o "$work/rawload" ./internal/simregion/cmd/rawload
mkdir "$work/base-src"
git archive "$base" | tar -x -C "$work/base-src"
(cd "$work/base-src" && go build -o "$work/base" ./cmd/s3bulk)
local_credentials
echo "load before: $(load); base $base; delay $delay; regime: simulated S3 region (internal/simregion, fixture mode: no signatures asked)"
START_TIMEOUT=60 # a million keys take a while to make

# measure NAME ITEMS CMD...: runs CMD, prints NAME seconds items/s MiB cpu
# and adds "NAME seconds MiB cpu" to $work/results.
# With $fixture set to the fixture's PID it also prints the fixture's CPU.
measure() {
  local name=$1 items=$2 before=0 fx=""
  shift 2
  [ -z "${fixture:-}" ] || before=$(proc_cpu "$fixture")
  timed "$name" "$@"
  [ -z "${fixture:-}" ] || fx=$(echo "$(proc_cpu "$fixture") - $before" | bc)
  awk -v n="$name" -v w="$wall" -v i="$items" -v r="$rss_mib" -v c="$cpu" -v f="$fx" \
    'BEGIN {printf "%-28s %8.2f s %10.0f /s %6.0f MiB %7.2f cpu-s", n, w, i / w, r, c; if (f != "") printf " %6.2f fx cpu-s", f; print ""}'
  echo "$name $wall $rss_mib $cpu ${fx:-0}" >>"$work/results"
}

# rss_by_size RUN TOOL SIZES...: TOOL's median peak RSS of RUN-N for each
# size, and how far the largest median is above the first size's.
rss_by_size() {
  local run=$1 tool=$2 n
  shift 2
  for n in "$@"; do echo "$n $(col "$run-$n-$tool" 3)"; done |
    awk -v r="$run" -v t="$tool" '{line = line sprintf(" %d keys %.0f MiB,", $1, $2); if (NR == 1) first = $2; if ($2 > top) top = $2}
      END {sub(/,$/, "", line); printf "%s-rss-%s:%s; largest %.0f MiB above the first\n", r, t, line, top - first}'
}
q=(--no-progress --quiet)

# pair ROUND: new and base, in the order of round ROUND: the first of two
# runs side by side is not always the same build (on a busy machine, which
# of two runs a minute goes first moved a median by up to a tenth).
pair() { if [ $(($1 % 2)) = 1 ]; then echo new base; else echo base new; fi; }

for part in "${parts[@]}"; do
  case $part in
  copy)
    start "$work/simregion" -objects 20000 -size 100KiB -delay "$delay"
    fixture=$child
    for i in $(seq "$repeat"); do
      for tool in $(pair "$i"); do
        measure "copy-$tool" 20000 "$work/$tool" --endpoint-url "$endpoint" "${q[@]}" cp --recursive s3://src/ s3://dst/
      done
      if [ -x "$s5cmd" ]; then
        measure copy-s5cmd 20000 "$s5cmd" --endpoint-url "$endpoint" cp 's3://src/*' s3://dst/
      fi
      measure copy-raw-1024 20000 "$work/rawload" -endpoint "$endpoint" -n 20000 -c 1024
    done
    stop
    ;;
  list)
    sizes=(${LIST_SIZES:-10000 100000 1000000 2000000})
    for n in "${sizes[@]}"; do
      start "$work/simregion" -objects "$n" -size 100KiB -delay "$delay"
      fixture=$child
      for i in $(seq "$repeat"); do
        for tool in $(pair "$i"); do
          measure "list-$n-$tool" "$n" "$work/$tool" --endpoint-url "$endpoint" "${q[@]}" --dry-run cp --recursive s3://src/ s3://dst/
        done
        for tool in $(pair "$i"); do
          measure "ls-$n-$tool" "$n" "$work/$tool" --endpoint-url "$endpoint" ls --recursive s3://src/
          sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}//' "$work/out" >"$work/ls-$tool"
        done
        n_out=$(wc -l <"$work/ls-new")
        [ "$n_out" -eq "$n" ] || { echo "ls-$n-new printed $n_out lines, want $n" >&2; exit 1; }
        cmp -s "$work/ls-new" "$work/ls-base" || { echo "ls-$n: new and base print different listings" >&2; exit 1; }
      done
      stop
      rm -f "$work/ls-new" "$work/ls-base"
    done
    for run in list ls; do
      rss_by_size "$run" new "${sizes[@]}"
      rss_by_size "$run" base "${sizes[@]}"
    done
    ;;
  throttle)
    # A fixture for each run, so that its counts are the run's: the share
    # of all requests answered SlowDown follows each line.
    n=${THROTTLE_OBJECTS:-30000}
    for i in $(seq "$repeat"); do
      for tool in $(pair "$i"); do
        start "$work/simregion" -objects "$n" -size 100KiB -delay "$delay" -write-rate 3500
        fixture=$child
        measure "throttle-$n-$tool" "$n" "$work/$tool" --endpoint-url "$endpoint" "${q[@]}" cp --recursive s3://src/ s3://dst/
        stop | sed -nE 's/.*"Requests":([0-9]+),"Throttled":([0-9]+).*/\1 \2/p' |
          awk -v n="throttle-$n-$tool" '{printf "%-28s %d of %d requests SlowDown: %.1f%%\n", n, $2, $1, 100 * $2 / $1}'
      done
    done
    ;;
  memory)
    start "$work/simregion" -objects 20000 -size 100KiB -delay "$delay"
    fixture=$child
    measure memory-2000-new 20000 "$work/new" --concurrency 2000 --endpoint-url "$endpoint" "${q[@]}" cp --recursive s3://src/ s3://dst/
    stop
    ;;
  upload)
    mkdir -p "$work/files"
    head -c 102400 /dev/urandom >"$work/files/f-00000.json"
    for i in $(seq 1 9999); do cp "$work/files/f-00000.json" "$work/files/f-$(printf %05d "$i").json"; done
    start "$work/simregion" -objects 0 -delay "$delay"
    fixture=$child
    for _ in $(seq "$repeat"); do
      measure upload-new 10000 "$work/new" --endpoint-url "$endpoint" "${q[@]}" cp --recursive "$work/files" s3://dst/up/
      measure upload-base 10000 "$work/base" --endpoint-url "$endpoint" "${q[@]}" cp --recursive "$work/files" s3://dst/up/
      measure upload-raw-1024 10000 "$work/rawload" -endpoint "$endpoint" -n 10000 -c 1024 -put 100KiB
    done
    stop
    rm -rf "$work/files"
    ;;
  download)
    start "$work/simregion" -objects 10000 -size 100KiB -delay "$delay"
    fixture=$child
    for i in $(seq "$repeat"); do
      for tool in $(pair "$i"); do
        rm -rf "$work/down"
        measure "download-$tool" 10000 "$work/$tool" --endpoint-url "$endpoint" "${q[@]}" cp --recursive s3://src/ "$work/down/"
        n=$(find "$work/down" -type f | wc -l)
        [ "$n" -eq 10000 ] || { echo "download-$tool wrote $n files, want 10000" >&2; exit 1; }
      done
    done
    stop
    rm -rf "$work/down"
    ;;
  local)
    start "$work/new" serve --dir "$work/data"
    server=$endpoint server_pid=$child server_err=$childerr
    "$work/new" --endpoint-url "$server" "${q[@]}" mb s3://src
    "$work/new" --endpoint-url "$server" "${q[@]}" mb s3://dst
    "$work/new" --endpoint-url "$server" "${q[@]}" seed s3://src/ --objects 5000 --size 100KiB
    # The peers doing the same work: s5cmd keeping the source's metadata
    # as a CopyObject does by default, rclone with 64 transfers.
    tools=(new base)
    [ ! -x "$s5cmd" ] || tools+=(s5cmd)
    if command -v rclone >/dev/null; then
      tools+=(rclone)
      printf '[l]\ntype = s3\nprovider = Other\naccess_key_id = %s\nsecret_access_key = %s\nregion = us-east-1\n' \
        "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" >"$work/rclone.conf"
    fi
    for lat in ${LOCAL_LATENCIES:-0 30ms}; do
      ep=$server
      if [ "$lat" != 0 ]; then
        start "$work/new" demo latency-proxy --target "$server" --latency "$lat"
        ep=$endpoint
      fi
      # fx: the server's CPU seconds during the run (its process's
      # rusage), steadier than wall time on a shared machine.
      fixture=$server_pid
      for i in $(seq "$rounds"); do
        # New and base first in turn, the peers after them.
        for tool in $(pair "$i") "${tools[@]:2}"; do
          "$work/new" --endpoint-url "$server" "${q[@]}" rm --recursive s3://dst/ >/dev/null 2>&1 || true
          case $tool in
          s5cmd) measure "local-$lat-$tool" 5000 "$s5cmd" --endpoint-url "$ep" cp --metadata-directive COPY 's3://src/*' s3://dst/ ;;
          # rclone's SDK refuses a CA bundle it cannot put in its own
          # transport; these servers speak plain HTTP.
          rclone) measure "local-$lat-$tool" 5000 env -u AWS_CA_BUNDLE RCLONE_CONFIG="$work/rclone.conf" RCLONE_CONFIG_L_ENDPOINT="$ep" \
            rclone copy --transfers 64 l:src l:dst ;;
          *) measure "local-$lat-$tool" 5000 "$work/$tool" --endpoint-url "$ep" "${q[@]}" cp --recursive s3://src/ s3://dst/ ;;
          esac
          n=$("$work/new" --endpoint-url "$server" ls --recursive s3://dst/ | wc -l)
          [ "$n" -eq 5000 ] || { echo "local-$lat-$tool copied $n objects, want 5000" >&2; exit 1; }
        done
      done
      fixture=""
      for tool in "${tools[@]}"; do
        echo "local-$lat-$tool median: $(col "local-$lat-$tool" 2) s, server $(col "local-$lat-$tool" 5) cpu-s"
      done
      [ "$lat" = 0 ] || stop >/dev/null
    done
    child=$server_pid childerr=$server_err
    stop >/dev/null
    rm -rf "$work/data"
    ;;
  *)
    echo "unknown part $part" >&2
    exit 2
    ;;
  esac
done
echo "load after: $(load)"
