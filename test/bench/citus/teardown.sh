# Stop the Citus cluster that setup.sh started and remove its data (GBs).
bash "$MM_ROOT/test/citus/cluster.sh" clean
