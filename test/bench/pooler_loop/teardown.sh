# stop pgbouncer; print each run's matches per second and the pooled / direct ratio
bash "$MM_ROOT/test/pgbouncer.sh" stop bench
out=$MM_ROOT/test/bench/out
rate() { /usr/bin/python3 -c 'import json, statistics, sys; r = [json.loads(l)["matches_per_s"] for l in open(sys.argv[1]) if l.strip()]; print("%.1f" % statistics.median(r))' "$1"; }
d=$(rate "$out/pooler_loop.direct.json")
p=$(rate "$out/pooler_loop.pooled.json")
echo "pooler_loop: matches/s direct $d, pooled $p, pooled/direct $(awk -v a="$p" -v b="$d" 'BEGIN {printf "%.2f", a / b}')" | tee "$out/pooler_loop.txt"
