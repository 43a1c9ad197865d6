# pgbench, 2 clients, 5 s, fsync on: find_opponent then put on full buckets of 1000 (tps in out/async_capped.txt)
bash "$(dirname "${BASH_SOURCE[0]}")/capped.sh"
