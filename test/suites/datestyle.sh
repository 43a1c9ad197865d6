#!/usr/bin/env bash
# The Glicko-2 value checks give the same values under any DateStyle,
# TimeZone and IntervalStyle: the regression inputs that read policies
# (test/sql/glicko2*.sql, policy_time.sql) run under ISO/UTC and under two
# other settings, each in a fresh database, and their outputs must be equal
# once timestamps are written one way (a timestamp's text is the only thing
# a setting may change). An IMMUTABLE function that parsed "reset" with
# the session's settings failed here: a rating under DMY, an error under MDY.
# TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail
cd "${MM_ROOT:?}"
fail=0
work=$(mktemp -d)
db=mm_datestyle
unset PGDATESTYLE PGTZ

# Timestamps as ISO, SQL, Postgres or German DateStyle print them, in any
# zone: replaced by one token. Nothing else is touched.
normalize() {
	sed -E \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?([+-][0-9]{2}(:?[0-9]{2}){0,2})?/<ts>/g' \
		-e 's/[0-9]{2}[/.][0-9]{2}[/.][0-9]{4} [0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?( [A-Z]{2,5}|( ?[+-][0-9]{2,4}))?/<ts>/g' \
		-e 's/(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [0-9]{2} [0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)? [0-9]{4}( [A-Z+0-9-]+)?/<ts>/g' \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{2}[/.][0-9]{2}[/.][0-9]{4}/<date>/g' \
		-e 's/<ts> [A-Z+0-9-]{2,6}( |$)/<ts>\1/g'
}

run() {
	local name=$1 options=$2 file
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	psql -X -q -d "$db" -c "CREATE EXTENSION mm"
	for file in test/sql/glicko2.sql test/sql/glicko2_policy.sql test/sql/glicko2_replay.sql test/sql/policy_time.sql; do
		[ -f "$file" ] || continue
		echo "### $file"
		PGOPTIONS="$options" psql -X -A -a -d "$db" -v VERBOSITY=terse -f "$file" 2>&1 | sed 's/^psql:[^:]*:[0-9]*: //'
	done >"$work/$name.raw"
	normalize <"$work/$name.raw" >"$work/$name.out"
}

run iso "-c DateStyle=ISO,MDY -c TimeZone=UTC"
run dmy "-c DateStyle=SQL,DMY -c TimeZone=Asia/Kathmandu"
run german "-c DateStyle=German -c TimeZone=America/St_Johns -c IntervalStyle=sql_standard"

lines=$(grep -c . "$work/iso.out")
for other in dmy german; do
	if diff -u "$work/iso.out" "$work/$other.out" >"$work/$other.diff"; then
		echo "ok - Glicko-2 values under $other settings equal those under ISO/UTC ($lines lines)"
	else
		echo "not ok - Glicko-2 values under $other settings equal those under ISO/UTC"
		sed 's/^/#   /' "$work/$other.diff" | head -40
		fail=1
	fi
done
# the runs did run to their end: policy_time's last check (three settings
# inside one session, one value) is in the output, and nothing crashed
if grep -q '^3|1|' "$work/iso.out" && ! grep -q "server closed the connection" "$work/"*.raw; then
	echo "ok - the value checks ran to their end in every setting"
else
	echo "not ok - the value checks ran to their end in every setting"
	fail=1
fi

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db"
rm -rf "$work"
exit $fail
