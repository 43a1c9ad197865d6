#!/usr/bin/env bash
# gw2 dishonor tables survive pg_dump and restore: the dishonor config set
# with mm.set_dishonor_config and the players' dishonor come back as they
# were (both tables are registered with pg_extension_config_dump).
# Prints TAP lines; needs PGHOST, PGPORT, PGUSER and PG_CONFIG.
set -uo pipefail

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
src=mm_gw2_dump_src
dst=mm_gw2_dump_dst
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1)
failures=0

check() {
	if [ "$2" = "$3" ]; then
		echo "ok - $1"
	else
		echo "not ok - $1"
		echo "#   expected: $2"
		echo "#   got:      $3"
		failures=$((failures + 1))
	fi
}

cleanup() {
	"${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $src" -c "DROP DATABASE IF EXISTS $dst" 2>/dev/null
}
cleanup
trap cleanup EXIT

"${psql[@]}" -d postgres -c "CREATE DATABASE $src" -c "CREATE DATABASE $dst" || { echo "not ok - create databases"; exit 1; }
"${psql[@]}" -d "$src" <<'SQL' >/dev/null || { echo "not ok - set up the source database"; exit 1; }
CREATE EXTENSION mm;
SELECT mm.set_dishonor_config('{"stack_duration": "20m", "penalties": {"abandon": 10, "afk": 3}}');
SELECT mm.dishonor(1, 'abandon', '2026-01-01 00:00+00');
SELECT mm.dishonor(1, 'afk', '2026-01-01 00:30+00');
SELECT mm.dishonor(2, 'afk', '2026-01-01 00:10+00');
SQL

err=$(mktemp)
if "$bindir/pg_dump" -d "$src" | "${psql[@]}" -d "$dst" >/dev/null 2>"$err"; then
	echo "ok - pg_dump of a database with mm restores without errors"
else
	echo "not ok - pg_dump of a database with mm restores without errors"
	sed 's/^/#   /' "$err"
	failures=$((failures + 1))
fi
rm -f "$err"

q_config="SELECT mm.dishonor_config()"
q_players="SELECT string_agg(format('%s:%s:%s:%s:%s', player_id, stacks, stacks_at, timeout_until, reason), ' ' ORDER BY player_id) FROM mm.dishonor_players"
q_status="SELECT string_agg(format('%s:%s', s.player_id, s.stacks), ' ') FROM mm.dishonor_statuses('{1,2}', '2026-01-01 01:00+00') s"

for what in config players status; do
	var="q_$what"
	a=$("${psql[@]}" -At -d "$src" -c "${!var}")
	b=$("${psql[@]}" -At -d "$dst" -c "${!var}")
	check "restored dishonor $what equals the source" "$a" "$b"
done
# The restored config is the one set, not the defaults.
b=$("${psql[@]}" -At -d "$dst" -c "SELECT mm.dishonor_config()->>'stack_duration'")
check "restored dishonor config keeps stack_duration 20m" "20m" "$b"

exit $((failures > 0))
