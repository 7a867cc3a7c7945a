#!/usr/bin/env bash
# Runs the integration suite against S3-compatible servers other than the
# embedded versitygw, through S3BULK_TEST_ENDPOINT, and prints one table:
# server, version, passed, skipped (with the reasons), failed, date, tree;
# then each failed test, and each skip that is not a capability probe's.
#
#   scripts/test-servers.sh                      # versitygw gofakes3 s3rver seaweedfs
#   scripts/test-servers.sh gofakes3 s3rver      # some of them
#   TEST_RUN=TestCopy scripts/test-servers.sh    # a -run pattern
#   TEST_PACKAGES=./engine scripts/test-servers.sh # some packages of the suite
#   TEST_SERVERS_KEEP=out scripts/test-servers.sh # keep each server's log and
#                                                 # `go test -json` output in out/
#
# Each server is built or installed once and cached under
# ${XDG_CACHE_HOME:-~/.cache}/s3bulk/test-servers (SEAWEEDFS_BIN may name a
# weed binary already built: it takes ~10 minutes on two cores), started on
# 127.0.0.1 with credentials and a temp directory, and stopped at the end.
# It needs Go, and npm for s3rver. Not part of CI: the servers take long to
# build and their suites long to run. docs/servers.md has the last table.
set -euo pipefail
cd "$(dirname "$0")/.."

GOFAKES3_VERSION=v1.2.0
S3RVER_VERSION=3.7.1
# SeaweedFS tags are not Go module versions; this pseudo-version is the
# commit of its 4.53 release line that was tested.
SEAWEEDFS_MODULE_VERSION=v0.0.0-20261109003541-7506e5f91cd6
# compattest runs each case through s3bulk, s5cmd and the AWS CLI on the
# server: live peers (aws on PATH, S3BULK_COMPAT_S5CMD or a cached s5cmd)
# are also held to their results recorded on versitygw, so a server that
# answers them differently shows there.
PACKAGES=(./engine ./internal/batchops/... ./internal/bench ./internal/cli ./internal/compattest ./internal/faultproxy ./store/s3store)
if [ -n "${TEST_PACKAGES:-}" ]; then read -ra PACKAGES <<<"$TEST_PACKAGES"; fi
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/s3bulk/test-servers"
REGION=us-east-1

servers=("$@")
[ ${#servers[@]} -gt 0 ] || servers=(versitygw gofakes3 s3rver seaweedfs)

. scripts/lib.sh
lib_init test-servers
mkdir -p "$CACHE"

log() { echo "test-servers: $*" >&2; }

# free_port prints a TCP port on 127.0.0.1 that nothing listens on.
free_port() {
	local p
	while :; do
		p=$((10000 + RANDOM % 20000)) # below the ephemeral range
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
}

# wait_http waits up to four minutes for anything to answer HTTP at $1.
wait_http() {
	for _ in $(seq 1 480); do
		if curl -s -o /dev/null "$1"; then return 0; fi
		sleep 0.5
	done
	log "nothing answers at $1"
	return 1
}

# go_binary NAME MODULE@VERSION PACKAGE [MAIN.GO]: builds PACKAGE in a
# throwaway module (with MAIN.GO as its main package when given) into the
# cache, once.
go_binary() {
	local name=$1 modver=$2 pkg=$3 main=${4:-} out="$CACHE/$1"
	if [ -x "$out" ]; then echo "$out"; return; fi
	log "building $name from $modver (cached as $out)"
	local mod
	mod=$(mktemp -d)
	(
		cd "$mod"
		go mod init s3bulk-test-server >/dev/null 2>&1
		if [ -n "$main" ]; then printf '%s\n' "$main" >main.go; fi
		go get "$modver" >&2
		GOFLAGS=-mod=mod go build -o "$out.tmp" "$pkg" >&2
	)
	rm -rf "$mod"
	mv "$out.tmp" "$out"
	echo "$out"
}

GOFAKES3_MAIN='package main

import (
	"flag"
	"log"
	"net/http"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	flag.Parse()
	log.Fatal(http.ListenAndServe(*addr, gofakes3.New(s3mem.New()).Server()))
}'

# start_SERVER sets endpoint, access, secret and version, and starts the
# server in the background.
start_gofakes3() {
	local bin port
	bin=$(go_binary "gofakes3-$GOFAKES3_VERSION" "github.com/johannesboyne/gofakes3@$GOFAKES3_VERSION" . "$GOFAKES3_MAIN")
	port=$(free_port)
	"$bin" -addr "127.0.0.1:$port" >"$work/gofakes3.log" 2>&1 &
	pids+=($!)
	endpoint="http://127.0.0.1:$port" access=s3bulk-test secret=s3bulk-test-secret version=$GOFAKES3_VERSION
}

start_s3rver() {
	local dir="$CACHE/s3rver-$S3RVER_VERSION" port
	if [ ! -x "$dir/node_modules/.bin/s3rver" ]; then
		log "installing s3rver@$S3RVER_VERSION into $dir"
		npm install --prefix "$dir" --no-audit --no-fund "s3rver@$S3RVER_VERSION" >&2
	fi
	port=$(free_port)
	mkdir -p "$work/s3rver"
	"$dir/node_modules/.bin/s3rver" -d "$work/s3rver" -a 127.0.0.1 -p "$port" -s >"$work/s3rver.log" 2>&1 &
	pids+=($!)
	# s3rver accepts only its own fixed key pair.
	endpoint="http://127.0.0.1:$port" access=S3RVER secret=S3RVER version=$S3RVER_VERSION
}

start_seaweedfs() {
	local bin=${SEAWEEDFS_BIN:-}
	if [ -z "$bin" ]; then
		bin=$(go_binary "weed-$SEAWEEDFS_MODULE_VERSION" "github.com/seaweedfs/seaweedfs@$SEAWEEDFS_MODULE_VERSION" github.com/seaweedfs/seaweedfs/weed)
	fi
	local m v f s
	m=$(free_port) v=$(free_port) f=$(free_port) s=$(free_port)
	mkdir -p "$work/seaweedfs"
	access=s3bulk-test secret=s3bulk-test-secret
	cat >"$work/seaweedfs.json" <<-EOF
		{"identities":[{"name":"s3bulk","credentials":[{"accessKey":"$access","secretKey":"$secret"}],
		  "actions":["Admin","Read","Write","List","Tagging"]}]}
	EOF
	# gRPC ports are the HTTP ones + 10000 by default: pick them too.
	"$bin" server -dir="$work/seaweedfs" -ip=127.0.0.1 -ip.bind=127.0.0.1 -metricsPort=0 \
		-master.port="$m" -master.port.grpc="$(free_port)" -master.volumeSizeLimitMB=64 \
		-volume.port="$v" -volume.port.grpc="$(free_port)" -volume.max=0 \
		-filer.port="$f" -filer.port.grpc="$(free_port)" \
		-s3 -s3.port="$s" -s3.port.grpc="$(free_port)" -s3.config="$work/seaweedfs.json" \
		>"$work/seaweedfs.log" 2>&1 &
	pids+=($!)
	endpoint="http://127.0.0.1:$s"
	version=$("$bin" version 2>/dev/null | awk '{print $3; exit}')
}

# The tree and date of the run, taken before the first test builds.
tree=$(git describe --always --dirty 2>/dev/null || echo "outside git")
today=$(date -u +%F)
table="$work/table.md"
details="$work/details.txt"
go run ./scripts/testtable -header >"$table"
: >"$details"
run=()
[ -z "${TEST_RUN:-}" ] || run=(-run "$TEST_RUN")

for name in "${servers[@]}"; do
	json="$work/$name.json"
	case $name in
	versitygw)
		log "versitygw (embedded)"
		version=$(go list -m -f '{{.Version}}' github.com/versity/versitygw)
		go test -json -count=1 -timeout 20m "${run[@]}" "${PACKAGES[@]}" >"$json" 2>&1 || true
		;;
	gofakes3 | s3rver | seaweedfs)
		"start_$name"
		if ! wait_http "$endpoint/"; then
			log "$name did not start; the end of its log:"
			tail -n 20 "$work/$name.log" >&2 || true
			echo "| $name | $version | - | - | did not start | $today | $tree |" >>"$table"
			continue
		fi
		log "$name $version at $endpoint"
		S3BULK_TEST_ENDPOINT=$endpoint AWS_ACCESS_KEY_ID=$access AWS_SECRET_ACCESS_KEY=$secret AWS_REGION=$REGION \
			go test -json -count=1 -timeout 20m "${run[@]}" "${PACKAGES[@]}" >"$json" 2>&1 || true
		kill "${pids[-1]}" 2>/dev/null || true
		wait "${pids[-1]}" 2>/dev/null || true
		;;
	*)
		log "unknown server $name: want versitygw, gofakes3, s3rver or seaweedfs"
		exit 2
		;;
	esac
	if [ -n "${TEST_SERVERS_KEEP:-}" ]; then
		mkdir -p "$TEST_SERVERS_KEEP"
		cp "$json" "$TEST_SERVERS_KEEP/$name.json"
		[ ! -f "$work/$name.log" ] || cp "$work/$name.log" "$TEST_SERVERS_KEEP/$name.log"
	fi
	go run ./scripts/testtable -server "$name" -version "$version" -date "$today" -tree "$tree" -details <"$json" >"$work/$name.row"
	head -n 1 "$work/$name.row" >>"$table"
	tail -n +2 "$work/$name.row" | sed "s/^/$name: /" >>"$details"
done

echo
echo "Integration suite by server:"
echo
cat "$table"
if [ -s "$details" ]; then
	echo
	cat "$details"
fi
