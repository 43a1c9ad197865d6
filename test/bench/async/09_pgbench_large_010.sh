# the same pgbench on mm 0.1.0 (bucket counter rows kept by triggers), fsync on (tps in out/async_large.txt)
bash "$(dirname "${BASH_SOURCE[0]}")/large.sh" 0.1.0
