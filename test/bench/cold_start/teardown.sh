#!/usr/bin/env bash
# The ratios (report.sh) go to test/bench/out/cold_start.txt and to stderr
# (make bench's output); then the cold databases are dropped.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bash "$here/report.sh" | tee "$here/../out/cold_start.txt" >&2
for db in $(psql -X -At -d postgres -c "SELECT datname FROM pg_database WHERE datname ~ ('^' || '$PGDATABASE' || '_[0-9]+\$')"); do
	psql -X -q -d postgres -c "DROP DATABASE $db"
done
