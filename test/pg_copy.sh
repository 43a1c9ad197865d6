#!/usr/bin/env bash
# A private copy of the PostgreSQL installation that PG_CONFIG names: its
# bin and lib, share and server headers, under DIR, laid out as they are
# installed so that the copy's pg_config finds them relative to itself.
# An extension built with the copy's pg_config installs into the copy and
# never into the shared installation, so that runs of different mm trees
# (a benchmark of two versions, a sanitizer build) do not disturb each
# other or anyone else.
#
#   bash test/pg_copy.sh DIR     prints the copy's pg_config
set -euo pipefail
dir=${1:?usage: test/pg_copy.sh DIR}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)
pkglibdir=$("$PG_CONFIG" --pkglibdir)
sharedir=$("$PG_CONFIG" --sharedir)
incdir=$("$PG_CONFIG" --includedir-server)
incparent=$(dirname "$incdir")
# The installation's root: the deepest folder that holds its programs,
# libraries, shared files and headers. /usr for Debian's packages
# (/usr/lib/postgresql/15/bin, /usr/share/postgresql/15, ...); the prefix of
# an installation built from source (/opt/pg17/bin, /opt/pg17/lib/postgresql,
# ...).
root=$bindir
for d in "$pkglibdir" "$sharedir" "$incparent"; do
	while [ "$root" != / ]; do
		case "$d/" in "$root"/*) break ;; esac
		root=$(dirname "$root")
	done
done
if [ "$root" = / ]; then
	echo "pg_copy.sh: cannot copy the installation: $bindir, $pkglibdir, $sharedir and $incdir share no folder but /" >&2
	exit 1
fi
# Each folder is copied to the same place under DIR (the programs, the
# server's libraries with PGXS, the shared files, the headers of the server
# and of the internal libraries). Both the programs and the libraries
# reach libpq and the other shared libraries by absolute paths, which the
# copy keeps.
for d in "$bindir" "$pkglibdir" "$sharedir" "$incparent"; do
	rel=${d#"$root"/}
	mkdir -p "$dir/$(dirname "$rel")"
	rm -rf "${dir:?}/$rel"
	cp -a "$d" "$dir/$rel"
done
rel_lib=${pkglibdir#"$root"/}
copy=$dir/${bindir#"$root"/}/pg_config
if [ "$("$copy" --pkglibdir)" != "$dir/$rel_lib" ]; then
	echo "pg_copy.sh: the copied pg_config does not point into the copy" >&2
	exit 1
fi
echo "$copy"
