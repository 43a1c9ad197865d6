#!/usr/bin/env bash
# make demo: set up a cluster, create database mm_demo with the extension,
# run test/demo/*.sql in name order (each a part of the tour), and leave the
# cluster running for the reader to explore.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}

bash test/cluster.sh deps
echo "== build and install"
bash test/cluster.sh build
echo "== start the demo cluster"
bash test/cluster.sh start demo
eval "$(bash test/cluster.sh env demo)"
export PGHOST PGPORT PGUSER

psql -X -q -d postgres -c "CREATE DATABASE mm_demo"
psql -X -q -d mm_demo -c "CREATE EXTENSION mm"

# The command that stops this cluster: the same PG_CONFIG, MM_PORT and
# MM_TMPDIR.
stop="make stop"
if [ -n "${MM_PORT:-}" ]; then
	stop="$stop MM_PORT=$MM_PORT"
fi
if [ -n "${MM_TMPDIR:-}" ]; then
	stop="$stop MM_TMPDIR=$MM_TMPDIR"
fi
if [ "$PG_CONFIG" != /usr/lib/postgresql/15/bin/pg_config ]; then
	stop="$stop PG_CONFIG=$PG_CONFIG"
fi

for part in test/demo/*.sql; do
	[ -e "$part" ] || continue
	echo
	echo "=================================================================="
	echo "== $(sed -n '1s/^-- *//p' "$part")"
	echo "=================================================================="
	psql -X -d mm_demo -v ON_ERROR_STOP=1 -e --pset=footer=off -f "$part"
done

echo
echo "== plots"
bash test/plots.sh analytics test/demo/out mm_demo

cat <<MSG

PNG plots of a simulated season (rating convergence, reliability, beta fit)
and of the demo queue's wait times are in $here/test/demo/out/.

The demo cluster is still running. Connect with:

    psql -h $PGHOST -p $PGPORT -U $PGUSER mm_demo

Stop it with:

    $stop
MSG
