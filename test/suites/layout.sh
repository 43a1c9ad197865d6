#!/usr/bin/env bash
# Layout: the top level holds what the project was specified with, and the
# matcher stays pure. TAP lines "ok - ..." / "not ok - ...".
#
# The matcher (src/matcher/) is computation over in-memory structs: no file
# of it includes executor/spi.h or a header of the queue (src/queue/) or the
# results (src/results/), and no object of it calls SPI, opens a relation or
# an index, scans a catalog or reads the catalog caches. The calls are read
# from the compiled objects' undefined symbols (nm), so a call through a
# macro or another header is caught too; the catalog readers are the
# functions the server's own headers declare (utils/lsyscache.h,
# utils/syscache.h, executor/spi.h, access/table.h, access/relation.h,
# access/genam.h, utils/relcache.h, catalog/indexing.h).
set -uo pipefail
cd "${MM_ROOT:?}"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }

# 1. The top level.
allowed=' .ci .git .gitignore CHANGELOG.md LICENSE Makefile README.md docs expected monitoring mm.control sql src test '
extra=''
for f in $(git ls-files | cut -d/ -f1 | sort -u) .ci; do
	case "$allowed" in *" $f "*) ;; *) extra="$extra $f" ;; esac
done
if [ -z "$extra" ]; then
	ok "the top level holds only Makefile, mm.control, sql, src, expected, test, README.md, docs, CHANGELOG.md, LICENSE, monitoring"
else
	notok "the top level holds only the specified entries (also:$extra)"
fi
for f in Makefile mm.control sql src expected test README.md CHANGELOG.md; do
	if git ls-files --error-unmatch "$f" >/dev/null 2>&1 || [ -n "$(git ls-files "$f" | head -1)" ]; then
		ok "top level has $f"
	else
		notok "top level has $f"
	fi
done
if [ -z "$(git ls-files test/expected)" ] && [ -n "$(git ls-files 'expected/*.out')" ]; then
	ok "pg_regress's expected output is in top-level expected/, not test/expected/"
else
	notok "pg_regress's expected output is in top-level expected/, not test/expected/"
fi
missing=''
for t in test/sql/*.sql; do
	n=$(basename "$t" .sql)
	[ -f "expected/$n.out" ] || missing="$missing $n"
done
if [ -z "$missing" ]; then
	ok "every test/sql/*.sql has its expected/*.out"
else
	notok "every test/sql/*.sql has its expected/*.out (missing:$missing)"
fi
# pg_regress's alternative output (expected/NAME_N.out, N 1 to 9: output that
# differs by PostgreSQL version) belongs to a test with its own
# expected/NAME.out, whose comments name the alternative file and say why.
bad=''
for f in expected/*_[1-9].out; do
	[ -e "$f" ] || continue
	n=$(basename "$f" .out)
	base=${n%_[1-9]}
	if [ ! -f "test/sql/$base.sql" ] || [ ! -f "expected/$base.out" ] ||
		! grep -q "^--.*expected/$n\.out" "test/sql/$base.sql"; then
		bad="$bad $n"
	fi
done
if [ -z "$bad" ]; then
	ok "every alternative expected output (expected/NAME_N.out) has its test, its expected/NAME.out and a comment there saying why"
else
	notok "every alternative expected output (expected/NAME_N.out) has its test, its expected/NAME.out and a comment there saying why (not:$bad)"
fi
# Differences between PostgreSQL versions are guarded in one header.
versioned=$(grep -rlE 'PG_VERSION_NUM|PG_MAJORVERSION' src --include='*.c' --include='*.h' | grep -vx 'src/core/pg_compat.h')
if [ -z "$versioned" ]; then
	ok "only src/core/pg_compat.h tests the PostgreSQL version (PG_VERSION_NUM)"
else
	notok "only src/core/pg_compat.h tests the PostgreSQL version (PG_VERSION_NUM; also: $(echo $versioned))"
fi

# 2. The three components.
for d in src/matcher src/queue src/results; do
	if [ -n "$(ls $d/*.c 2>/dev/null)" ]; then ok "$d/ exists"; else notok "$d/ exists"; fi
done
for part in matcher queue results; do
	if ls sql/parts/*_"$part"*.sql >/dev/null 2>&1 && [ -f "docs/$part.md" ]; then
		ok "the $part has its SQL part (sql/parts/*_$part*.sql) and its page (docs/$part.md)"
	else
		notok "the $part has its SQL part (sql/parts/*_$part*.sql) and its page (docs/$part.md)"
	fi
done

# 3. The matcher includes nothing of the queue or the results, nor SPI.
headers=$(cd src/queue && ls *.h; cd ../results && ls *.h)
bad=''
for f in src/matcher/*.[ch]; do
	for h in $headers executor/spi.h; do
		if grep -qE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]([^\">]*/)?$h[\">]" "$f"; then
			bad="$bad $f:$h"
		fi
	done
done
if [ -z "$bad" ]; then
	ok "no file of src/matcher/ includes executor/spi.h or a header of src/queue/ or src/results/"
else
	notok "no file of src/matcher/ includes executor/spi.h or a header of src/queue/ or src/results/:$bad"
fi

# The catalog and table readers the server declares.
inc=$("$PG_CONFIG" --includedir-server)
readers=$(for h in utils/lsyscache.h utils/syscache.h executor/spi.h access/table.h access/relation.h \
	access/genam.h utils/relcache.h catalog/indexing.h access/heapam.h access/tableam.h; do
	[ -f "$inc/$h" ] && sed -n 's/^extern[^(]*[[:space:]*]\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*(.*/\1/p' "$inc/$h"
done | sort -u)
# functions some of those headers declare that read no catalog or table
readers=$(echo "$readers" | grep -vxE 'get_typlenbyval|get_typlenbyvalalign' || true)
nreaders=$(echo "$readers" | grep -c . || true)
if [ "$nreaders" -gt 100 ] && echo "$readers" | grep -qx SPI_execute && echo "$readers" | grep -qx table_open &&
	echo "$readers" | grep -qx SearchSysCache1; then
	ok "read $nreaders catalog, table and SPI functions from the server's headers"
else
	notok "read the catalog, table and SPI functions from the server's headers (got $nreaders)"
fi
objs=$(ls src/matcher/*.c | sed 's/\.c$/.o/')
missing_o=''
for o in $objs; do [ -f "$o" ] || missing_o="$missing_o $o"; done
if [ -n "$missing_o" ]; then
	notok "the matcher's objects are built (missing:$missing_o; make test builds them first)"
else
	calls=$(for o in $objs; do nm -u "$o" | awk '{print $2}' | sed "s|^|$o |"; done)
	hits=$(echo "$calls" | awk 'NR==FNR { r[$1] = 1; next } ($2 in r)' <(echo "$readers") - | sort -u)
	if [ -z "$hits" ]; then
		ok "no object of src/matcher/ calls SPI, opens a relation or reads a catalog ($(echo "$calls" | wc -l) calls read)"
	else
		notok "no object of src/matcher/ calls SPI, opens a relation or reads a catalog"
		echo "$hits" | sed 's/^/#   /'
	fi
	# ... and none calls into the queue or the results
	defs=$(for o in src/queue/*.o src/results/*.o; do nm --defined-only "$o" | awk '$2 ~ /[TDRB]/ {print $3}'; done | sort -u)
	up=$(echo "$calls" | awk 'NR==FNR { d[$1] = 1; next } ($2 in d)' <(echo "$defs") - | sort -u)
	if [ -z "$up" ]; then
		ok "no object of src/matcher/ calls a function of src/queue/ or src/results/"
	else
		notok "no object of src/matcher/ calls a function of src/queue/ or src/results/"
		echo "$up" | sed 's/^/#   /'
	fi
fi

# 4. The check itself fails on an impure matcher: a scratch file that
# includes SPI and calls it, and one that includes the queue's header.
scratch=$(mktemp -d "${MM_TMPDIR:-/tmp}/mm-layout.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cat >"$scratch/impure.c" <<'EOF'
#include "postgres.h"
#include "executor/spi.h"
#include "utils/lsyscache.h"
int mm_impure(void);
int mm_impure(void) { return SPI_connect() + (int) get_func_rettype(0); }
EOF
if gcc -c -I"$inc" -o "$scratch/impure.o" "$scratch/impure.c" 2>/dev/null; then
	got=$(nm -u "$scratch/impure.o" | awk '{print $2}' | grep -xF -f <(echo "$readers") | sort | tr '\n' ' ')
	if [ "$got" = "SPI_connect get_func_rettype " ]; then
		ok "the symbol check finds SPI_connect and get_func_rettype in a scratch object"
	else
		notok "the symbol check finds SPI_connect and get_func_rettype in a scratch object (found: $got)"
	fi
else
	notok "the symbol check's scratch object compiles"
fi
if grep -qE '#[[:space:]]*include[[:space:]]*"(queue|results)\.h"' <(printf '#include "queue.h"\n'); then
	ok "the include check matches #include \"queue.h\""
else
	notok "the include check matches #include \"queue.h\""
fi

exit $fail
