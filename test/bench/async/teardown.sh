# drop the databases large.sh keeps between runs
for db in bench_async_large bench_async_large_010; do
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db"
done
