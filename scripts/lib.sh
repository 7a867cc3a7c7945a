# Shell library of the benchmark and test scripts: a work directory that
# goes away, children that serve an endpoint and are stopped, timed runs,
# medians. Source it from a script that has cd'ed to the repository root:
#
#   . scripts/lib.sh
#   lib_init bench-foo          # $work, cleanup of children on exit
#   build_s3bulk                # $work/s3bulk from this tree
#   start "$work/s3bulk" serve --dir "$work/data"   # sets $endpoint
#   timed copy "$work/s3bulk" cp ...                # sets $wall $cpu $rss_mib
#
# Bash only (arrays, local); every function fails the script on error.

# lib_init NAME: makes $work, a fresh directory under $WORK (else $TMPDIR,
# else /tmp), and arranges that on exit every child started with start is
# killed and $work removed. $pids holds the children's process IDs.
lib_init() {
  work=$(mktemp -d "${WORK:-${TMPDIR:-/tmp}}/$1.XXXXXX")
  pids=()
  trap lib_cleanup EXIT
}

lib_cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}

# build_s3bulk [OUT]: builds this tree's s3bulk into OUT (default
# $work/s3bulk).
build_s3bulk() {
  go build -o "${1:-$work/s3bulk}" ./cmd/s3bulk
}

# local_credentials: the account the scripts' own servers (s3bulk serve)
# take from the environment, and nothing of the user's AWS configuration
# that could point elsewhere.
local_credentials() {
  export AWS_ACCESS_KEY_ID=s3bulk AWS_SECRET_ACCESS_KEY=s3bulk-secret AWS_REGION=us-east-1
  unset AWS_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3
}

# start CMD...: runs CMD in the background, a server-like child that prints
# "endpoint: URL" on stdout (s3bulk serve, demo latency-proxy, the simregion
# fixture), and waits up to START_TIMEOUT seconds (default 30) for that
# line. Sets $endpoint, $child (its PID) and $childerr (its stderr file).
start() {
  local out="$work/child.$RANDOM"
  "$@" >"$out" 2>"$out.err" &
  child=$!
  pids+=("$child")
  childerr=$out.err
  local tries=$((${START_TIMEOUT:-30} * 20))
  for _ in $(seq "$tries"); do grep -q '^endpoint: ' "$out" 2>/dev/null && break; sleep 0.05; done
  endpoint=$(sed -n 's/^endpoint: //p' "$out")
  [ -n "$endpoint" ] || { echo "$1 did not start:" >&2; cat "$out.err" >&2; exit 1; }
}

# stop: interrupts the last child started, waits for it and prints its
# stderr (the simregion fixture's counts).
stop() {
  kill -INT "$child"
  wait "$child" 2>/dev/null || true
  cat "$childerr"
}

# timed NAME CMD...: runs CMD under /usr/bin/time, its output in
# $work/out and $work/err, and sets $wall (seconds), $cpu (user + system
# seconds) and $rss_mib (peak resident MiB). A failed CMD ends the script
# with the end of its stderr.
timed() {
  local name=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$@" >"$work/out" 2>"$work/err" ||
    { echo "$name failed:" >&2; tail -5 "$work/err" >&2; exit 1; }
  local user sys rss
  read -r wall user sys rss <"$work/t"
  cpu=$(echo "$user + $sys" | bc)
  rss_mib=$((rss / 1024))
}

# proc_cpu PID...: CPU seconds (user + system) the processes have used so
# far: a local server's work, steadier than wall time on a shared machine.
proc_cpu() {
  local tick p
  tick=$(getconf CLK_TCK)
  for p in "$@"; do echo "/proc/$p/stat"; done |
    xargs awk -v t="$tick" '{s += ($14 + $15) / t} END {printf "%.2f", s}'
}

# median: the median of the numbers on stdin, one a line.
median() { sort -n | awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# col NAME N: the median of column N of the lines of $work/results whose
# first column is NAME.
col() { awk -v n="$1" -v c="$2" '$1==n {print $c}' "$work/results" | median; }

# load: the machine's load averages, for the record of a run.
load() { cut -d' ' -f1-3 /proc/loadavg; }
