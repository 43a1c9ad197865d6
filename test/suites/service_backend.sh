#!/usr/bin/env bash
# A game backend written in plain psql, logged in with only the service
# role: it LISTENs on a queue with a ready check, learns who is in each
# proposed match from the notification and mm.match_players (never from
# mm.ticket_status), accepts for most players, declines for some and lets
# others stay silent, claims the matches the channel announces, reports
# most of them and "crashes" holding the rest. Checks:
#   - every match a tick made was announced under "proposed", and the
#     backend knew its players from mm.match_players;
#   - every dissolved match was announced under "dissolved" with the
#     reason its tickets record, and no other, and mm.match_players told
#     the backend which of its rosters went back to the queue;
#   - after the crash, mm.open_matches lists exactly the matches the
#     backend claimed and never reported, with their rosters;
#   - the service role reads mm.queue_stats (matches played apart from
#     proposals dissolved) and calls the wait estimates.
# TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail

db=mm_service_backend
role=mm_suite_backend
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
psql_q() { psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 "$@"; }
work=$(mktemp -d "${MM_TMPDIR:-/tmp}"/mm-service-backend.XXXXXX)

psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" \
	-c "DROP ROLE IF EXISTS $role" -c "CREATE DATABASE $db" >/dev/null || exit 1
# the roles mm.grant_roles creates here are dropped at the end (roles
# belong to the whole cluster)
created=$(psql_q -c "CREATE EXTENSION mm" -c "SELECT string_agg(quote_ident(role), ', ') FROM mm.grant_roles() WHERE created") ||
	{ notok "service backend database set up"; exit 1; }
psql_q >/dev/null <<SQL || { notok "service backend database set up"; exit 1; }
CREATE ROLE $role LOGIN IN ROLE mm_service;
-- 2v2, parties of one and two, a 2-second ready check; 40 players
SELECT mm.create_queue('s', '{"team_size": 2, "filter": {"potentials_min": 1}, "accept_timeout": 2}');
SQL

channel=$(psql_q -c "SELECT mm.queue_channel('s')")
as_backend() { psql -X -q -At -U "$role" -d "$db" -v ON_ERROR_STOP=1 "$@"; }

# The backend: one psql session as the service role, fed commands through a
# pipe; its output (query results and notifications) goes to a file.
mkfifo "$work/in"
psql -X -At -U "$role" -d "$db" <"$work/in" >"$work/out" 2>"$work/err" &
backend=$!
exec 3>"$work/in"
echo "LISTEN $channel;" >&3
sync_n=0
# Send SQL to the backend and wait until it has run.
send() {
	sync_n=$((sync_n + 1))
	printf '%s\nSELECT %s;\n' "$1" "'sync $sync_n'" >&3
	for _ in $(seq 1 600); do
		grep -qx "sync $sync_n" "$work/out" && return 0
		sleep 0.05
	done
	echo "# the backend did not answer"
	return 1
}
seen=0
# The notifications the backend received so far, one payload a line.
payloads_all() {
	sed -n 's/^Asynchronous notification "'"$channel"'" with payload "\(.*\)" received from server process with PID [0-9]*\.$/\1/p' "$work/out"
}
ids_of() { echo "$1" | sed 's/.*\[\(.*\)\].*/\1/' | tr -d ' '; }

: >"$work/known" >"$work/dissolved" >"$work/claimed" >"$work/reported" >"$work/held"
n_claimed=0
for round in $(seq 1 12); do
	# players not waiting and not in a match being played queue again: solos
	# and pairs (the game clients), and pg_cron's tick, from other sessions
	psql_q >/dev/null <<'SQL' 2>>"$work/err"
CREATE TEMP VIEW busy AS
SELECT p FROM generate_series(1, 41) p, mm.ticket_status(p) t
WHERE t.status IN ('waiting', 'proposed', 'accepted') OR (t.status = 'matched' AND t.match_status <> 'finished');
SELECT count(mm.enqueue('s', CASE WHEN p % 4 = 0 THEN ARRAY[p, p + 1] ELSE ARRAY[p] END, 1500 + 10 * (p % 7)))
FROM generate_series(1, 40) p
WHERE p % 4 <> 1 AND p NOT IN (SELECT p FROM busy) AND (p % 4 <> 0 OR p + 1 NOT IN (SELECT p FROM busy));
SELECT count(*) FROM mm.tick('s');
SQL
	# the backend handles what the channel says until it is quiet
	for _ in 1 2 3 4 5 6; do
		send "" || break
		payloads=$(payloads_all | tail -n +$((seen + 1)))
		seen=$(payloads_all | grep -c .)
		[ -z "$payloads" ] && break
		while IFS= read -r p; do
			ids=$(ids_of "$p")
			case "$p" in
			*'"proposed"'*)
				# who is in these matches: one call
				send "SELECT 'who', match_id, string_agg(array_to_string(players, ','), ',' ORDER BY roster_id) FROM mm.match_players(ARRAY[$ids]::bigint[]) GROUP BY match_id;"
				grep '^who|' "$work/out" | sort -u >"$work/known.tmp"
				sort -u "$work/known" "$work/known.tmp" >"$work/known.new" && mv "$work/known.new" "$work/known"
				# each player answers: most accept, some decline, some never answer
				answers=""
				for m in ${ids//,/ }; do
					players=$(grep "^who|$m|" "$work/known" | cut -d'|' -f3)
					for pl in ${players//,/ }; do
						if [ $(((pl + m) % 13)) = 0 ]; then
							answers="$answers SELECT mm.decline($m, $pl);"
						elif [ $(((pl + m) % 11)) = 0 ]; then
							:
						else
							answers="$answers SELECT mm.accept($m, $pl) FROM mm.match_players(ARRAY[$m]::bigint[]) WHERE status = 'proposed' LIMIT 1;"
						fi
					done
				done
				send "$answers"
				;;
			*'"matches"'*)
				send "BEGIN; SELECT 'claimed', match_id FROM mm.claim_matches('s') GROUP BY match_id; COMMIT;"
				grep '^claimed|' "$work/out" | cut -d'|' -f2 | sort -un >"$work/claimed"
				# the game is played: every match claimed is reported but every
				# third, which the backend still holds when it crashes
				for m in $(cat "$work/claimed"); do
					grep -qx "$m" "$work/reported" "$work/held" && continue
					n_claimed=$((n_claimed + 1))
					if [ $((n_claimed % 3)) = 0 ]; then
						echo "$m" >>"$work/held"
						continue
					fi
					send "SELECT count(*) FROM mm.report_result($m, '{\"teams\": {\"red\": {\"rank\": 1}, \"blue\": {\"rank\": 2}}}');"
					echo "$m" >>"$work/reported"
				done
				;;
			*'"dissolved"'*)
				reason=$(echo "$p" | sed 's/.*"reason": "\([a-z_]*\)".*/\1/')
				for m in ${ids//,/ }; do echo "$m $reason" >>"$work/dissolved"; done
				# which rosters went back to the queue, and which were removed
				send "SELECT 'gone', match_id, roster_id, requeued FROM mm.match_players(ARRAY[$ids]::bigint[]);"
				;;
			esac
		done <<<"$payloads"
	done
	sleep 2.1 # the silent players' ready checks end; the next tick dissolves them
done
# the backend crashes
exec 3>&-
wait "$backend"
grep -v '^$' "$work/err" | grep -v 'NOTICE' | head -5 | sed 's/^/# backend: /'

# every match was proposed on the channel, and its players known from mm.match_players
made=$(psql_q -c "SELECT count(*) FROM mm.match")
proposed=$(sed -n 's/^Asynchronous notification "'"$channel"'" with payload "\(.*\)" received.*$/\1/p' "$work/out" |
	grep '"proposed"' | sed 's/.*\[\(.*\)\].*/\1/' | tr ',' '\n' | tr -d ' ' | grep . | sort -n | tr '\n' ' ')
all=$(psql_q -c "SELECT match_id FROM mm.match ORDER BY 1" | tr '\n' ' ')
truth=$(psql_q -c "SELECT 'who|' || e.match_id || '|' || string_agg(e.player_id::text, ',' ORDER BY e.roster_id, e.player_id)
                   FROM mm.ticket_event e WHERE e.status = 'proposed' GROUP BY e.match_id ORDER BY 1" | sort)
known=$(sort "$work/known" | awk -F'|' '{ n = split($3, a, ","); printf "%s|%s|", $1, $2; for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), a[i]; print "" }')
# compare players as sets per match
norm() { awk -F'|' '{ n = split($3, a, ","); asort_s = ""; for (i = 1; i <= n; i++) b[i] = a[i] + 0; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t } for (i = 1; i <= n; i++) asort_s = asort_s (i > 1 ? "," : "") b[i]; print $2 "|" asort_s; delete b }' | sort; }
if [ "$made" -ge 10 ] && [ "$proposed" = "$all" ] && [ "$(echo "$known" | norm)" = "$(echo "$truth" | norm)" ]; then
	ok "every one of the $made matches was announced under \"proposed\" and the backend knew its players from mm.match_players"
else
	notok "every match announced under \"proposed\" with its players known from mm.match_players ($made matches)"
	echo "# proposed: $proposed"
	echo "# all:      $all"
	diff <(echo "$known" | norm) <(echo "$truth" | norm) | head -5 | sed 's/^/# /'
fi

# every dissolved match announced once, with its reason
want=$(psql_q -c "SELECT DISTINCT m.match_id || ' ' || e.reason FROM mm.match m
                  JOIN mm.ticket_event e ON e.match_id = m.match_id AND e.status IN ('waiting', 'removed')
                  WHERE m.status = 'dissolved' ORDER BY 1")
got=$(sort "$work/dissolved")
reasons=$(echo "$want" | awk '{ print $2 }' | sort | uniq -c | awk '{ printf "%s %s; ", $1, $2 }')
gone=$(grep '^gone|' "$work/out" | sort -u)
gone_truth=$(psql_q -c "SELECT 'gone|' || e.match_id || '|' || e.roster_id || '|' || CASE WHEN bool_and(e.status = 'waiting') THEN 't' ELSE 'f' END
                        FROM mm.ticket_event e JOIN mm.match m USING (match_id)
                        WHERE m.status = 'dissolved' AND e.status IN ('waiting', 'removed')
                        GROUP BY e.match_id, e.roster_id" | sort)
if [ -n "$want" ] && [ "$got" = "$(echo "$want" | sort)" ] && echo "$got" | grep -q ' declined$' &&
	echo "$got" | grep -q ' accept_timeout$' && [ "$gone" = "$gone_truth" ]; then
	ok "every dissolved match was announced once under \"dissolved\" with its reason ($reasons), and mm.match_players told which rosters went back to the queue"
else
	notok "every dissolved match announced with its reason"
	diff <(echo "$got") <(echo "$want" | sort) | head -5 | sed 's/^/# /'
fi

# after the crash: open_matches is exactly claimed minus reported, with its rosters
open=$(as_backend -c "SELECT DISTINCT match_id FROM mm.open_matches('s') ORDER BY 1" | tr '\n' ' ')
expect=$(comm -23 <(sort "$work/claimed") <(sort "$work/reported") | sort -n | tr '\n' ' ')
rosters=$(as_backend -c "SELECT count(*) FROM mm.open_matches('s') o JOIN mm.match_players(ARRAY(SELECT DISTINCT match_id FROM mm.open_matches('s'))) p USING (match_id, roster_id) WHERE o.players = p.players AND o.team = p.team")
want_rosters=$(psql_q -c "SELECT count(*) FROM mm.match_roster mr JOIN mm.match m USING (match_id) WHERE m.status = 'matched' AND m.delivered_at IS NOT NULL")
if [ -n "$expect" ] && [ "$open" = "$expect" ] && [ "$rosters" = "$want_rosters" ]; then
	ok "after the crash mm.open_matches lists exactly the $(echo "$expect" | wc -w) claimed, unreported matches with their $rosters rosters"
else
	notok "mm.open_matches lists exactly the claimed, unreported matches (got: $open; want: $expect; rosters $rosters of $want_rosters)"
fi

# the service role sees the queue's figures and wait estimates
stats=$(as_backend -c "SELECT matches_last_hour || ' ' || dissolved_last_hour FROM mm.queue_stats WHERE queue = 's'")
want_stats=$(psql_q -c "SELECT count(*) FILTER (WHERE status IN ('matched', 'finished')) || ' ' || count(*) FILTER (WHERE status = 'dissolved') FROM mm.match")
est=$(as_backend -c "SELECT mm.estimate_wait('s', 1500) IS NOT NULL, mm.estimate_wait('s', 1530, 2) IS NOT NULL")
if [ "$stats" = "$want_stats" ] && [ "$est" = "t|t" ]; then
	ok "the service role reads queue_stats (played, dissolved: $stats) and estimates waits"
else
	notok "the service role reads queue_stats ($stats, want $want_stats) and estimates waits ($est)"
fi

psql -X -q -d postgres -c "DROP DATABASE $db" -c "DROP ROLE $role" >/dev/null
[ -n "$created" ] && psql -X -q -d postgres -c "DROP ROLE $created" >/dev/null
rm -rf "$work"
exit $fail
