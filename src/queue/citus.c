/*-------------------------------------------------------------------------
 *
 * citus.c
 *		What the queue and the results need to know of Citus: whether
 *		mm.citus_distribute_queues has distributed the queue tables
 *		(sql/parts/70_scale_out.sql, docs/scaling.md).
 *
 * On a single node the answer costs one catalog lookup (Citus's metadata
 * table is not there). With Citus it is read from Citus's metadata once
 * per transaction.
 *
 *-------------------------------------------------------------------------
 */
#include "queue.h"
#include "statement.h"

#include "catalog/pg_namespace.h"
#include "executor/spi.h"
#include "storage/proc.h"
#include "utils/lsyscache.h"

static MmStatement distributed_statement = {
	.sql = "SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition "
	"WHERE logicalrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('mm.waiting_player'))"
};

/*
 * True when the queue tables are distributed (Citus's metadata names
 * mm.waiting_player, as mm._queues_distributed says in SQL). The caller is
 * connected to SPI.
 */
bool
mm_queues_distributed(void)
{
	static LocalTransactionId checked_in = InvalidLocalTransactionId;
	static bool distributed = false;
	MmArgs		a;
	bool		isnull;

	if (checked_in == MM_MY_LXID)
		return distributed;
	distributed = false;
	if (OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)))
	{
		mm_args_begin(&a, &distributed_statement);
		mm_run(&a, true, SPI_OK_SELECT);
		distributed = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	checked_in = MM_MY_LXID;
	return distributed;
}
