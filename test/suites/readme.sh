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
	if out=$(psql -X -q -d "$db" -v ON_ERROR_STOP=1 -f "$block" 2>&1 >/dev/null); then
		echo "ok - $page example at line $line runs"
	else
		echo "not ok - $page example at line $line runs"
		echo "$out" | sed 's/^/#   /' | head -20
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
