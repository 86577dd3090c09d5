#!/bin/sh
# The release build of QingLong's binaries: the one the Docker image ships,
# CI cross-compiles and BENCHMARKS.md measures (BenchmarkEdgeBinarySize in
# internal/single/server runs this script).
#
#   ./build.sh                                    # ql, ql-edge and ql-worker into ./bin, for this machine
#   GOARCH=arm GOARM=7 ./build.sh -o out ql-edge  # one binary into out/, for another GOOS/GOARCH
#
# On Linux the SQLite driver builds for 386, amd64, arm, arm64, loong64,
# ppc64le, riscv64 and s390x; another architecture (MIPS) is refused, and
# so is a system other than Linux and macOS (Windows).
#
# Every binary is static (CGO_ENABLED=0: the SQLite driver is pure Go) and
# carries no build machine's paths (-trimpath), no symbol table and no
# DWARF debug info (-s -w): only a debugger reads them; a panic still
# prints every function and line.
#
# Every binary reports its version (`ql version`, `--version`): QL_VERSION
# when set (the Dockerfile passes its build argument: the image is built
# without .git), else the checkout's nearest tag (`git describe --tags
# --dirty`), else "dev"; and the commit it was built from (`ql version`'s
# commit line): QL_COMMIT when set, else the checkout's HEAD, -dirty when
# the tree has changes, else the COMMIT file beside this script, which
# `git archive` (a release's source tarball) fills with the archived commit
# (export-subst in .gitattributes); without any of them `ql version` says
# the commit is unknown. It is stamped through -ldflags, not Go's own VCS
# stamp, which a git worktree (where .git is a file) and
# GOFLAGS=-buildvcs=false both leave out.
#
#   QL_VERSION=v1.2.3 ./build.sh
#   QL_VERSION=v1.2.3 QL_COMMIT=0123abc ./build.sh   # sources without .git
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

version=${QL_VERSION:-}
if [ -z "$version" ]; then
	version=$(git describe --tags --dirty 2>/dev/null || true)
fi
version=${version:-dev}
# The version goes into -ldflags, which splits on spaces and quotes.
case $version in
*[!A-Za-z0-9._+-]*)
	echo "build.sh: QL_VERSION=$version: a version takes letters, digits and . _ + - only, e.g. v1.2.3" >&2
	exit 2
	;;
esac
# QingLong runs on Linux: its commands' process trees, orphans, accounts
# and lock holders are followed through Linux's own interfaces (a child
# subreaper, /proc). macOS builds with less of that (see docs/operations.md,
# "Supported systems") and is untested. Any other system is refused here,
# naming those two: on Windows (no process groups, POSIX signals or flock)
# go build would stop on raw compile errors, and the BSDs are untried.
goos=$(go env GOOS)
goarch=$(go env GOARCH)
case $goos in
linux) ;;
darwin)
	echo "build.sh: darwin/$goarch: macOS builds but is untested and unsupported; QingLong is supported on Linux (see docs/operations.md, \"Supported systems\")" >&2
	;;
*)
	echo "build.sh: $goos/$goarch: not a system QingLong supports; it is supported on Linux (GOOS=linux) and builds, untested, for macOS (GOOS=darwin)" >&2
	exit 2
	;;
esac
# The SQLite driver every binary links (pure Go, translated from C for
# each platform) exists for these Linux architectures only: refused here,
# a MIPS build (most OpenWrt routers) would stop deep inside the driver's
# C library saying only that build constraints exclude its files.
if [ "$goos" = linux ]; then
	case $goarch in
	386 | amd64 | arm | arm64 | loong64 | ppc64le | riscv64 | s390x) ;;
	*)
		echo "build.sh: linux/$goarch: QingLong's embedded SQLite driver is not built for $goarch; on Linux it builds for 386, amd64, arm (GOARM=5, 6 or 7), arm64, loong64, ppc64le, riscv64 and s390x (MIPS routers: run ql-edge on an ARM board or another host)" >&2
		exit 2
		;;
	esac
fi
# The checkout's HEAD only when this tree is the checkout: sources
# unpacked inside another repository are not that repository's commit.
commit=${QL_COMMIT:-}
if [ -z "$commit" ] && [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
	commit=$(git rev-parse HEAD)
	if [ -n "$(git status --porcelain 2>/dev/null)" ]; then
		commit=$commit-dirty
	fi
fi
if [ -z "$commit" ] && [ -f COMMIT ]; then
	commit=$(sed -n 1p COMMIT)
	# Left as committed ($Format:...$): a copy not made by git archive.
	case $commit in
	*'$'*) commit= ;;
	esac
fi
# The commit goes into -ldflags too.
case $commit in
*[!A-Za-z0-9._+-]*)
	echo "build.sh: commit $commit (QL_COMMIT or the COMMIT file): a commit takes letters, digits and . _ + - only, e.g. the 40 hex digits git rev-parse HEAD prints" >&2
	exit 2
	;;
esac

for bin; do
	case $bin in
	ql-edge) tags=nethttpomithttp2 ;;
	ql | ql-worker) tags= ;;
	*)
		echo "build.sh: there is no binary $bin; give ql, ql-edge or ql-worker" >&2
		exit 2
		;;
	esac
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X github.com/qinglong/qinglong/internal/core/cli.Version=$version -X github.com/qinglong/qinglong/internal/core/cli.commit=$commit" -tags="$tags" -o "$out/$bin" "./cmd/$bin"
done
