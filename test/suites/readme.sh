#!/usr/bin/env bash
# Every ```sql example in README.md runs, in order, in one fresh database
# (the first example creates the extension); and every public function of schema mm appears in the
# README. A block whose first line is "-- not run" is skipped (e.g. one that
# needs pg_cron in another database).
set -uo pipefail
cd "${MM_ROOT:?}"
db=mm_readme
psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
work=$(mktemp -d)
status=0

# Split README.md into one file per sql block, named by its first line number.
awk -v dir="$work" '
	/^```sql[[:space:]]*$/ { inblock = 1; start = NR + 1; file = sprintf("%s/%05d.sql", dir, start); next }
	/^```/ && inblock { inblock = 0; close(file); next }
	inblock { print > file }
' README.md

for block in "$work"/*.sql; do
	[ -e "$block" ] || continue
	line=$(basename "$block" .sql | sed 's/^0*//')
	if head -1 "$block" | grep -q '^-- not run'; then
		echo "ok - README example at line $line # SKIP not run"
		continue
	fi
	if out=$(psql -X -q -d "$db" -v ON_ERROR_STOP=1 -f "$block" 2>&1 >/dev/null); then
		echo "ok - README example at line $line runs"
	else
		echo "not ok - README example at line $line runs"
		echo "$out" | sed 's/^/#   /' | head -20
		status=1
	fi
done

# Every function, procedure and aggregate of schema mm is named in README.md
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
		grep -q "mm\.$fn\b" README.md || echo "$fn"
	done)
if [ -z "$missing" ]; then
	echo "ok - every public function of schema mm is shown in README.md"
else
	echo "not ok - every public function of schema mm is shown in README.md"
	echo "# missing: $(echo $missing)"
	status=1
fi

psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null
rm -rf "$work"
exit $status
