#!/usr/bin/env bash
# The main job on the embedded S3 server: seed 5,000 x 100 KiB objects in the
# field report's layout, copy them bucket to bucket server-side, print the
# summary. No AWS account needed.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/s3bulk" ./cmd/s3bulk
export AWS_ACCESS_KEY_ID=s3bulk AWS_SECRET_ACCESS_KEY=s3bulk-secret AWS_REGION=us-east-1
"$work/s3bulk" serve --dir "$work/data" --addr 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
server=$!
for _ in $(seq 100); do grep -q '^endpoint: ' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
endpoint=$(sed -n 's/^endpoint: //p' "$work/serve.out")
[ -n "$endpoint" ] || { cat "$work/serve.err" >&2; exit 1; }
export AWS_ENDPOINT_URL=$endpoint
s3bulk() { "$work/s3bulk" "$@"; }
s3bulk mb s3://source
s3bulk mb s3://dest
mkdir -p "$work/seed"
for c in $(seq 0 12); do for u in $(seq 0 99); do
  n=$((c * 100 + u)); [ $n -lt 1250 ] || break
  d="$work/seed/company-$(printf %04d $c)/user-$(printf %04d $n)"; mkdir -p "$d"
  for f in 0 1 2 3; do head -c 102400 /dev/urandom >"$d/file-$(printf %02d $f).json"; done
done; done
echo "upload 5,000 objects:"
s3bulk --quiet cp --recursive "$work/seed/" s3://source/
echo "copy bucket to bucket (server-side):"
s3bulk --quiet cp --recursive s3://source/ s3://dest/
