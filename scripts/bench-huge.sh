#!/usr/bin/env bash
# Benchmark: huge objects on the embedded S3 server, in one run, tools
# alternating, medians of ROUNDS runs.
#
#   (a) One object of HUGE_SIZE copied server-side: s3bulk with no flags, vs
#       boto3's managed copy with report 3's best TransferConfig (256 MiB
#       parts, 10 threads), vs one plain CopyObject of the same object: the
#       server's own copy, which bounds every method here.
#   (b) The same copy with LATENCY added to every request (a latency proxy
#       in front of the server, as a real region has tens of ms): s3bulk's
#       automatic part size against --part-size 8, 64, 128, 256 and 512 MiB.
#   (c) 5 files of FILE_SIZE uploaded, then downloaded: s3bulk vs s5cmd
#       (defaults) vs boto3 (256 MiB parts, 10 threads), with peak RSS.
#
#   S5CMD=/path/to/s5cmd ./scripts/bench-huge.sh [a] [b] [c]
#
# Environment: HUGE_SIZE (bytes, default 1 GiB), FILE_SIZE (default
# 256 MiB), ROUNDS (default 3), LATENCY (default 30ms), WORK (a directory
# with room for about 4 x HUGE_SIZE + 3 x 5 x FILE_SIZE; default a temp
# dir). Needs python3 with boto3 for the boto3 runs. s5cmd is not part of
# this repository; build v2.3.0 in a scratch module:
#   go mod init x && go get github.com/peak/s5cmd/v2@v2.3.0 &&
#   go build -o /tmp/s5cmd github.com/peak/s5cmd/v2
set -euo pipefail
cd "$(dirname "$0")/.."
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(a b c)
huge=${HUGE_SIZE:-$((1 << 30))}
fsize=${FILE_SIZE:-$((256 << 20))}
rounds=${ROUNDS:-3}
latency=${LATENCY:-30ms}
s5cmd=${S5CMD:-$(command -v s5cmd || true)}
. scripts/lib.sh
lib_init bench-huge
build_s3bulk
local_credentials
b() { "$work/s3bulk" --no-progress "$@"; }

start "$work/s3bulk" serve --dir "$work/data"
server=$endpoint server_pid=$child
export AWS_ENDPOINT_URL=$server

cat >"$work/boto.py" <<'EOF'
"""boto3's side of bench-huge.sh: managed copy, copy_object, and uploads
and downloads of many files through one TransferManager (as aws s3 cp
--recursive does)."""
import os, sys
import boto3
from botocore.config import Config
from boto3.s3.transfer import TransferConfig
from s3transfer.manager import TransferManager

MiB = 1 << 20
endpoint = sys.argv[1]
cmd, args = sys.argv[2], sys.argv[3:]
client = boto3.client("s3", endpoint_url=endpoint,
                      config=Config(s3={"addressing_style": "path"}, read_timeout=3600,
                                    max_pool_connections=64))
if cmd == "copy":  # SRCB SRCK DSTB DSTK CHUNK_MIB THREADS
    sb, sk, db, dk, chunk, threads = args
    cfg = TransferConfig(multipart_threshold=8 * MiB, multipart_chunksize=int(chunk) * MiB,
                         max_concurrency=int(threads))
    client.copy({"Bucket": sb, "Key": sk}, db, dk, Config=cfg)
elif cmd == "copyobject":  # SRCB SRCK DSTB DSTK
    sb, sk, db, dk = args
    client.copy_object(Bucket=db, Key=dk, CopySource={"Bucket": sb, "Key": sk})
elif cmd in ("upload", "download"):  # DIR BUCKET PREFIX CHUNK_MIB THREADS
    d, bucket, prefix, chunk, threads = args
    cfg = TransferConfig(multipart_threshold=8 * MiB, multipart_chunksize=int(chunk) * MiB,
                         max_concurrency=int(threads))
    with TransferManager(client, cfg) as tm:
        if cmd == "upload":
            futs = [tm.upload(os.path.join(d, f), bucket, prefix + f) for f in sorted(os.listdir(d))]
        else:
            keys = [o["Key"] for p in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
                    for o in p.get("Contents", [])]
            futs = [tm.download(bucket, k, os.path.join(d, k[len(prefix):])) for k in keys]
        for f in futs:
            f.result()
else:
    sys.exit("unknown command " + cmd)
EOF
boto() { python3 "$work/boto.py" "$@"; }
have_boto=1
python3 -c 'import boto3' 2>/dev/null || { have_boto=0; echo "no boto3: its runs are skipped" >&2; }

# measure NAME CMD... : runs CMD under /usr/bin/time after flushing dirty
# pages, appends "NAME wall client_cpu rss_mib server_cpu" to
# $work/results. The server's CPU seconds are steadier than wall time on a
# shared machine, and a local server's work bounds every method here.
measure() {
  local name=$1; shift
  sync
  local s0; s0=$(proc_cpu "$server_pid")
  timed "$name" "$@"
  local s1; s1=$(proc_cpu "$server_pid")
  printf '%s %s %s %s %s\n' "$name" "$wall" "$cpu" "$rss_mib" "$(echo "$s1 - $s0" | bc)" | tee -a "$work/results"
}
report() { # label NAME... : medians, and each against the first
  local label=$1; shift
  local base; base=$(col "$1" 2)
  echo "== $label: medians of $rounds"
  printf '  %-24s %8s %8s %8s %8s %8s\n' method wall_s /$1 client_s server_s rss_MiB
  for n in "$@"; do
    local w; w=$(col "$n" 2)
    [ -n "$w" ] || continue
    printf '  %-24s %8.2f %8.2f %8.2f %8.2f %8d\n' "$n" "$w" "$(echo "scale=3; $w / $base" | bc)" \
      "$(col "$n" 3)" "$(col "$n" 5)" "$(col "$n" 4)"
  done
}
check_size() { # BUCKET KEY SIZE
  local got; got=$(b --json ls "s3://$1/$2" | sed -n 's/.*"size":\([0-9]*\).*/\1/p')
  [ "$got" = "$3" ] || { echo "s3://$1/$2 has ${got:-no} bytes, want $3" >&2; return 1; }
}
rm_obj() { b rm "s3://$1/$2" >/dev/null 2>&1 || true; }

seed_huge() {
  b mb s3://src >/dev/null 2>&1 || true
  b mb s3://dst >/dev/null 2>&1 || true
  if ! check_size src huge.bin "$huge" 2>/dev/null; then
    head -c "$huge" /dev/urandom >"$work/huge.bin"
    b --quiet cp "$work/huge.bin" s3://src/huge.bin
    rm -f "$work/huge.bin"
  fi
}

run_a() {
  seed_huge
  echo "(a) one $((huge >> 20)) MiB object copied server-side, $rounds rounds"
  # One unmeasured copy warms the page cache with the source.
  b --quiet cp s3://src/huge.bin s3://dst/warm.bin; rm_obj dst warm.bin
  local methods=(s3bulk)
  [ $have_boto = 0 ] || methods+=(boto3)
  [ $have_boto = 0 ] || [ "$huge" -gt $((5 << 30)) ] || methods+=(CopyObject)
  for _ in $(seq "$rounds"); do
    # A new order each round, so that no method always follows another.
    for m in $(printf '%s\n' "${methods[@]}" | shuf); do
      case $m in
      s3bulk) measure a-s3bulk "$work/s3bulk" --no-progress --quiet cp s3://src/huge.bin s3://dst/huge.bin ;;
      boto3) measure a-boto3-256MiB-x10 python3 "$work/boto.py" "$server" copy src huge.bin dst huge.bin 256 10 ;;
      CopyObject) measure a-CopyObject python3 "$work/boto.py" "$server" copyobject src huge.bin dst huge.bin ;;
      esac
      check_size dst huge.bin "$huge"; rm_obj dst huge.bin
    done
  done
  report "(a) server-side copy of $((huge >> 20)) MiB" a-CopyObject a-s3bulk a-boto3-256MiB-x10
  echo "  s3bulk / boto3: $(echo "scale=3; $(col a-s3bulk 2) / $(col a-boto3-256MiB-x10 2)" | bc)"
}

run_b() {
  seed_huge
  start "$work/s3bulk" demo latency-proxy --target "$server" --latency "$latency"
  local proxy=$endpoint
  echo "(b) the same copy with $latency per request, $rounds rounds"
  b --endpoint-url "$proxy" --quiet cp s3://src/huge.bin s3://dst/warm.bin; rm_obj dst warm.bin
  for _ in $(seq "$rounds"); do
    for ps in $(printf '%s\n' auto 8 64 128 256 512 | shuf); do
      if [ "$ps" = auto ]; then
        measure b-s3bulk-auto "$work/s3bulk" --endpoint-url "$proxy" --no-progress --quiet cp s3://src/huge.bin s3://dst/huge.bin
      else
        measure "b-s3bulk-${ps}MiB" "$work/s3bulk" --endpoint-url "$proxy" --no-progress --quiet cp --part-size "${ps}MiB" s3://src/huge.bin s3://dst/huge.bin
      fi
      check_size dst huge.bin "$huge"; rm_obj dst huge.bin
    done
  done
  report "(b) copy with $latency per request" b-s3bulk-auto b-s3bulk-8MiB b-s3bulk-64MiB b-s3bulk-128MiB b-s3bulk-256MiB b-s3bulk-512MiB
  local best
  best=$(for ps in 8 64 128 256 512; do col "b-s3bulk-${ps}MiB" 2; done | sort -n | head -1)
  echo "  auto / best fixed part size: $(echo "scale=3; $(col b-s3bulk-auto 2) / $best" | bc)"
}

run_c() {
  [ -x "$s5cmd" ] || { echo "set S5CMD to an s5cmd binary for (c)" >&2; exit 2; }
  b mb s3://files >/dev/null 2>&1 || true
  mkdir -p "$work/files"
  for i in 1 2 3 4 5; do head -c "$fsize" /dev/urandom >"$work/files/file-$i.bin"; done
  local n=5 total=$((5 * fsize))
  echo "(c) 5 files of $((fsize >> 20)) MiB up and down, $rounds rounds"
  clear_files() { "$s5cmd" --endpoint-url "$server" rm 's3://files/*' >/dev/null 2>&1 || true; }
  check_up() { # PREFIX
    local got; got=$(b --json ls --recursive "s3://files/$1" | sed -n 's/.*"size":\([0-9]*\).*/\1/p' | awk '{s+=$1; n++} END {printf "%d %.0f\n", n, s}')
    [ "$got" = "$n $total" ] || { echo "s3://files/$1 holds $got (objects, bytes), want $n $total" >&2; exit 1; }
  }
  check_down() { # DIR
    for i in 1 2 3 4 5; do cmp -s "$work/files/file-$i.bin" "$1/file-$i.bin" || { echo "$1/file-$i.bin differs" >&2; exit 1; }; done
    rm -rf "$1"
  }
  # warm: the objects every tool downloads are read once before each
  # download, so that none pays for reading them from disk (before, the
  # tool that ran first after the uploads did).
  warm() { cat "$work/data/files/s3bulk/"* >/dev/null; }
  up() { # TOOL
    case $1 in
      s3bulk) measure c-up-s3bulk "$work/s3bulk" --no-progress --quiet cp --recursive "$work/files/" s3://files/s3bulk/ ;;
      s5cmd) measure c-up-s5cmd "$s5cmd" --endpoint-url "$server" cp "$work/files/*" s3://files/s5cmd/ ;;
      boto3) measure c-up-boto3-256MiB python3 "$work/boto.py" "$server" upload "$work/files" files boto3/ 256 10 ;;
    esac
    check_up "$1/"
  }
  down() { # TOOL: every tool downloads the same objects, those s3bulk uploaded
    mkdir -p "$work/down"
    warm
    case $1 in
      s3bulk) measure c-down-s3bulk "$work/s3bulk" --no-progress --quiet cp --recursive s3://files/s3bulk/ "$work/down/" ;;
      s5cmd) measure c-down-s5cmd "$s5cmd" --endpoint-url "$server" cp 's3://files/s3bulk/*' "$work/down/" ;;
      boto3) measure c-down-boto3-256MiB python3 "$work/boto.py" "$server" download "$work/down" files s3bulk/ 256 10 ;;
    esac
    check_down "$work/down"
  }
  local tools=(s3bulk s5cmd)
  [ $have_boto = 0 ] || tools+=(boto3)
  # A new order each round, so that no tool always follows another;
  # s3bulk uploads first because the downloads read its objects.
  for _ in $(seq "$rounds"); do
    clear_files
    up s3bulk
    for t in $(printf '%s\n' "${tools[@]}" | grep -vx s3bulk | shuf); do up "$t"; done
    for t in $(printf '%s\n' "${tools[@]}" | shuf); do down "$t"; done
  done
  clear_files
  report "(c) upload of 5 x $((fsize >> 20)) MiB" c-up-s3bulk c-up-s5cmd c-up-boto3-256MiB
  report "(c) download of 5 x $((fsize >> 20)) MiB" c-down-s3bulk c-down-s5cmd c-down-boto3-256MiB
}

echo "machine: $(nproc) CPUs, $(free -g | awk '/Mem:/ {print $2}') GiB RAM; load $(load)"
for p in "${parts[@]}"; do "run_$p"; done
