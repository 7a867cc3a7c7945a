#!/usr/bin/env bash
# Benchmark: copies between two S3 services, s3bulk against rclone, side by
# side in one run, methods alternating, medians of ROUNDS runs.
#
# Two embedded S3 servers (`s3bulk serve`), each with its own data
# directory and its own account, stand for two providers: neither can
# copy server-side from the other, so every byte passes through the
# client. rclone copies between two remotes with --transfers 64.
#
#   (a) SMALL_COUNT objects of SMALL_SIZE (default 5,000 x 100 KiB, the
#       field report's layout): objects/s and client CPU per object.
#   (b) HUGE_COUNT objects of HUGE_SIZE (default 5 x 1 GiB): MiB/s and
#       peak RSS.
#
#   ./scripts/bench-between.sh [a] [b]
#
# Environment: BASE (a git revision: its s3bulk runs too, as "base"),
# ROUNDS (default 3), SMALL_COUNT, SMALL_SIZE (bytes),
# HUGE_COUNT, HUGE_SIZE (bytes), WORK (a directory with room for about
# 3 x HUGE_COUNT x HUGE_SIZE; default a temp dir). Needs rclone on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(a b)
rounds=${ROUNDS:-3}
small_count=${SMALL_COUNT:-5000}
small_size=${SMALL_SIZE:-102400}
huge_count=${HUGE_COUNT:-5}
huge_size=${HUGE_SIZE:-$((1 << 30))}
command -v rclone >/dev/null || { echo "rclone is not on PATH" >&2; exit 2; }
. scripts/lib.sh
lib_init bench-between
build_s3bulk
methods=(s3bulk rclone)
if [ -n "${BASE:-}" ]; then
  mkdir "$work/base-src"
  git archive "$BASE" | tar -x -C "$work/base-src"
  (cd "$work/base-src" && go build -o "$work/base" ./cmd/s3bulk)
  methods+=(base)
fi
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3
# The servers speak plain HTTP; rclone's SDK refuses to start with a CA
# bundle it cannot install in its own transport.
unset AWS_CA_BUNDLE
export AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true

# Two S3 servers, one account each.
start "$work/s3bulk" serve --dir "$work/src" --access-key src-account --secret-key src-secret-key
src=$endpoint src_pid=$child
start "$work/s3bulk" serve --dir "$work/dst" --access-key dst-account --secret-key dst-secret-key
dst=$endpoint dst_pid=$child

# The destination's credentials are the environment's; the source's are a
# profile, as a user copying from another account has them.
cat >"$work/credentials" <<EOF
[src]
aws_access_key_id = src-account
aws_secret_access_key = src-secret-key
EOF
: >"$work/config"
export AWS_SHARED_CREDENTIALS_FILE=$work/credentials AWS_CONFIG_FILE=$work/config
export AWS_ACCESS_KEY_ID=dst-account AWS_SECRET_ACCESS_KEY=dst-secret-key
cat >"$work/rclone.conf" <<EOF
[src]
type = s3
provider = Other
access_key_id = src-account
secret_access_key = src-secret-key
endpoint = $src
region = us-east-1

[dst]
type = s3
provider = Other
access_key_id = dst-account
secret_access_key = dst-secret-key
endpoint = $dst
region = us-east-1
EOF
export RCLONE_CONFIG=$work/rclone.conf
onsrc() { "$work/s3bulk" --no-progress --endpoint-url "$src" "$@"; }
ondst() { "$work/s3bulk" --no-progress --endpoint-url "$dst" "$@"; }
AWS_ACCESS_KEY_ID=src-account AWS_SECRET_ACCESS_KEY=src-secret-key onsrc mb s3://bench >/dev/null
ondst mb s3://bench >/dev/null

# measure NAME CMD... : appends "NAME wall client_cpu rss_mib servers_cpu"
# to $work/results.
measure() {
  local name=$1; shift
  sync
  local s0; s0=$(proc_cpu "$src_pid" "$dst_pid")
  timed "$name" "$@"
  local s1; s1=$(proc_cpu "$src_pid" "$dst_pid")
  printf '%s %s %s %s %s\n' "$name" "$wall" "$cpu" "$rss_mib" "$(echo "$s1 - $s0" | bc)" | tee -a "$work/results"
}
count_dst() { ondst --json du "s3://bench/$1" | sed -n 's/.*"objects":\([0-9]*\).*/\1/p' | tail -1; }
clear_dst() { ondst --quiet rm --recursive "s3://bench/$1" >/dev/null 2>&1 || true; }

# run PART N SIZE: N objects of SIZE bytes, each method ROUNDS times.
run() {
  local part=$1 n=$2 size=$3 prefix=$1/
  AWS_ACCESS_KEY_ID=src-account AWS_SECRET_ACCESS_KEY=src-secret-key \
    onsrc --quiet seed "s3://bench/$prefix" --objects "$n" --size "$size"
  echo "($part) $n x $size bytes between two servers, $rounds rounds; load: $(load)"
  for _ in $(seq "$rounds"); do
    for m in $(printf '%s\n' "${methods[@]}" | shuf); do
      case $m in
      s3bulk | base) measure "$part-$m" "$work/$m" --no-progress --quiet --endpoint-url "$dst" cp --recursive \
        --source-endpoint-url "$src" --source-profile src "s3://bench/$prefix" "s3://bench/$prefix" ;;
      rclone) measure "$part-rclone" rclone copy --transfers 64 "src:bench/$prefix" "dst:bench/$prefix" ;;
      esac
      local got; got=$(count_dst "$prefix")
      [ "$got" = "$n" ] || { echo "$m copied ${got:-no} objects, want $n" >&2; exit 1; }
      clear_dst "$prefix"
    done
  done
  local mib; mib=$(echo "scale=3; $n * $size / 1048576" | bc)
  echo "== ($part) medians of $rounds; load after: $(load)"
  printf '  %-8s %8s %10s %8s %12s %8s %10s\n' method wall_s objects/s MiB/s client_ms/obj rss_MiB servers_s
  for m in "${methods[@]}"; do
    local w c; w=$(col "$part-$m" 2) c=$(col "$part-$m" 3)
    printf '  %-8s %8.2f %10.1f %8.1f %12.3f %8.0f %10.2f\n' "$m" "$w" "$(echo "$n / $w" | bc -l)" \
      "$(echo "$mib / $w" | bc -l)" "$(echo "1000 * $c / $n" | bc -l)" "$(col "$part-$m" 4)" "$(col "$part-$m" 5)"
  done
  local ws wr cs cr
  ws=$(col "$part-s3bulk" 2) wr=$(col "$part-rclone" 2) cs=$(col "$part-s3bulk" 3) cr=$(col "$part-rclone" 3)
  echo "  s3bulk / rclone: speed $(echo "scale=2; $wr / $ws" | bc)x, client CPU $(echo "scale=2; $cs / $cr" | bc)x"
  if [ -n "${BASE:-}" ]; then
    local wb cb; wb=$(col "$part-base" 2) cb=$(col "$part-base" 3)
    echo "  s3bulk / base:   speed $(echo "scale=2; $wb / $ws" | bc)x, client CPU $(echo "scale=2; $cs / $cb" | bc)x"
  fi
}

for p in "${parts[@]}"; do
  case $p in
  a) run a "$small_count" "$small_size" ;;
  b) run b "$huge_count" "$huge_size" ;;
  *) echo "unknown part $p (want a or b)" >&2; exit 2 ;;
  esac
done
