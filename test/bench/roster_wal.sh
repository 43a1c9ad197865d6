#!/usr/bin/env bash
# WAL per matched roster of a tick's row changes, by storage model: why a
# 20k queue with roster ids in no order writes more per matched roster than
# a 2k queue, and which way of storing matched rosters would not.
#
# Plain tables shaped like mm's (no mm functions), so that each case counts
# the WAL of its data model alone. A queue of N waiting rosters (N = 2,000
# and 20,000), its heap in queue order (as mm.enqueue writes it), each
# roster's id either equal to its place (ids in queue order, as mm.enqueue
# draws them) or a random permutation of the ids (ids in no order, as
# test/bench/matcher/setup.sql draws them). One "tick", after a CHECKPOINT,
# in one committed transaction: 50 matches inserted and 250 rosters matched
# into them, the 50 oldest (the targets) and 200 drawn at random from the
# next 1,050 places (the potentials, from the 1,100 rosters a default tick
# reads), the same places for every model and both sizes. Its WAL is the
# transaction's own records (pg_walinspect, by transaction id), full-page
# images included, divided by 250. The models:
#   in_place     mm's: a matched roster's row gets its match id, team and
#                wait in place; the key (roster_id, queue_id), the waiting
#                rosters' partial indexes (WHERE match_id IS NULL: queue
#                order, time joined, latency limit) and the match index
#                (match_id, WHERE match_id IS NOT NULL); a foreign key to
#                the match. The new row version goes into the key's index
#                (and the match index): with ids in no order, a leaf page
#                anywhere in the key's range, a full-page image for each
#                leaf first touched after a checkpoint;
#   in_place_ff  the same with fillfactor 80 (room for the new versions on
#                their own page: no new heap pages touched; still not HOT);
#   hot_wait     HOT: the roster table has only its key, with fillfactor
#                50; the waiting state lives in a narrow table of its own
#                (queue_id, position, roster_id; its key in queue order)
#                whose rows the tick deletes; a match's rosters are found
#                by the match row (an array), not by an index on the
#                roster's match id; the same foreign key to the match;
#   move         a matched roster leaves the waiting table (deleted) and is
#                inserted into a table of matched rosters keyed by (match_id,
#                roster_id), in match order; nothing enforces that a roster
#                is in one table only;
#   move_unique  the same, with a unique index on the matched rosters'
#                roster_id (what keeps a roster in one match): its leaves
#                are as scattered as the key's of in_place.
# Prints a markdown table: per model and id order, the bytes per matched
# roster at 2k and 20k (full-page images in brackets), their ratio, and how
# many of the 250 updates were HOT.
# Usage: PG_CONFIG=... bash test/bench/roster_wal.sh [PORT]
# PORT defaults to MM_PORT+2 (test/ports.sh). It creates a cluster in
# MM_TMPDIR (default /tmp)/mm-rosterwal-PORT (fsync, full_page_writes on,
# autovacuum off), prints the report and removes the cluster; a minute.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
bindir=$("${PG_CONFIG:?}" --bindir)
. "$here/test/bench/lib.sh"
port=${1:-$(mm_port bench)}
dir=$(mm_tmpdir)/mm-rosterwal-$port

throwaway_cluster "$dir" "$port" <<CONF
fsync = on
synchronous_commit = on
full_page_writes = on
shared_buffers = 256MB
max_wal_size = 4GB
autovacuum = off
CONF
export PGDATABASE=postgres
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q -c "CREATE EXTENSION pg_walinspect"
q >/dev/null <<'SQL'
-- the places matched by the tick: 1..50 and 200 of 51..1100, fixed
CREATE TABLE picked AS
SELECT p, (row_number() OVER (ORDER BY p) - 1) / 5 + 1 AS match_no
FROM (SELECT p FROM generate_series(1, 50) p
      UNION ALL (SELECT p FROM generate_series(51, 1100) p ORDER BY hashint4(p) LIMIT 200)) x;
CREATE FUNCTION make_queue(s text, model text, n int, scattered boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE SCHEMA %I', s);
    EXECUTE format('SET LOCAL search_path = %I, public', s);
    CREATE TABLE match (match_id bigint PRIMARY KEY, queue_id int NOT NULL, created_at timestamptz NOT NULL,
                        prediction float8 NOT NULL, teams text[] NOT NULL, odds float8[] NOT NULL, rosters bigint[]);
    CREATE TABLE roster (roster_id bigint NOT NULL, queue_id int NOT NULL, position bigint NOT NULL,
                         rating float8 NOT NULL, deviation float8 NOT NULL, rank float8 NOT NULL DEFAULT 0,
                         ladder_points float8 NOT NULL DEFAULT 0, dishonor int NOT NULL DEFAULT 0,
                         joined_at timestamptz NOT NULL, attributes jsonb NOT NULL DEFAULT '{}',
                         latencies jsonb NOT NULL DEFAULT '{}', match_id bigint, team text, waited interval,
                         backfill_id bigint, max_latency float8,
                         PRIMARY KEY (roster_id, queue_id));
    IF model IN ('in_place', 'in_place_ff') THEN
        ALTER TABLE roster ADD FOREIGN KEY (match_id) REFERENCES match;
        CREATE INDEX ON roster (queue_id, position) WHERE match_id IS NULL;
        CREATE INDEX ON roster (queue_id, joined_at) WHERE match_id IS NULL;
        CREATE INDEX ON roster (match_id) WHERE match_id IS NOT NULL;
        CREATE INDEX ON roster (queue_id) WHERE match_id IS NULL AND max_latency IS NOT NULL;
        IF model = 'in_place_ff' THEN
            ALTER TABLE roster SET (fillfactor = 80);
        END IF;
    ELSIF model = 'hot_wait' THEN
        ALTER TABLE roster ADD FOREIGN KEY (match_id) REFERENCES match;
        ALTER TABLE roster SET (fillfactor = 50);
        CREATE TABLE waiting (queue_id int NOT NULL, position bigint NOT NULL, roster_id bigint NOT NULL,
                              joined_at timestamptz NOT NULL, PRIMARY KEY (queue_id, position));
        CREATE INDEX ON waiting (queue_id, joined_at);
    ELSE
        -- move, move_unique: roster holds the waiting rosters only
        CREATE INDEX ON roster (queue_id, position);
        CREATE INDEX ON roster (queue_id, joined_at);
        CREATE TABLE matched_roster (match_id bigint NOT NULL REFERENCES match, roster_id bigint NOT NULL,
                                     queue_id int NOT NULL, team text NOT NULL, waited interval NOT NULL,
                                     rating float8 NOT NULL, deviation float8 NOT NULL, joined_at timestamptz NOT NULL,
                                     attributes jsonb NOT NULL, latencies jsonb NOT NULL,
                                     PRIMARY KEY (match_id, roster_id));
        IF model = 'move_unique' THEN
            CREATE UNIQUE INDEX ON matched_roster (roster_id);
        END IF;
    END IF;
    -- the heap in queue order; ids in queue order or a permutation
    INSERT INTO roster (roster_id, queue_id, position, rating, deviation, joined_at)
    SELECT CASE WHEN scattered THEN row_number() OVER (ORDER BY hashint4(i), i) ELSE i END,
           1, i, 1000 + (i * 7919) % 1000, 30 + i % 100, '2026-01-01 00:00+00'::timestamptz + i * interval '10 ms'
    FROM generate_series(1, n) g(i) ORDER BY g.i;
    IF model = 'hot_wait' THEN
        INSERT INTO waiting SELECT 1, position, roster_id, joined_at FROM roster ORDER BY position;
    END IF;
    -- what the tick matched (unlogged: written before the checkpoint, no WAL)
    CREATE UNLOGGED TABLE t AS
    SELECT r.roster_id, r.position, 1000 + p.match_no AS match_id, CASE WHEN p.p % 2 = 0 THEN 'red' ELSE 'blue' END AS team
    FROM picked p JOIN roster r ON r.queue_id = 1 AND r.position = p.p;
    ANALYZE;
END
$$;
-- the tick's writes of each model, in one transaction
CREATE FUNCTION tick(s text, model text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    n int;
BEGIN
    EXECUTE format('SET LOCAL search_path = %I, public', s);
    INSERT INTO match (match_id, queue_id, created_at, prediction, teams, odds, rosters)
    SELECT t.match_id, 1, '2026-01-01 01:00+00', 0.5, '{red,blue}', '{0.5,0.5}',
           CASE WHEN model = 'hot_wait' THEN array_agg(t.roster_id ORDER BY t.roster_id) END
    FROM t GROUP BY t.match_id ORDER BY t.match_id;
    IF model IN ('in_place', 'in_place_ff', 'hot_wait') THEN
        UPDATE roster r SET match_id = t.match_id, team = t.team, waited = '2026-01-01 01:00+00' - r.joined_at
        FROM t WHERE r.queue_id = 1 AND r.roster_id = t.roster_id;
        GET DIAGNOSTICS n = ROW_COUNT;
        IF model = 'hot_wait' THEN
            DELETE FROM waiting w USING t WHERE w.queue_id = 1 AND w.position = t.position;
        END IF;
    ELSE
        WITH d AS (DELETE FROM roster r USING t WHERE r.queue_id = 1 AND r.roster_id = t.roster_id RETURNING r.*)
        INSERT INTO matched_roster (match_id, roster_id, queue_id, team, waited, rating, deviation, joined_at,
                                    attributes, latencies)
        SELECT t.match_id, d.roster_id, 1, t.team, '2026-01-01 01:00+00' - d.joined_at, d.rating, d.deviation,
               d.joined_at, d.attributes, d.latencies
        FROM d JOIN t USING (roster_id) ORDER BY t.match_id, d.roster_id;
        GET DIAGNOSTICS n = ROW_COUNT;
    END IF;
    RETURN n;
END
$$;
SQL

declare -A per fpi hot
models="in_place in_place_ff hot_wait move move_unique"
for model in $models; do
	for ids in ordered scattered; do
		for n in 2000 20000; do
			s=${model}_${ids}_$n
			sc=false; [ "$ids" = scattered ] && sc=true
			q -c "SELECT make_queue('$s', '$model', $n, $sc)" >/dev/null
			q -c "VACUUM"
			read -r bytes fimg rows nhot <<<"$(q -F ' ' <<SQL
CHECKPOINT;
SELECT pg_current_wal_insert_lsn() AS l0 \gset
BEGIN;
SELECT tick('$s', '$model') AS rows \gset
SELECT pg_stat_get_xact_tuples_hot_updated('$s.roster'::regclass) AS nhot \gset
SELECT pg_current_xact_id()::xid AS x \gset
COMMIT;
SELECT pg_current_wal_flush_lsn() AS l1 \gset
SELECT sum(record_length), sum(fpi_length), :rows, :nhot
FROM pg_get_wal_records_info(:'l0', :'l1') WHERE xid = :'x'::xid;
SELECT coalesce(c.relname, w.resource_manager) || ' ' || w.record_type || ': ' || count(*) || ' records, '
       || sum(w.record_length) || ' bytes (' || sum(w.fpi_length) || ' of full-page images)'
FROM pg_get_wal_records_info(:'l0', :'l1') w
LEFT JOIN LATERAL regexp_match(w.block_ref, 'rel [0-9]+/[0-9]+/([0-9]+)') m ON true
LEFT JOIN pg_class c ON c.relfilenode = m[1]::oid
WHERE w.xid = :'x'::xid GROUP BY c.relname, w.resource_manager, w.record_type ORDER BY sum(w.record_length) DESC
\g $dir/detail_$s.txt
SQL
)"
			if [ "$rows" != 250 ]; then
				echo "roster_wal: $s matched $rows rosters, not 250" >&2
				exit 1
			fi
			per[$s]=$((bytes / 250))
			fpi[$s]=$((fimg / 250))
			hot[$s]=$nhot
			q -c "SET client_min_messages = warning" -c "DROP SCHEMA $s CASCADE" >/dev/null
		done
	done
done
rows_of() { sed 's/^/    /' "$dir/detail_$1.txt"; }

echo "Machine: $(nproc) cores; PostgreSQL $(q -c 'SHOW server_version'); fsync $(q -c 'SHOW fsync'), full_page_writes $(q -c 'SHOW full_page_writes'); $(date -u +%Y-%m-%d)."
echo "A tick of 50 matches and 250 rosters after a checkpoint; WAL bytes per matched roster (of which full-page images)."
echo
echo "| model | roster ids | 2k queue | 20k queue | 20k / 2k | HOT updates (2k, 20k) |"
echo "|---|---|---:|---:|---:|---|"
for model in $models; do
	for ids in ordered scattered; do
		a=${model}_${ids}_2000 b=${model}_${ids}_20000
		ratio=$(awk -v a="${per[$a]}" -v b="${per[$b]}" 'BEGIN { printf "%.2f", b / a }')
		case $ids in ordered) what="in queue order" ;; *) what="in no order" ;; esac
		echo "| $model | $what | ${per[$a]} (${fpi[$a]}) | ${per[$b]} (${fpi[$b]}) | ${ratio}× | ${hot[$a]}, ${hot[$b]} |"
	done
done
echo
echo "The tick's WAL by relation and record, in no order, 2k then 20k (pg_walinspect):"
for model in $models; do
	for n in 2000 20000; do
		echo
		echo "$model, $n rosters:"
		rows_of "${model}_scattered_$n"
	done
done
