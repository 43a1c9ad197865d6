# pgbench, 2 clients, 5 s, fsync on: find_opponent then mm.put_entry on the 1M-entry pool, buckets far from full (tps in out/async_large.txt)
bash "$(dirname "${BASH_SOURCE[0]}")/large.sh" find_put
