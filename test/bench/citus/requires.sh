# Runs before anything else: without Citus (installed, or its source in
# ../shared/citus to build from) the benchmark is skipped, and this says why.
bash "$MM_ROOT/test/citus/cluster.sh" available
