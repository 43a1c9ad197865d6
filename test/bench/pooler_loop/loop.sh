# One run of the service loop (test/pooler/loop.py, bench mode): 16 backends,
# 6 players each, polling the event feed (max_wait 0, 50 ms sleeps in the
# client: a waiting reader would hold one of the pool's 4 connections), a
# tick every 20 ms, until 400 matches were reported. A fresh queue per run.
# $1: direct or pooled. Writes the run's figures to $MM_ROOT/test/bench/out.
set -euo pipefail
how=$1
db=$PGDATABASE
psql -X -q -d "$db" -c "SELECT mm.drop_queue(name, false) FROM mm.queue WHERE name = 'loop' AND dropped_at IS NULL" \
	-c "SELECT mm.create_queue('loop', '{\"team_size\": 1, \"filter\": {\"potentials_min\": 1}, \"accept_timeout\": 30}')" >/dev/null
if [ "$how" = pooled ]; then
	eval "$(bash "$MM_ROOT/test/pgbouncer.sh" env bench)"
	export PGHOST PGPORT
fi
PGDATABASE=$db /usr/bin/python3 "$MM_ROOT/test/pooler/loop.py" bench --queue loop --clients 16 --players 6 \
	--seconds 120 --target-matches 400 --max-wait-ms 0 --client-sleep 0.05 --tick-interval 0.02 \
	--drain-seconds 30 >>"$MM_ROOT/test/bench/out/pooler_loop.$how.json"
