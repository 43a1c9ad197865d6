# pgbouncer in transaction mode in front of the bench cluster, 4 server
# connections (test/pgbouncer.sh; stopped by teardown.sh)
bash "$MM_ROOT/test/pgbouncer.sh" start bench 4
