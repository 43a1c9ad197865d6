# Runs before anything else: without Citus installed in the PostgreSQL that
# PG_CONFIG names (docs/scaling.md says how to install it) the benchmark is
# skipped, and this says why.
bash "$MM_ROOT/test/citus/cluster.sh" available
