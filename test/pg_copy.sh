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
root=$(cd "$bindir/../../../.." && pwd)
for d in "$pkglibdir" "$sharedir" "$incdir"; do
	case "$d" in
		"$root"/*) ;;
		*) echo "pg_copy.sh: cannot copy the installation: $d is not under $root" >&2; exit 1 ;;
	esac
done
rel_lib=${pkglibdir#"$root"/}
rel_share=${sharedir#"$root"/}
rel_inc=${incdir#"$root"/}
rel_inc=${rel_inc%/server}
for rel in "${rel_lib%/lib}" "$rel_share" "$rel_inc"; do
	mkdir -p "$dir/$(dirname "$rel")"
	rm -rf "${dir:?}/$rel"
	cp -a "$root/$rel" "$dir/$rel"
done
copy=$dir/${bindir#"$root"/}/pg_config
if [ "$("$copy" --pkglibdir)" != "$dir/$rel_lib" ]; then
	echo "pg_copy.sh: the copied pg_config does not point into the copy" >&2
	exit 1
fi
echo "$copy"
