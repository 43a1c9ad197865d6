/*-------------------------------------------------------------------------
 *
 * pg_compat.h
 *		Differences between the PostgreSQL major versions mm builds against.
 *
 * mm is one source for PostgreSQL 15, 16, 17 and 18 (README.md,
 * Requirements). Every difference of the server's C interface between those
 * versions is handled here, behind a PG_VERSION_NUM guard, so that the rest
 * of the code is written against one interface: the newest one's names,
 * defined here for the older versions. A file needing one includes mm.h,
 * which includes this header.
 *
 * The guards name the version that changed the interface and what changed,
 * so that each can be removed when mm stops supporting the versions before it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_PG_COMPAT_H
#define MM_PG_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000
#error "mm needs PostgreSQL 15 or later"
#endif

/*
 * PostgreSQL 18 replaced the postfix attribute pg_attribute_noreturn() with
 * the prefix specifier pg_noreturn (C11's _Noreturn where the compiler has
 * it) and removed the old macro. Before 18, GCC's and Clang's
 * __attribute__((noreturn)) is accepted before the declaration too, and
 * MSVC's form of pg_attribute_noreturn() is empty, so the old macro serves
 * as the prefix.
 */
#if PG_VERSION_NUM < 180000
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * PostgreSQL 18 gave index_beginscan an argument for the scan's
 * instrumentation (EXPLAIN ANALYZE's index searches), between the snapshot
 * and the key counts; NULL when nobody counts. mm's direct index scans
 * (the async pools) are never instrumented.
 */
#if PG_VERSION_NUM >= 180000
#define mm_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan(heap, index, snapshot, NULL, nkeys, norderbys)
#else
#define mm_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan(heap, index, snapshot, nkeys, norderbys)
#endif

/*
 * PostgreSQL 18 lets a library name itself and its version in its magic
 * block (PG_MODULE_MAGIC_EXT), shown by pg_get_loaded_modules(); before 18
 * the block holds the ABI fields only. mm.c writes MM_MODULE_MAGIC once.
 */
#if PG_VERSION_NUM >= 180000
#define MM_MODULE_MAGIC PG_MODULE_MAGIC_EXT(.name = "mm", .version = MM_VERSION)
#else
#define MM_MODULE_MAGIC PG_MODULE_MAGIC
#endif

/*
 * 17 moved a backend's local transaction id into its virtual transaction
 * id (PGPROC.vxid.lxid; PGPROC.lxid before).
 */
#if PG_VERSION_NUM >= 170000
#define MM_MY_LXID (MyProc->vxid.lxid)
#else
#define MM_MY_LXID (MyProc->lxid)
#endif

#endif							/* MM_PG_COMPAT_H */
