#!/bin/sh
# The release build of QingLong's binaries: the one the Docker image ships,
# CI cross-compiles and BENCHMARKS.md measures (BenchmarkEdgeBinarySize in
# internal/single/server runs this script).
#
#   ./build.sh                                    # ql, ql-edge and ql-worker into ./bin, for this machine
#   GOARCH=arm GOARM=7 ./build.sh -o out ql-edge  # one binary into out/, for any GOOS/GOARCH
#
# Every binary is static (CGO_ENABLED=0: the SQLite driver is pure Go) and
# carries no build machine's paths (-trimpath), no symbol table and no
# DWARF debug info (-s -w): only a debugger reads them; a panic still
# prints every function and line.
#
# ql-edge also leaves out net/http's HTTP/2 (the nethttpomithttp2 tag),
# 0.5 MiB of its size budget: its API and console speak HTTP/1.1 over TLS
# too, as every profile's do, and its notification and --api-url requests
# go out over HTTP/1.1, which every receiver accepts.
set -eu

out=bin
if [ "${1:-}" = -o ]; then
	if [ $# -lt 2 ]; then
		echo "build.sh: -o needs a directory: ./build.sh -o DIR [ql|ql-edge|ql-worker...]" >&2
		exit 2
	fi
	out=$2
	shift 2
fi
case $out in
/*) ;;
*) out=$PWD/$out ;;
esac
if [ $# -eq 0 ]; then
	set -- ql ql-edge ql-worker
fi
cd "$(dirname "$0")"

for bin; do
	case $bin in
	ql-edge) tags=nethttpomithttp2 ;;
	ql | ql-worker) tags= ;;
	*)
		echo "build.sh: there is no binary $bin; give ql, ql-edge or ql-worker" >&2
		exit 2
		;;
	esac
	CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -tags="$tags" -o "$out/$bin" "./cmd/$bin"
done
