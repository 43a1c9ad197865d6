# the pooled loop needs pgbouncer and Debian's python3-psycopg2 (test/cluster.sh deps)
bash "$MM_ROOT/test/pgbouncer.sh" available || { echo "pgbouncer is not installed"; exit 1; }
/usr/bin/python3 -c 'import psycopg2' 2>/dev/null || { echo "python3-psycopg2 is not installed"; exit 1; }
