#!/usr/bin/env bash
# UBSan suite: mm built with -fsanitize=undefined,float-divide-by-zero into
# a private copy of the PostgreSQL installation (PG_CONFIG's; never into it),
# a throwaway cluster on that copy, then the regression suite and the fuzz
# suite. UBSan prints "runtime error:" reports on the server's stderr, which
# is the server log: any report fails the suite, with the report.
set -uo pipefail
: "${MM_ROOT:?run by test/long/run.sh}"
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
work=$(mktemp -d "${MM_TMPDIR:-/tmp}"/mm-ubsan.XXXXXX)
chmod 755 "$work"
name=test
cleanup() {
	if [ -n "${copy_config:-}" ]; then
		PG_CONFIG=$copy_config bash "$work/src/test/cluster.sh" stop "$name" >/dev/null 2>&1
	fi
	rm -rf "$work"
}
trap cleanup EXIT

fail() {
	echo "not ok - $1"
	exit 1
}

# 1. A private copy of the installation (test/pg_copy.sh).
copy_config=$(bash "$MM_ROOT/test/pg_copy.sh" "$work/pg") || fail "copying the installation"
libdir=$("$copy_config" --pkglibdir)
echo "ok - a private copy of PostgreSQL in $work/pg"

# 2. Build mm with UBSan into the copy (a copy of the sources too, so that
# the worktree's objects are never the instrumented ones).
mkdir -p "$work/src"
cp -a "$MM_ROOT/Makefile" "$MM_ROOT/mm.control" "$MM_ROOT/src" "$MM_ROOT/sql" \
	"$MM_ROOT/test" "$MM_ROOT/expected" "$work/src/"
cd "$work/src"
rm -rf test/node/node_modules
ubsan="-fsanitize=undefined,float-divide-by-zero -fno-omit-frame-pointer"
if ! make -s PG_CONFIG="$copy_config" with_llvm=no clean >/dev/null ||
	! make -s PG_CONFIG="$copy_config" with_llvm=no MM_EXTRA_CFLAGS="$ubsan" \
		MM_EXTRA_LDFLAGS="-fsanitize=undefined" >"$work/build.log" 2>&1 ||
	! make -s PG_CONFIG="$copy_config" with_llvm=no install >/dev/null; then
	cat "$work/build.log"
	fail "building mm with UBSan"
fi
nm -D "$libdir/mm.so" | grep __ubsan_handle >/dev/null || fail "mm.so is not instrumented"
echo "ok - mm built with $ubsan"

# 3. A cluster on the copy; UBSan's reports go to the server log.
export UBSAN_OPTIONS=print_stacktrace=1
PG_CONFIG=$copy_config bash test/cluster.sh start "$name" || fail "starting the cluster"
eval "$(PG_CONFIG=$copy_config bash test/cluster.sh env "$name")"
export PGHOST PGPORT PGUSER
serverlog=$PGHOST/server.log

# 4. The regression suite and the fuzz suite under it.
if make -s PG_CONFIG="$copy_config" with_llvm=no installcheck ISOLATION= >"$work/regress.log" 2>&1; then
	echo "ok - regression suite passes under UBSan"
else
	# up to 15 "test name ... FAILED", from 16 TAP lines "not ok N - name"
	grep -E '^test |FAILED|^not ok ' "$work/regress.log" | sed 's/^/# /'
	[ -f regression.diffs ] && head -60 regression.diffs | sed 's/^/#   /'
	echo "not ok - regression suite under UBSan"
fi
MM_ROOT=$work/src MM_FUZZ_CALLS=${MM_FUZZ_CALLS:-3000} bash test/suites/fuzz.sh 2>&1 | sed 's/^ok - /ok - under UBSan: /'

# 5. Any report fails.
reports=$(grep -c 'runtime error:' "$serverlog" || true)
if [ "$reports" = 0 ]; then
	echo "ok - no UBSan report in the server log"
else
	echo "not ok - $reports UBSan reports in the server log"
	grep -A12 'runtime error:' "$serverlog" | head -80 | sed 's/^/# /'
fi
