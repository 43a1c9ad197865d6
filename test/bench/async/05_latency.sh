# per-call p50/p95 of find_opponent vs the plain query, inside the server (table in out/async_latency.txt)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${MM_ROOT:-$here/../../..}/test/bench/out
mkdir -p "$out"
{
	date -u +%FT%TZ
	psql -X -d "$PGDATABASE" -v ON_ERROR_STOP=1 -f "$here/latency.sql"
} >>"$out/async_latency.txt"
