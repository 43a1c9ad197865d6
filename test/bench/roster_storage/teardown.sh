#!/usr/bin/env bash
# Every run of every case wrote the whole burst: 2,000 matches and 8,000
# matched rosters (16,000 players) in its shape, 2,000 rosters still waiting.
set -euo pipefail
q() { psql -X -At -v ON_ERROR_STOP=1 -c "$1"; }
bad=0
for shape in today no_fk match_row in_place in_place_no_fk; do
	runs=$(q "SELECT last_value FROM public.run_$shape")
	for k in $(seq "$runs"); do
		s=p_${shape}_$k
		case $shape in
		today | no_fk) got=$(q "SELECT (SELECT count(*) FROM $s.match) || '/' || (SELECT count(*) FROM $s.match_roster) || '/' || (SELECT sum(cardinality(players)) FROM $s.match_roster) || '/' || (SELECT count(*) FROM $s.roster) || '/' || (SELECT count(*) FROM $s.queued_player)") ;;
		match_row) got=$(q "SELECT (SELECT count(*) FROM $s.match) || '/' || (SELECT sum(cardinality(rosters)) FROM $s.match) || '/' || (SELECT sum(cardinality(players)) FROM $s.match) || '/' || (SELECT count(*) FROM $s.roster) || '/' || (SELECT count(*) FROM $s.queued_player)") ;;
		*) got=$(q "SELECT (SELECT count(*) FROM $s.match) || '/' || (SELECT count(*) FROM $s.roster WHERE match_id IS NOT NULL) || '/' || (SELECT count(*) FROM $s.queued_player qp JOIN $s.roster r USING (roster_id) WHERE r.match_id IS NOT NULL) || '/' || (SELECT count(*) FROM $s.roster WHERE match_id IS NULL) || '/' || (SELECT count(*) FROM $s.queued_player qp JOIN $s.roster r USING (roster_id) WHERE r.match_id IS NULL)") ;;
		esac
		if [ "$got" != 2000/8000/16000/2000/4000 ]; then
			echo "roster_storage: $s holds $got (matches/matched rosters/their players/waiting rosters/their players), not 2000/8000/16000/2000/4000" >&2
			bad=1
		fi
	done
done
exit $bad
