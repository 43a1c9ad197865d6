#!/usr/bin/env bash
# Packaging: the default build warns but does not stop on warnings (-Werror
# is the test build's, via COPT); OBJS names every C file; PGFILEDESC is set;
# test/cluster.sh (behind make test, demo and bench) never stops or removes
# a directory it did not create. TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail
cd "${MM_ROOT:?}"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }

default=$(make -n -B src/core/mm.o PG_CONFIG="$PG_CONFIG" 2>/dev/null | grep -E '(^| )-c ' | head -1)
strict=$(make -n -B src/core/mm.o PG_CONFIG="$PG_CONFIG" COPT=-Werror 2>/dev/null | grep -E '(^| )-c ' | head -1)
# PostgreSQL's own flags carry -Werror=vla and the like: look for -Werror alone
if [ -n "$default" ] && ! grep -qE -- '-Werror( |$)' <<<"$default" && grep -q -- '-Wextra' <<<"$default" &&
	grep -qE -- '-Werror( |$)' <<<"$strict"; then
	ok "default build: -Wall -Wextra without -Werror; COPT=-Werror adds it"
else
	notok "default build: -Wall -Wextra without -Werror; COPT=-Werror adds it"
	echo "#   default: $default"
fi
if grep -q 'COPT=-Werror' test/cluster.sh; then
	ok "the test build (test/cluster.sh build) uses -Werror"
else
	notok "the test build (test/cluster.sh build) uses -Werror"
fi

vars=$(make -p -n -q PG_CONFIG="$PG_CONFIG" 2>/dev/null)
objs=$(echo "$vars" | sed -n 's/^OBJS *= *//p' | head -1 | tr ' ' '\n' | grep . | sort)
sources=$(ls src/*/*.c | sed 's/\.c$/.o/' | sort)
if [ -n "$objs" ] && [ "$objs" = "$sources" ]; then
	ok "OBJS lists every src/*/*.c ($(echo "$objs" | wc -l) files)"
else
	notok "OBJS lists every src/*/*.c (add a new file to OBJS in the Makefile)"
	diff <(echo "$sources") <(echo "$objs") | sed 's/^/#   /'
fi
if grep -q '^PGFILEDESC = "mm - ' <<<"$vars"; then
	ok "PGFILEDESC is set"
else
	notok "PGFILEDESC is set"
fi

# A directory at a cluster's path that cluster.sh did not create is left
# alone (in a folder of this suite's own, given as MM_TMPDIR).
priv=$(mktemp -d "${MM_TMPDIR:-/tmp}/mm-packaging.XXXXXX")
chmod 755 "$priv"
dir=$(MM_TMPDIR=$priv bash test/cluster.sh dir demo)
mkdir -p "$dir/data"
echo keep >"$dir/data/precious"
if MM_TMPDIR=$priv bash test/cluster.sh start demo >/dev/null 2>&1; then
	notok "cluster.sh start refuses a directory it did not create"
	MM_TMPDIR=$priv bash test/cluster.sh stop demo >/dev/null 2>&1
else
	ok "cluster.sh start refuses a directory it did not create"
fi
MM_TMPDIR=$priv bash test/cluster.sh stop demo >/dev/null 2>&1
if [ "$(cat "$dir/data/precious" 2>/dev/null)" = keep ]; then
	ok "cluster.sh start and stop left that directory as it was"
else
	notok "cluster.sh start and stop left that directory as it was"
fi
rm -rf "$priv"
exit $fail
