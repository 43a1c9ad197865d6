# drop the database large.sh keeps between runs
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS bench_async_large"
