#!/usr/bin/env bash
# Calibration of demo's simulated S3 region against field report 1: runs the
# report's own methods in the region (its SDK program, copy-per-company, on
# demo's stated sample; and `aws s3 cp --recursive` per company when the AWS
# CLI is on PATH), REPEAT times, and prints each run's calibration lines
# (measured objects/s next to the report's 29.99 and 251.43, with the
# tolerance: 15% and 25%) and the load average before it.
#
#   scripts/demo-calibrate.sh                  # REPEAT=3 LATENCY=120ms
#   REPEAT=5 LATENCY=130ms scripts/demo-calibrate.sh
#
# The simulated region costs almost no CPU, but the AWS CLI does (about
# 5-10 ms of Python per copy): on a machine whose cores are busy with other
# work, its rate follows the load, not the simulation. Note the load.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${REPEAT:-3}
latency=${LATENCY:-120ms}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/s3bulk" ./cmd/s3bulk
methods=copy-per-company
if command -v aws >/dev/null; then
	methods=$methods,aws
fi
for i in $(seq "$repeat"); do
	echo "run $i of $repeat, latency $latency, load average $(uptime | sed 's/.*load average: //')"
	"$work/s3bulk" demo --latency "$latency" --methods "$methods" --out "$work/out" --no-progress 2>/dev/null |
		sed -n '/^Calibration/,/^$/p'
done
