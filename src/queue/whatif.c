/*-------------------------------------------------------------------------
 *
 * whatif.c
 *		The what-if replay: a queue's recorded arrivals (whatif_record.c)
 *		replayed through the matcher (mm_matcher_run, matcher.h) at the
 *		queue's tick times, in memory.
 *
 * The replay keeps the queue as a tick finds it: the rosters waiting, in
 * queue order. Before each tick at time t
 *	- the rosters that arrived by t join the queue at the place they
 *	  arrived with (their position then); one that arrived before the
 *	  window joins only if the live queue still held it when the window
 *	  began; a player who arrives again takes its older roster out (it left);
 *	- a roster that left by t (as the ticket history recorded: all its
 *	  players left or were removed while it waited), or that a live backfill
 *	  took, leaves if it is still waiting (one in a ready check leaves when
 *	  the ready check gives it back);
 *	- the ready checks that ended by t dissolve: rosters with a player who
 *	  did not accept are removed, the others go back to their old places.
 * Then, as a tick: the rosters past the replayed config's ticket_ttl
 * expire, the matcher runs over the queue (each roster's wait is t less its
 * joined_at), its matches leave the queue and its failed targets go to the
 * back in the order they failed (after every roster that arrived by t).
 * With a ready check (the replayed config's accept_timeout), a match is
 * proposed: if the live queue proposed a match of exactly these rosters, its
 * recorded outcome is replayed (accepted; or dissolved at the time it
 * dissolved, with the rosters it removed); otherwise each player accepts
 * with the accept rate (recorded, or given), drawn in a seeded sequence in
 * the order of the matches and their rosters and players, and a match that
 * not all accepted dissolves at the first tick from the end of its ready
 * check. With the queue's own config and no ready check, the replay makes
 * the live ticks' matches (docs/whatif.md says when it cannot).
 *
 *-------------------------------------------------------------------------
 */
#include "whatif.h"

#include <math.h>

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

/* A timed event of the replay: a roster's exit, or a ready check's end. */
typedef struct Event
{
	TimestampTz at;
	int64		order;			/* ties in the order pushed */
	WhatifRoster *roster;		/* an exit */
	int			proposal;		/* a ready check's end; -1: an exit */
} Event;

/* A match in its ready check that will dissolve. */
typedef struct Proposal
{
	int			n;
	WhatifRoster **members;
	bool	   *removed;		/* per member: a player did not accept */
	bool		open;			/* not dissolved yet */
} Proposal;

/* A player's waiting roster. */
typedef struct PlayerEntry
{
	int64		player;
	WhatifRoster *roster;
} PlayerEntry;

typedef struct Replay
{
	WhatifRecord *rec;
	WhatifResult *res;
	const MmMatcherConfig *cfg;
	/* the queue, in queue order (rosters no longer waiting are dropped at each tick) */
	WhatifRoster **q;
	int			nq;
	int			qcap;
	/* timed events, a binary heap by (at, order) */
	Event	   *ev;
	int			nev;
	int			evcap;
	int64		evorder;
	Proposal   *props;
	int			nprops;
	int			propcap;
	HTAB	   *players;
	/* arrivals read, not yet in the queue */
	WhatifRoster **batch;
	int			nbatch;
	int			ibatch;
	bool		arrivals_done;
	int64		last_key;		/* the last place of any arrival so far */
	int64		requeued;		/* failed targets moved to the back so far */
	pg_prng_state prng;
	MemoryContext tick;
} Replay;

/* Events */

static bool
event_before(const Event *a, const Event *b)
{
	return a->at < b->at || (a->at == b->at && a->order < b->order);
}

static void
event_push(Replay *rp, TimestampTz at, WhatifRoster *w, int proposal)
{
	int			i;

	if (rp->nev == rp->evcap)
	{
		rp->evcap = rp->evcap ? rp->evcap * 2 : 256;
		rp->ev = rp->ev ? repalloc_huge(rp->ev, sizeof(Event) * rp->evcap)
			: MemoryContextAlloc(rp->rec->keep, sizeof(Event) * rp->evcap);
	}
	i = rp->nev++;
	rp->ev[i].at = at;
	rp->ev[i].order = rp->evorder++;
	rp->ev[i].roster = w;
	rp->ev[i].proposal = proposal;
	if (w != NULL)
		w->refs++;
	while (i > 0 && event_before(&rp->ev[i], &rp->ev[(i - 1) / 2]))
	{
		Event		t = rp->ev[i];

		rp->ev[i] = rp->ev[(i - 1) / 2];
		rp->ev[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static Event
event_pop(Replay *rp)
{
	Event		top = rp->ev[0];
	int			i = 0;

	rp->ev[0] = rp->ev[--rp->nev];
	for (;;)
	{
		int			l = 2 * i + 1,
					m = i;
		Event		t;

		if (l < rp->nev && event_before(&rp->ev[l], &rp->ev[m]))
			m = l;
		if (l + 1 < rp->nev && event_before(&rp->ev[l + 1], &rp->ev[m]))
			m = l + 1;
		if (m == i)
			break;
		t = rp->ev[i];
		rp->ev[i] = rp->ev[m];
		rp->ev[m] = t;
		i = m;
	}
	return top;
}

/* Rosters */

static inline bool
resolved(const WhatifRoster *w)
{
	return w->state >= WI_MATCHED;
}

/* Let go of a roster; the last hold on a resolved one frees it. */
static inline void
unref(WhatifRoster *w)
{
	if (--w->refs == 0 && resolved(w))
		pfree(w);
}

/* Record what became of a roster (a final state), for the figures. */
static void
outcome(Replay *rp, WhatifRoster *w, int state, double wait, double latency, int match)
{
	WhatifResult *res = rp->res;
	WhatifOutcome *o;

	if (res->noutcomes == res->cap)
	{
		res->cap = res->cap ? res->cap * 2 : 4096;
		res->outcomes = res->outcomes ? repalloc_huge(res->outcomes, sizeof(WhatifOutcome) * res->cap)
			: MemoryContextAllocHuge(rp->rec->keep, sizeof(WhatifOutcome) * res->cap);
	}
	o = &res->outcomes[res->noutcomes++];
	o->rating = w->r.rating;
	o->wait = wait;
	o->latency = latency;
	o->match = match;
	o->players = (int16) Min(w->nplayers, PG_INT16_MAX);
	o->state = (int8) state;
	o->region = w->region;
	o->mode = w->mode;
	w->state = state;
	/* its players are free */
	for (int k = 0; k < w->nplayers; k++)
	{
		PlayerEntry *e = hash_search(rp->players, &w->players[k], HASH_FIND, NULL);

		if (e != NULL && e->roster == w)
			(void) hash_search(rp->players, &w->players[k], HASH_REMOVE, NULL);
	}
}

static bool
key_before(const WhatifRoster *a, const WhatifRoster *b)
{
	return a->key < b->key || (a->key == b->key && a->sub < b->sub);
}

/* Put a waiting roster in its place in the queue. */
static void
queue_insert(Replay *rp, WhatifRoster *w)
{
	int			lo = 0,
				hi = rp->nq;

	if (rp->nq == rp->qcap)
	{
		rp->qcap = rp->qcap ? rp->qcap * 2 : 1024;
		rp->q = rp->q ? repalloc_huge(rp->q, sizeof(WhatifRoster *) * rp->qcap)
			: MemoryContextAllocHuge(rp->rec->keep, sizeof(WhatifRoster *) * rp->qcap);
	}
	if (rp->nq == 0 || key_before(rp->q[rp->nq - 1], w))
		lo = rp->nq;
	else
		while (lo < hi)
		{
			int			mid = lo + (hi - lo) / 2;

			if (key_before(rp->q[mid], w))
				lo = mid + 1;
			else
				hi = mid;
		}
	memmove(&rp->q[lo + 1], &rp->q[lo], sizeof(WhatifRoster *) * (rp->nq - lo));
	rp->q[lo] = w;
	rp->nq++;
	w->refs++;
	w->state = WI_WAITING;
}

/* A roster joins the queue when it arrives. */
static void
admit(Replay *rp, WhatifRoster *w)
{
	TimestampTz exit = Min(w->exit_at, w->backfill_at);

	/* a player queued again: its older roster, still waiting here, left */
	for (int k = 0; k < w->nplayers; k++)
	{
		bool		found;
		PlayerEntry *e = hash_search(rp->players, &w->players[k], HASH_ENTER, &found);

		if (found && e->roster != w)
		{
			WhatifRoster *old = e->roster;

			if (old->state == WI_WAITING)
				outcome(rp, old, WI_LEFT, 0, NAN, -1);
			else if (old->state == WI_PROPOSED)
				old->exit_pending = true;
			e = hash_search(rp->players, &w->players[k], HASH_ENTER, &found);
		}
		e->roster = w;
	}
	queue_insert(rp, w);
	rp->last_key = Max(rp->last_key, w->key);
	if (exit != DT_NOEND)
		event_push(rp, exit, w, -1);
}

/* The arrivals up to "t" (inclusive) join the queue. */
static void
admit_until(Replay *rp, TimestampTz t)
{
	for (;;)
	{
		WhatifRoster *w;

		if (rp->ibatch == rp->nbatch)
		{
			if (rp->arrivals_done)
				return;
			rp->nbatch = mm_whatif_arrivals(rp->rec, &rp->batch);
			rp->ibatch = 0;
			if (rp->nbatch == 0)
			{
				rp->arrivals_done = true;
				return;
			}
		}
		w = rp->batch[rp->ibatch];
		if (w != NULL && w->arrived_at > t)
			return;
		rp->ibatch++;
		if (w != NULL)
			admit(rp, w);
	}
}

/* A roster's exit, at its time: it leaves if still waiting. */
static void
exit_roster(Replay *rp, WhatifRoster *w)
{
	int			state = w->backfill_at <= w->exit_at ? WI_BACKFILLED : WI_LEFT;

	if (w->state == WI_WAITING)
		outcome(rp, w, state, 0, NAN, -1);
	else if (w->state == WI_PROPOSED)
		w->exit_pending = true;
}

/* A ready check that ends without every player's accept dissolves. */
static void
dissolve(Replay *rp, int p)
{
	Proposal   *pr = &rp->props[p];

	pr->open = false;
	for (int k = 0; k < pr->n; k++)
	{
		WhatifRoster *w = pr->members[k];

		if (pr->removed[k])
			outcome(rp, w, WI_DODGED, 0, NAN, -1);
		else if (w->exit_pending)
			outcome(rp, w, w->backfill_at <= w->exit_at ? WI_BACKFILLED : WI_LEFT, 0, NAN, -1);
		else
			queue_insert(rp, w);
		unref(w);
	}
}

/* The exits and ready checks that ended by "t", in time order. */
static void
events_until(Replay *rp, TimestampTz t)
{
	while (rp->nev > 0 && rp->ev[0].at <= t)
	{
		Event		e = event_pop(rp);

		if (e.proposal >= 0)
			dissolve(rp, e.proposal);
		else
		{
			exit_roster(rp, e.roster);
			unref(e.roster);
		}
	}
}

/* Matches */

static int
cmp_int64(const void *a, const void *b)
{
	return mm_cmp_int64(a, b);
}

/* One row of mm.whatif_matches per roster of a match. */
static void
match_rows(Replay *rp, TimestampTz t, const MmMatch *mt, const MmRoster *arr, WhatifRoster **idx,
		   int no, const char *status, int64 live_id)
{
	WhatifResult *res = rp->res;

	if (res->rows == NULL)
		return;
	for (int k = 0; k < mt->nmembers; k++)
	{
		const MmRoster *x = &arr[mt->members[k]];
		Datum		values[7];
		bool		nulls[7] = {false, false, false, false, false, false, live_id <= 0};
		Interval   *waited = palloc0(sizeof(Interval));

		values[0] = TimestampTzGetDatum(t);
		values[1] = Int32GetDatum(no);
		values[2] = Int64GetDatum(x->id);
		values[3] = CStringGetTextDatum(rp->cfg->team_names[x->team]);
		waited->time = Max(0, t - idx[mt->members[k]]->joined_at);
		values[4] = IntervalPGetDatum(waited);
		values[5] = CStringGetTextDatum(status);
		values[6] = Int64GetDatum(live_id);
		tuplestore_putvalues(res->rows, res->rows_desc, values, nulls);
	}
}

/*
 * A match the matcher made at t: matched, or with a ready check proposed,
 * its outcome as recorded for the same rosters or drawn.
 */
static void
take_match(Replay *rp, TimestampTz t, const MmMatch *mt, MmRoster *arr, WhatifRoster **idx)
{
	const MmMatcherConfig *cfg = rp->cfg;
	WhatifRecord *rec = rp->rec;
	WhatifResult *res = rp->res;
	int64	   *ids = palloc(sizeof(int64) * mt->nmembers);
	int			live;
	bool		accepted = true;
	bool	   *removed = NULL;
	TimestampTz ends = 0;
	double	   *odds = palloc(sizeof(double) * cfg->nteams);
	double		fav = 0;
	int			no = ++res->proposals;

	for (int k = 0; k < mt->nmembers; k++)
		ids[k] = arr[mt->members[k]].id;
	qsort(ids, mt->nmembers, sizeof(int64), cmp_int64);
	live = mm_whatif_live_find(rec, ids, mt->nmembers, true);
	if (live >= 0)
		rec->live[live].used = true;
	if (cfg->queue.accept_timeout_s > 0)
	{
		removed = MemoryContextAllocZero(rec->keep, sizeof(bool) * mt->nmembers);
		if (live >= 0 && rec->live[live].ready)
		{
			const WhatifLive *l = &rec->live[live];

			/* as recorded */
			accepted = l->accepted;
			ends = Max(l->dissolved_at, t);
			for (int k = 0; k < mt->nmembers && !accepted; k++)
			{
				int64		id = arr[mt->members[k]].id;

				removed[k] = bsearch(&id, l->removed, l->nremoved, sizeof(int64), cmp_int64) != NULL;
			}
		}
		else
		{
			/* drawn: each player in turn, at the accept rate */
			for (int k = 0; k < mt->nmembers; k++)
				for (int p = 0; p < idx[mt->members[k]]->nplayers; p++)
					if (pg_prng_double(&rp->prng) >= rec->accept_rate)
					{
						removed[k] = true;
						accepted = false;
					}
			ends = t + (TimestampTz) (cfg->queue.accept_timeout_s * USECS_PER_SEC);
		}
	}
	match_rows(rp, t, mt, arr, idx, no, accepted ? "matched" : "dissolved",
			   live >= 0 ? rec->live[live].match_id : 0);
	if (!accepted)
	{
		Proposal   *pr;

		if (rp->nprops == rp->propcap)
		{
			rp->propcap = rp->propcap ? rp->propcap * 2 : 64;
			rp->props = rp->props ? repalloc(rp->props, sizeof(Proposal) * rp->propcap)
				: MemoryContextAlloc(rec->keep, sizeof(Proposal) * rp->propcap);
		}
		pr = &rp->props[rp->nprops];
		pr->n = mt->nmembers;
		pr->members = MemoryContextAlloc(rec->keep, sizeof(WhatifRoster *) * mt->nmembers);
		pr->removed = removed;
		pr->open = true;
		for (int k = 0; k < mt->nmembers; k++)
		{
			pr->members[k] = idx[mt->members[k]];
			pr->members[k]->state = WI_PROPOSED;
			pr->members[k]->refs++;
		}
		event_push(rp, ends, NULL, rp->nprops++);
		return;
	}
	if (removed != NULL)
		pfree(removed);
	mm_matcher_odds(mt, arr, cfg, rec->odds_scale, odds);
	for (int s = 0; s < cfg->nteams; s++)
		fav = Max(fav, odds[s]);
	if (res->nmatches == res->match_cap)
	{
		res->match_cap = res->match_cap ? res->match_cap * 2 : 4096;
		res->favourite = res->favourite ? repalloc_huge(res->favourite, sizeof(double) * res->match_cap)
			: MemoryContextAllocHuge(rec->keep, sizeof(double) * res->match_cap);
	}
	res->favourite[res->nmatches] = fav;
	for (int k = 0; k < mt->nmembers; k++)
	{
		const MmRoster *x = &arr[mt->members[k]];
		WhatifRoster *w = idx[mt->members[k]];
		double		lat = NAN;

		/* the roster's latency to the match's region, if it gave one */
		if (mt->region >= 0 && x->lat != NULL)
			for (int j = 0; j < x->nlat; j++)
				if (x->lat_region[j] == mt->region && isfinite(x->lat[j]))
					lat = x->lat[j];
		outcome(rp, w, WI_MATCHED, Max(0, t - w->joined_at) / 1e6, lat, res->nmatches);
	}
	res->nmatches++;
}

/* One tick at t. */
static void
tick(Replay *rp, TimestampTz t)
{
	const MmMatcherConfig *cfg = rp->cfg;
	MemoryContext old = MemoryContextSwitchTo(rp->tick);
	MmRoster   *arr = palloc(sizeof(MmRoster) * Max(rp->nq, 1));
	WhatifRoster **idx = palloc(sizeof(WhatifRoster *) * Max(rp->nq, 1));
	TimestampTz ttl_cut = cfg->queue.ticket_ttl_s > 0 ?
		t - (TimestampTz) (cfg->queue.ticket_ttl_s * USECS_PER_SEC) : DT_NOBEGIN;
	int			n = 0;
	MmMatcherResult mres;
	int			nfailed = 0;
	WhatifRoster **failed;

	/* the queue as the tick reads it; past ticket_ttl, expired */
	for (int i = 0; i < rp->nq; i++)
	{
		WhatifRoster *w = rp->q[i];

		if (w->state == WI_WAITING && w->joined_at <= ttl_cut)
			outcome(rp, w, WI_EXPIRED, 0, NAN, -1);
		if (w->state != WI_WAITING)
		{
			unref(w);
			continue;
		}
		arr[n] = w->r;
		arr[n].age = Max(0, t - w->joined_at) / 1e6;
		idx[n++] = w;
	}
	if (n == 0)
	{
		rp->nq = 0;
		MemoryContextSwitchTo(old);
		MemoryContextReset(rp->tick);
		return;
	}
	mm_matcher_run(arr, n, rp->rec->ids.nprof, cfg, &mres);
	for (int m = 0; m < mres.nmatches; m++)
		take_match(rp, t, &mres.matches[m], arr, idx);
	/* the queue again: the rosters still waiting, then the failed targets */
	failed = palloc(sizeof(WhatifRoster *) * Max(mres.nfailed, 1));
	rp->nq = 0;
	for (int i = 0; i < n; i++)
	{
		if (idx[i]->state != WI_WAITING)
		{
			unref(idx[i]);
			continue;
		}
		if (arr[i].state == MM_ROSTER_FAILED)
		{
			failed[arr[i].fail_order] = idx[i];
			nfailed++;
		}
		else
			rp->q[rp->nq++] = idx[i];
	}
	if (nfailed != mres.nfailed)
		elog(ERROR, "whatif: %d failed targets of %d are waiting", nfailed, mres.nfailed);
	for (int k = 0; k < nfailed; k++)
	{
		failed[k]->key = rp->last_key;
		failed[k]->sub = ++rp->requeued;
		rp->q[rp->nq++] = failed[k];
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(rp->tick);
}

void
mm_whatif_replay(WhatifRecord *rec, uint64 seed, const char *label, WhatifResult *res)
{
	Replay		rp;
	HASHCTL		ctl;
	int			notched = 0;
	double		span = (double) (rec->until - rec->since);

	memset(&rp, 0, sizeof(rp));
	rp.rec = rec;
	rp.res = res;
	rp.cfg = &rec->cfg;
	rp.last_key = PG_INT64_MIN;
	rp.tick = AllocSetContextCreate(rec->keep, "mm whatif tick", ALLOCSET_DEFAULT_SIZES);
	pg_prng_seed(&rp.prng, seed);
	ctl.keysize = sizeof(int64);
	ctl.entrysize = sizeof(PlayerEntry);
	ctl.hcxt = rec->keep;
	rp.players = hash_create("mm whatif players", 4096, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);

	for (int k = 0; k < rec->nticks; k++)
	{
		TimestampTz t = rec->every > 0 ? rec->since + k * rec->every : rec->ticks[k];
		int			tenth;

		CHECK_FOR_INTERRUPTS();
		admit_until(&rp, t);
		events_until(&rp, t);
		tick(&rp, t);
		/* a NOTICE every tenth of the window: the simulated time reached */
		tenth = span > 0 ? (int) floor(10.0 * (double) (t - rec->since) / span) : 10;
		if (tenth > notched && tenth < 10)
		{
			notched = tenth;
			ereport(NOTICE,
					(errmsg("whatif %s: %d%%, simulated time %s, matches made: %d", label, tenth * 10,
							timestamptz_to_str(t), res->nmatches)));
		}
	}
	/* the rest of the window: arrivals and exits, no more ticks */
	admit_until(&rp, rec->until - 1);
	events_until(&rp, rec->until - 1);
	for (int i = 0; i < rp.nq; i++)
		if (rp.q[i]->state == WI_WAITING)
			outcome(&rp, rp.q[i], WI_WAITING, 0, NAN, -1);
	for (int p = 0; p < rp.nprops; p++)
		for (int k = 0; k < rp.props[p].n && rp.props[p].open; k++)
			outcome(&rp, rp.props[p].members[k], WI_PROPOSED, 0, NAN, -1);
	ereport(NOTICE,
			(errmsg("whatif %s: 100%%, ticks replayed: %d, matches made: %d", label, rec->nticks, res->nmatches)));
}
