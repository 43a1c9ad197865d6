#!/usr/bin/env bash
# The cold_start benchmark: the first 10,000 mm.enqueue calls of a new
# database and a new queue (tables without statistics), then its first 50
# ticks and its first 200 reports, against the same workload on the same
# queue once its tables are in their steady state (ANALYZE), the queue
# emptied first so that it holds as many rosters at every step.
#
# Each run gets its own new database, made here (CREATE EXTENSION mm, one
# queue) so that its making is not timed: the cases run in file order, each
# MM_BENCH_RUNS times, run K of every case on database K; this database
# (PGDATABASE) holds the timings. Autovacuum is off on mm's tables: the cold
# figures are those of the first minutes, before autovacuum first analyzes
# a table (autovacuum_naptime is a minute), whatever the statistics say; the
# steady ones have the statistics of their ANALYZE.
set -euo pipefail
runs=${MM_BENCH_RUNS:-5}

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE timing (workload text, kind text, run int, ms int, cpu_ms int, PRIMARY KEY (workload, kind, run));
CREATE SEQUENCE run_enqueue_cold; CREATE SEQUENCE run_tick_cold; CREATE SEQUENCE run_report_cold;
CREATE SEQUENCE run_enqueue_steady; CREATE SEQUENCE run_tick_steady; CREATE SEQUENCE run_report_steady;
SQL
for k in $(seq "$runs"); do
	db=${PGDATABASE}_$k
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL'
CREATE EXTENSION mm;
DO $$DECLARE t regclass; BEGIN
    FOR t IN SELECT c.oid FROM pg_class c WHERE c.relnamespace = 'mm'::regnamespace AND c.relkind IN ('r', 'p') LOOP
        EXECUTE format('ALTER TABLE %s SET (autovacuum_enabled = false)', t);
    END LOOP;
END$$;
SELECT mm.create_queue('bench');
SQL
done
