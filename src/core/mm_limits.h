/*-------------------------------------------------------------------------
 *
 * mm_limits.h
 *		The limits of every list mm accepts (docs/operations.md, "Limits"),
 *		in one place. Each is checked where the list is given (a config
 *		stored, a roster queued, a call made), with SQLSTATE 54000
 *		(program_limit_exceeded) naming the list and its limit, so that no
 *		later tick, report or read can grow with a list nobody bounded: a
 *		tick's memory is the queue's rosters times these.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_LIMITS_H
#define MM_LIMITS_H

#include "mm.h"

/* Players per team (the queue config's team_size), so per roster: 1000. */
#define MM_TEAM_SIZE_MAX			1000

/* Rules a queue config holds ("rules"). */
#define MM_RULES_MAX				32

/* Expansion steps of one rule ("expand"). */
#define MM_EXPAND_STEPS_MAX			32

/* Attributes a queue config declares ("attributes"). */
#define MM_ATTRIBUTES_MAX			32

/* Roles a queue config declares ("roles"). */
#define MM_ROLES_MAX				32

/* Regions a roster gives a latency to ("latencies" of mm.enqueue). */
#define MM_ROSTER_REGIONS_MAX		64

/* Values of one set attribute of a roster (an intersect rule's languages). */
#define MM_SET_VALUES_MAX			64

/*
 * Ids in one call that takes a list of them (mm.match_players,
 * mm.dishonor_statuses, mm.rank_servers' preferred players, an async
 * search's excluded players).
 */
#define MM_CALL_IDS_MAX				10000

/* Hard labels of an async pool's entry or search. */
#define MM_LABELS_MAX				64

/*
 * Refuse a list of n elements over its limit: SQLSTATE 54000, "what" naming
 * the list ("queue config key \"rules\"").
 */
extern void mm_check_list_length(const char *what, int64 n, int64 max);

#endif							/* MM_LIMITS_H */
