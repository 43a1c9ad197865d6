#!/usr/bin/env bash
# Every ```sql example of the documentation runs, in order, in one fresh
# database: README.md first (its first example creates the extension), then
# the docs/ pages in the order README.md links them. Every docs/*.md page is
# linked from README.md, and every public function of schema mm appears in
# the documentation. A block whose first line is "-- not run" is skipped
# (e.g. one that needs pg_cron in another database).
set -uo pipefail
cd "${MM_ROOT:?}"
db=mm_readme
psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
work=$(mktemp -d)
status=0

# The pages, in order: README.md, then every docs/*.md it links, in link order.
pages=(README.md $(grep -oE '\]\(docs/[a-z0-9_-]+\.md\)' README.md | sed 's/^](//; s/)$//' | awk '!seen[$0]++'))
for page in docs/*.md; do
	[ -e "$page" ] || continue
	if printf '%s\n' "${pages[@]}" | grep -qx "$page"; then
		echo "ok - $page is linked from README.md"
	else
		echo "not ok - $page is linked from README.md"
		status=1
	fi
done

# Split each page into one file per sql block, named by page number and the
# block's first line number, so that sorting the names gives the run order.
n=0
for page in "${pages[@]}"; do
	n=$((n + 1))
	awk -v dir="$work" -v n="$n" '
		/^```sql[[:space:]]*$/ { inblock = 1; start = NR + 1; file = sprintf("%s/%02d-%05d.sql", dir, n, start); next }
		/^```/ && inblock { inblock = 0; close(file); next }
		inblock { print > file }
	' "$page"
done

for block in "$work"/*.sql; do
	[ -e "$block" ] || continue
	name=$(basename "$block" .sql)
	page=${pages[$((10#${name%%-*} - 1))]}
	line=$((10#${name#*-}))
	if head -1 "$block" | grep -q '^-- not run'; then
		echo "ok - $page example at line $line # SKIP not run"
		continue
	fi
	if psql -X -q -a -d "$db" -v ON_ERROR_STOP=1 -P pager=off -f "$block" >"$work/$name.out" 2>&1; then
		echo "ok - $page example at line $line runs"
	else
		echo "not ok - $page example at line $line runs"
		tail -20 "$work/$name.out" | sed 's/^/#   /'
		status=1
	fi
done

# What each page's examples print, compared with expected/readme/PAGE.out
# (MM_README_ACCEPT=1 writes those files). What depends on the clock is
# masked: timestamps, intervals, backend PIDs, psql's name for the block's
# file; runs of spaces and of dashes are squeezed, so that a column's width
# does not matter. A block whose first line starts with "-- output varies"
# (timings) runs, but its output is not compared; the page's line says how
# many such blocks it has.
mask() {
	sed -E \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([+-][0-9]{2}(:[0-9]{2})?)?/<time>/g' \
		-e 's/(-?[0-9]+ days? )?-?[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?/<interval>/g' \
		-e 's/server process with PID [0-9]+/server process with PID <pid>/g' \
		-e 's/^psql:[^ ]*\.sql:[0-9]+: /psql: /' \
		-e 's/-{3,}/---/g' -e 's/ +/ /g' -e 's/ +$//'
}
expected_dir=expected/readme
mkdir -p "$expected_dir"
n=0
for page in "${pages[@]}"; do
	n=$((n + 1))
	actual="$work/$(basename "$page" .md).actual"
	: >"$actual"
	k=0
	varies=0
	for out in "$work"/$(printf '%02d' "$n")-*.out; do
		[ -e "$out" ] || continue
		k=$((k + 1))
		if head -1 "${out%.out}.sql" | grep -q '^-- output varies'; then
			varies=$((varies + 1))
			continue
		fi
		echo "-- ==== example $k" >>"$actual"
		mask <"$out" >>"$actual"
	done
	[ -s "$actual" ] || continue
	expected="$expected_dir/$(basename "$page" .md).out"
	if [ "${MM_README_ACCEPT:-}" = 1 ]; then
		cp "$actual" "$expected"
	fi
	if [ -f "$expected" ] && diff -u "$expected" "$actual" >"$work/diff" 2>&1; then
		note=
		[ "$varies" -gt 0 ] && note=" ($varies whose output varies not compared)"
		echo "ok - $page examples print what $expected holds$note"
	else
		echo "not ok - $page examples print what $expected holds"
		head -40 "$work/diff" | sed 's/^/#   /'
		status=1
	fi
done

# Every config key mm.config_keys lists is documented: its dotted path, or
# its last part, appears as `key` in the documentation.
missing=$(psql -X -At -F ' ' -d "$db" -c "SELECT kind, key FROM mm.config_keys() ORDER BY 1, 2" |
	while read -r kind key; do
		grep -qF "\`$key\`" "${pages[@]}" || grep -qF "\`${key##*.}\`" "${pages[@]}" || echo "$kind:$key"
	done)
if [ -z "$missing" ]; then
	echo "ok - every config key of mm.config_keys is documented"
else
	echo "not ok - every config key of mm.config_keys is documented"
	echo "# missing: $(echo $missing)"
	status=1
fi

# Every function, procedure and aggregate of schema mm is named in the docs
# (as mm.name). Internal functions are exempt: triggers, aggregate support
# functions, names starting with an underscore and comments starting with
# "internal".
missing=$(psql -X -At -d "$db" -c "
	SELECT DISTINCT p.proname
	FROM pg_proc p
	WHERE p.pronamespace = 'mm'::regnamespace
	  AND p.prorettype <> 'trigger'::regtype
	  AND p.proname NOT LIKE '\\_%'
	  AND coalesce(obj_description(p.oid, 'pg_proc'), '') NOT LIKE 'internal%'
	  AND NOT EXISTS (SELECT 1 FROM pg_aggregate a
	                  WHERE p.oid IN (a.aggtransfn, a.aggfinalfn, a.aggcombinefn,
	                                  a.aggserialfn, a.aggdeserialfn))
	ORDER BY 1" | while read -r fn; do
		grep -q "mm\.$fn\b" "${pages[@]}" || echo "$fn"
	done)
if [ -z "$missing" ]; then
	echo "ok - every public function of schema mm is shown in the documentation"
else
	echo "not ok - every public function of schema mm is shown in the documentation"
	echo "# missing: $(echo $missing)"
	status=1
fi

psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null
rm -rf "$work"
exit $status
