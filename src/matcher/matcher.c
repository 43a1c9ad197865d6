/*-------------------------------------------------------------------------
 *
 * matcher.c
 *		The GW2 PvP roster matcher: the Guild Wars 2 wiki's PvP matchmaking page ("PvP Matchmaking Algorithm",
 *		Guild Wars 2 wiki), its pseudo-code createMatches, withdrawRosters,
 *		gatherPotentials, populateMatch, shouldPopulateRed, pickRoster and
 *		scoreRoster, over an in-memory array of rosters in queue order.
 *
 * Readings of the pseudo-code's slips (docs/architecture.md, "How mm reads its sources" and README):
 *	- a roster's rating range is [rating - k deviation - pad, rating +
 *	  k deviation + pad] (k: filter.deviations, the GW2 wiki's 1), pad
 *	  growing by "padding" per second waited after
 *	  padding_start, up to padding_end; its effective rating (ratingLow in
 *	  scoring) is rating - deviation;
 *	- populateMatch adds the chosen roster to the team it was picked for and
 *	  takes it out of the potentials;
 *	- targets are tried in queue order (oldest first); a target already
 *	  matched as another target's potential is skipped; a failed target is
 *	  out of the queue for the rest of the run and goes to the back
 *	  afterwards, the other rosters of a failed attempt keep their places;
 *	- potentials_min holds only until the target has waited padding_end:
 *	  after that any potentials that fill both teams make a match, so a
 *	  small queue never starves (the GW2 value of 20 is a threshold for busy
 *	  queues, not a reason to wait forever);
 *	- team averages (effective rating, rank) are over the team's players;
 *	  an empty team uses the averages of all selected rosters; team
 *	  dishonor is the team's total stacks; when blue is empty it is
 *	  populated first (red holds the target);
 *	- any number of teams ("teams"): shouldPopulateRed becomes the team to
 *	  populate next, the first empty team in team order, else the team of
 *	  lowest average effective rating, a tie to the later team (at two
 *	  teams exactly GW2's rule; team_to_populate).
 *
 * The phases of the GW2 model are matcher_gw2.c, a backfill's search
 * matcher_backfill.c; they share the run's state (matcher_run.h).
 *
 *-------------------------------------------------------------------------
 */
#include "matcher_run.h"
#include "rating_model.h"

#include <math.h>
#include <time.h>

#include "miscadmin.h"

/* Names of MmFailReason, as the tick log and mm._match_rosters show them. */
const char *const mm_fail_reason_names[MM_FAIL_REASONS] = {
	"none", "too_large", "no_potentials", "potentials_min", "incomplete", "rule", "blocks"
};

/* Rating padding after waiting "age" seconds (Filter/Rating). */
double
mm_matcher_padding(const MmMatcherConfig *cfg, double age)
{
	double		t = Min(age, cfg->filter.padding_end) - cfg->filter.padding_start;

	return t > 0 ? t * cfg->filter.padding : 0.0;
}

static const MmRoster *sort_rosters;

/*
 * by_lo: the rosters' indexes by bucket, then bin of lo, then queue order,
 * by one counting pass over (bucket, bin) keys: nbins bins per bucket, about
 * one for every two rosters of a bucket (at least 16, at most 65,536). A
 * band of lo values is then the rosters of the bins it touches, a few more
 * than it holds, which gather_potentials filters exactly. An exact sort by
 * lo (a radix sort of its bits, four passes over the rosters for a queue
 * whose ratings are spread wide) cost two fifths of the tick of a kept
 * input of 100,000 rosters; this is one.
 */
void
mm_matcher_sort(Run *run)
{
	int			n = run->n;
	int64		nkeys;
	int		   *key;
	int		   *fill;

	if (run->sorted)
		return;
	run->nbins = (int) Min(Max((int64) 2 * n / Max(run->nparts, 1), 16), 65536);
	nkeys = (int64) run->nparts * run->nbins;
	run->bin_start = palloc0(sizeof(int) * (nkeys + 1));
	key = palloc(sizeof(int) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		key[i] = run->r[i].part * run->nbins + mm_lo_bin(run, run->r[i].lo, run->nbins);
		run->bin_start[key[i] + 1]++;
	}
	for (int64 k = 0; k < nkeys; k++)
		run->bin_start[k + 1] += run->bin_start[k];
	fill = palloc(sizeof(int) * nkeys);
	memcpy(fill, run->bin_start, sizeof(int) * nkeys);
	for (int i = 0; i < n; i++)
		run->by_lo[fill[key[i]]++] = i;
	pfree(fill);
	pfree(key);
	run->sorted = true;
}

/* Take roster i out of the live queue list. */
void
mm_matcher_queue_remove(Run *run, int i)
{
	if (!run->in_queue[i])
		return;
	run->in_queue[i] = false;
	if (run->prev[i] >= 0)
		run->next[run->prev[i]] = run->next[i];
	else
		run->head[run->r[i].part] = run->next[i];
	if (run->next[i] < run->n)
		run->prev[run->next[i]] = run->prev[i];
	run->live--;
	run->part_live[run->r[i].part]--;
}

/* Whether a rule filters as bits (MmRuleOps.bits). */
static inline bool
rule_has_bits(const MmRule *rule)
{
	return rule->ops->bits != NULL && !rule->kind->partitions && !rule->soft &&
		rule->nsteps + 1 <= MM_FILTER_LEVELS;
}

int
mm_matcher_bits_words(const MmMatcherConfig *cfg)
{
	int			words = 0;

	for (int k = 0; k < cfg->nrules; k++)
		if (rule_has_bits(&cfg->rules[k]))
			words += cfg->rules[k].nsteps + 1;
	return words;
}

bool
mm_matcher_roster_bits(const MmMatcherConfig *cfg, const MmRoster *r, uint64 *bits)
{
	for (int k = 0; k < cfg->nrules; k++)
	{
		const MmRule *rule = &cfg->rules[k];

		if (!rule_has_bits(rule))
			continue;
		if (!rule->ops->bits(rule, r, cfg->nregions, bits))
			return false;
		bits += rule->nsteps + 1;
	}
	return true;
}

/*
 * Each rule that filters as bits: every roster's bits at each level, once
 * per run (a rule whose bits cannot be had filters by admit), unless every
 * roster brings its own (MmRoster.rule_bits).
 */
static void
rules_bits(Run *run)
{
	bool		kept = true;
	int			off = 0;

	for (int i = 0; i < run->n && kept; i++)
		kept = run->r[i].rule_bits != NULL;
	run->bits_kept = kept && run->n > 0 && !run->backfill;
	run->bits_off = palloc0(sizeof(int) * Max(run->nrules, 1));
	for (int k = 0; k < run->nrules; k++)
	{
		const MmRule *rule = &run->rules[k];
		int			levels = rule->nsteps + 1;
		uint64	   *bits;

		run->bits[k] = NULL;
		if (!rule_has_bits(rule))
			continue;
		if (run->bits_kept)
		{
			/* the rosters' own: a marker, rule_bits_of reads them */
			run->bits_off[k] = off;
			off += levels;
			run->bits[k] = (uint64 *) run->bits_off;
			continue;
		}
		bits = palloc(sizeof(uint64) * levels * Max(run->n, 1));
		for (int i = 0; i < run->n; i++)
			if (!rule->ops->bits(rule, &run->r[i], run->cfg->nregions, &bits[i * levels]))
			{
				pfree(bits);
				bits = NULL;
				break;
			}
		run->bits[k] = bits;
	}
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* Record a match made from the current teams. */
static void
record_match(Run *run, MmMatcherResult *res)
{
	MmMatch    *m = &res->matches[res->nmatches];
	double		lo = 0,
				hi = 0;

	m->nmembers = 0;
	for (int side = 0; side < run->nteams; side++)
		m->nmembers += run->team[side].nrosters;
	m->members = palloc(sizeof(int) * m->nmembers);
	m->avg_rank = palloc(sizeof(double) * run->nteams);
	m->avg_rating_low = palloc(sizeof(double) * run->nteams);
	m->max_roster_size = palloc(sizeof(int) * run->nteams);
	m->nmembers = 0;
	for (int side = 0; side < run->nteams; side++)
	{
		Team	   *t = &run->team[side];

		m->avg_rank[side] = t->sum_rank / t->players;
		m->avg_rating_low[side] = t->sum_rating_low / t->players;
		m->max_roster_size[side] = 0;
		for (int k = 0; k < t->nrosters; k++)
		{
			MmRoster   *r = &run->r[t->rosters[k]];

			r->state = MM_ROSTER_MATCHED;
			r->match = res->nmatches;
			r->team = side;
			mm_matcher_queue_remove(run, t->rosters[k]);
			m->max_roster_size[side] = Max(m->max_roster_size[side], r->players);
			if (m->nmembers == 0 || r->rating_low < lo)
				lo = r->rating_low;
			if (m->nmembers == 0 || r->rating_low > hi)
				hi = r->rating_low;
			m->members[m->nmembers++] = t->rosters[k];
		}
	}
	m->rating_spread = hi - lo;
	m->region = -1;
	m->worst_latency = 0;
	if (run->cfg->latency_rule >= 0)
	{
		int			k = run->cfg->latency_rule;

		m->region = mm_rule_region(&run->rstate[k], run->limits[k], run->cfg->nregions,
								   &m->worst_latency);
	}
	res->nmatches++;
}

/*
 * Bucket the rosters by their values of the equal rules: part is the
 * bucket (numbered in sort order, or for one string attribute in order of
 * first appearance). A roster missing one of the values is a
 * bucket of its own (it matches no one). Without equal rules, one bucket.
 */
static const MmMatcherConfig *part_cfg;

static int
cmp_part(const void *a, const void *b)
{
	int			i = *(const int *) a;
	int			j = *(const int *) b;
	const MmRoster *x = &sort_rosters[i];
	const MmRoster *y = &sort_rosters[j];

	for (int k = 0; k < part_cfg->nrules; k++)
	{
		const MmRule *rule = &part_cfg->rules[k];
		const MmAttrValue *u,
				   *v;

		if (!rule->kind->partitions)
			continue;
		u = &x->attr[rule->attr];
		v = &y->attr[rule->attr];
		if (!u->present || !v->present)
		{
			if (u->present != v->present)
				return u->present ? -1 : 1;
			return (i > j) - (i < j);
		}
		if (u->id != v->id)
			return u->id < v->id ? -1 : 1;
		if (u->num != v->num)
			return u->num < v->num ? -1 : 1;
	}
	return 0;
}

static int
assign_parts(MmRoster *rosters, int n, const MmMatcherConfig *cfg)
{
	int			any = 0;
	const MmRule *rule = NULL;
	int		   *order;
	int			nparts = 0;

	for (int k = 0; k < cfg->nrules; k++)
		if (cfg->rules[k].kind->partitions)
		{
			any++;
			rule = &cfg->rules[k];
		}
	if (!any)
	{
		for (int i = 0; i < n; i++)
			rosters[i].part = 0;
		return 1;
	}
	/*
	 * One equal rule of a string attribute: the buckets are the values'
	 * ids, in the order they first appear (no sort; the order of the
	 * buckets changes nothing but where they lie).
	 */
	if (any == 1 && cfg->attrs[rule->attr].type == MM_ATTR_STRING)
	{
		int			size = 64;
		int		   *part = palloc(sizeof(int) * size);

		for (int v = 0; v < size; v++)
			part[v] = -1;
		/*
		 * One pass (this runs over every roster at every tick, and each
		 * roster's values lie apart from it), the map of value ids grown as
		 * larger ones come
		 */
		for (int i = 0; i < n; i++)
		{
			int			id;

			if (!mm_rule_attr_present(&rosters[i], rule))
			{
				rosters[i].part = nparts++;
				continue;
			}
			id = rosters[i].attr[rule->attr].id;
			if (id >= size)
			{
				int			grown = Max(size * 2, id + 1);

				part = repalloc(part, sizeof(int) * grown);
				for (int k = size; k < grown; k++)
					part[k] = -1;
				size = grown;
			}
			if (part[id] < 0)
				part[id] = nparts++;
			rosters[i].part = part[id];
		}
		pfree(part);
		return nparts;
	}
	order = palloc(sizeof(int) * n);
	for (int i = 0; i < n; i++)
		order[i] = i;
	sort_rosters = rosters;
	part_cfg = cfg;
	qsort(order, n, sizeof(int), cmp_part);
	for (int j = 0; j < n; j++)
	{
		if (j > 0 && cmp_part(&order[j - 1], &order[j]) != 0)
			nparts++;
		rosters[order[j]].part = nparts;
	}
	pfree(order);
	return nparts + 1;
}

/*
 * A copy of the rosters with each bucket's side by side, in queue order
 * within it (a stable counting sort by bucket), their professions too: a
 * target only ever looks at its own bucket, and its potentials, whose
 * scores are read for every pick, are then near each other in memory
 * rather than spread over the whole queue. Nothing else changes: the
 * matcher compares rosters' places only within a bucket. *perm gets the
 * given roster of each place, *inv the place of each given roster.
 */
static MmRoster *
bucket_major(const MmRoster *given, int n, int nparts, int **perm, int **inv)
{
	MmRoster   *w = palloc(sizeof(MmRoster) * n);
	int		   *first = palloc0(sizeof(int) * (nparts + 1));
	int			nprof = 0;
	int		   *prof;

	*perm = palloc(sizeof(int) * n);
	*inv = palloc(sizeof(int) * n);
	for (int i = 0; i < n; i++)
	{
		first[given[i].part + 1]++;
		nprof += given[i].nprof;
	}
	for (int p = 0; p < nparts; p++)
		first[p + 1] += first[p];
	prof = palloc(sizeof(int) * 2 * Max(nprof, 1));
	for (int i = 0; i < n; i++)
	{
		int			j = first[given[i].part]++;

		(*perm)[j] = i;
		(*inv)[i] = j;
	}
	for (int j = 0; j < n; j++)
	{
		const MmRoster *g = &given[(*perm)[j]];

		w[j] = *g;
		w[j].prof = prof;
		w[j].prof_count = prof + g->nprof;
		if (g->nprof > 0)
		{
			memcpy(w[j].prof, g->prof, sizeof(int) * g->nprof);
			memcpy(w[j].prof_count, g->prof_count, sizeof(int) * g->nprof);
		}
		prof += 2 * g->nprof;
	}
	pfree(first);
	return w;
}

/*
 * createMatches: try to make a match for each of the first "rosters"
 * rosters of the queue. Fills the rosters' results and "res".
 */
void
mm_matcher_run(MmRoster *given, int n, int nprofessions,
			   const MmMatcherConfig *cfg, MmMatcherResult *res)
{
	Run			run;
	int			ntargets = cfg->prefix ? cfg->filter.rosters : Min(n, cfg->filter.rosters);
	double		start = now_ms();
	int			size = cfg->team_size;
	MmRoster   *rosters = given;
	int		   *perm = NULL;	/* bucket-major order: the given roster of each */
	double		lo_max = 0;
	int		   *inv = NULL;		/* and the place of each given roster */

	memset(res, 0, sizeof(*res));
	memset(&run, 0, sizeof(run));
	if (n == 0)
	{
		/* an empty prefix (its rosters had no players) tells nothing */
		res->undecided = cfg->prefix;
		return;
	}
	/* the buckets, and their rosters side by side (bucket_major) */
	run.nparts = assign_parts(given, n, cfg);
	/* worth its copy when the targets are many (a whole queue's, say) */
	if (run.nparts > 1 && (int64) Min(ntargets, n) * 8 >= n)
		rosters = bucket_major(given, n, run.nparts, &perm, &inv);
	run.model = &mm_matcher_gw2;
	run.r = rosters;
	run.n = n;
	run.cfg = cfg;
	run.nprofessions = nprofessions;
	run.in_queue = palloc(sizeof(bool) * n);
	run.next = palloc(sizeof(int) * n);
	run.prev = palloc(sizeof(int) * n);
	run.live = n;
	run.nrules = cfg->nrules;
	run.rules = cfg->rules;
	for (int k = 0; k < cfg->nrules; k++)
		run.nsoft += cfg->rules[k].soft;
	for (int k = 0; k < cfg->nrules; k++)
		run.odds_rules |= cfg->rules[k].kind->odds;
	run.complete_failed = -1;
	run.limits = palloc0(sizeof(double) * Max(cfg->nrules, 1));
	run.levels = palloc0(sizeof(int) * Max(cfg->nrules, 1));
	run.bits = palloc0(sizeof(uint64 *) * Max(cfg->nrules, 1));
	run.tbits = palloc0(sizeof(uint64) * Max(cfg->nrules, 1));
	run.rstate = palloc0(sizeof(MmRuleState) * Max(cfg->nrules, 1));
	run.rejected = palloc0(sizeof(int) * Max(cfg->nrules, 1));
	run.blocked = palloc0(sizeof(int) * Max(cfg->nrules, 1));
	res->failed_by_rule = palloc0(sizeof(int) * Max(cfg->nrules, 1));
	run.chosen = palloc0(sizeof(bool) * n);
	run.by_lo = palloc(sizeof(int) * n);
	run.potentials = palloc(sizeof(int) * n);
	run.nteams = cfg->nteams;
	for (int s = 0; s < run.nteams; s++)
	{
		run.prof_count[s] = palloc0(sizeof(int) * Max(nprofessions, 1));
		run.team[s].rosters = palloc(sizeof(int) * (size + 1));
	}
	/* each target makes at most one match */
	res->matches = palloc(sizeof(MmMatch) * (Min(n / 2, ntargets) + 1));
	res->failed = palloc(sizeof(int) * (Min(n, ntargets) + 1));

	for (int i = 0; i < n; i++)
	{
		MmRoster   *r = &rosters[i];
		double		pad = mm_matcher_padding(cfg, r->age);

		r->rating_low = r->rating - r->deviation;
		r->lo = r->rating - cfg->filter.deviations * r->deviation - pad;
		r->hi = r->rating + cfg->filter.deviations * r->deviation + pad;
		r->state = MM_ROSTER_WAITING;
		r->match = -1;
		r->team = -1;
		r->fail_order = -1;
		r->fail_reason = MM_FAIL_NONE;
		r->fail_rule = -1;
		r->fail_kept = 0;
		r->fail_favourite = 0;
		r->npotentials = -1;
		run.in_queue[i] = true;
		run.any_blocks |= r->nblocks > 0;
		run.widest = Max(run.widest, r->hi - r->lo);
		if (i == 0 || r->lo < run.lo_min)
			run.lo_min = r->lo;
		if (i == 0 || r->lo > lo_max)
			lo_max = r->lo;
	}
	rules_bits(&run);
	/* the buckets: a live list and a range of by_lo each */
	run.head = palloc(sizeof(int) * run.nparts);
	run.part_live = palloc0(sizeof(int) * run.nparts);
	{
		int		   *last = palloc(sizeof(int) * run.nparts);

		for (int p = 0; p < run.nparts; p++)
		{
			run.head[p] = n;
			last[p] = -1;
		}
		for (int i = 0; i < n; i++)
		{
			int			p = rosters[i].part;

			run.prev[i] = last[p];
			run.next[i] = n;
			if (last[p] >= 0)
				run.next[last[p]] = i;
			else
				run.head[p] = i;
			last[p] = i;
			run.part_live[p]++;
		}
		pfree(last);
	}
	/* by_lo when a target needs it (mm_matcher_sort); its bins meanwhile */
	run.lo_span = n > 0 ? lo_max - run.lo_min : 0;
	if ((int64) run.nparts * MM_LO_BINS <= Max((int64) n, 4096))
	{
		run.lo_bins = palloc0(sizeof(int) * run.nparts * MM_LO_BINS);
		for (int i = 0; i < n; i++)
			run.lo_bins[rosters[i].part * MM_LO_BINS + mm_lo_bin(&run, rosters[i].lo, MM_LO_BINS)]++;
	}

	/* the targets in queue order */
	for (int t = 0; t < ntargets; t++)
	{
		MmFailReason reason;
		int			target;

		CHECK_FOR_INTERRUPTS();
		if (res->targets_tried > 0 && now_ms() - start > cfg->filter.limit_ms)
		{
			res->stopped_by_limit = true;
			break;
		}
		if (t >= n)
		{
			/* a prefix shorter than the targets: the queue may hold more */
			res->undecided = true;
			break;
		}
		target = inv ? inv[t] : t;
		if (!run.in_queue[target])
			continue;			/* matched as an earlier target's potential */
		res->targets_tried++;
		mm_matcher_queue_remove(&run, target);
		for (int k = 0; k < run.nrules; k++)
		{
			const MmRule *rule = &run.rules[k];

			run.levels[k] = mm_rule_level(rule, rosters[target].age);
			run.limits[k] = mm_rule_level_limit(rule, run.levels[k]);
			if (run.bits[k] != NULL)
				run.tbits[k] = rule_bits_of(&run, k, target)[run.levels[k]];
			run.rejected[k] = run.blocked[k] = 0;
		}
		run.blocks_rejected = run.blocks_refused = 0;
		run.complete_failed = -1;
		run.model->filter(&run, &rosters[target]);
		rosters[target].npotentials = run.npotentials;

		/*
		 * Over a prefix of the queue, the potentials are those of the whole
		 * queue when the search found potentials_max of them (it stops
		 * there either way); with fewer, rosters past the prefix could be
		 * potentials too, and change the outcome. A roster too large for a
		 * team fails whatever its potentials. Earlier targets were decided
		 * (else the run stopped at them), so the rosters they took are the
		 * same as over the whole queue.
		 */
		if (cfg->prefix && run.npotentials < cfg->filter.potentials_max &&
			rosters[target].players <= size)
		{
			res->undecided = true;
			break;
		}
		if (rosters[target].players > size)
			reason = MM_FAIL_TOO_LARGE;
		else if (run.npotentials == 0)
		{
			reason = MM_FAIL_NO_POTENTIALS;
			if (run.nrules > 0)
			{
				rosters[target].fail_rule = blame(run.rejected, run.nrules);
				/* nobody in its bucket, rosters waiting in others: the equal rules */
				if (rosters[target].fail_rule < 0 && run.part_live[rosters[target].part] == 0 &&
					run.live > 0)
					for (int k = 0; k < run.nrules && rosters[target].fail_rule < 0; k++)
						if (run.rules[k].kind->partitions)
							rosters[target].fail_rule = k;
			}
		}
		else if (run.npotentials < cfg->filter.potentials_min &&
				 rosters[target].age < cfg->filter.padding_end)
			reason = MM_FAIL_POTENTIALS;
		else if (!run.model->populate(&run, target))
		{
			reason = MM_FAIL_INCOMPLETE;
			/* a rule that refused the complete match (balance) is why */
			if (run.complete_failed >= 0)
			{
				rosters[target].fail_rule = run.complete_failed;
				rosters[target].fail_favourite = run.complete_favourite;
			}
			else if (run.nrules > 0)
			{
				rosters[target].fail_rule = blame(run.blocked, run.nrules);

				/*
				 * No rule refused a pick: the potentials could not fill
				 * the teams, and a rule that kept rosters out of them is
				 * why there were not more (a latency rule with no region
				 * within its limit yet, say), not the party sizes.
				 */
				if (rosters[target].fail_rule < 0)
				{
					rosters[target].fail_rule = blame(run.rejected, run.nrules);
					if (rosters[target].fail_rule >= 0)
						rosters[target].fail_kept = run.rejected[rosters[target].fail_rule];
				}
			}
		}
		else
			reason = MM_FAIL_NONE;
		if (rosters[target].fail_rule >= 0)
			reason = MM_FAIL_RULE;
		/* the players' blocks, when they refused more than the rule blamed */
		if (reason == MM_FAIL_NO_POTENTIALS || reason == MM_FAIL_INCOMPLETE ||
			(reason == MM_FAIL_RULE && run.complete_failed < 0))
		{
			int			blocks = reason == MM_FAIL_NO_POTENTIALS ||
				(reason == MM_FAIL_RULE && run.npotentials == 0)
				? run.blocks_rejected : run.blocks_refused;
			int			rule = rosters[target].fail_rule;
			int			by_rule = rule < 0 ? 0 :
				run.npotentials == 0 ? run.rejected[rule] : run.blocked[rule];

			if (blocks > by_rule)
			{
				reason = MM_FAIL_BLOCKS;
				rosters[target].fail_rule = -1;
			}
		}
		if (reason == MM_FAIL_NONE)
			record_match(&run, res);
		else
		{
			/* the other picked rosters stay where they are in the queue */
			rosters[target].state = MM_ROSTER_FAILED;
			res->failed[res->nfailed] = target;
			rosters[target].fail_order = res->nfailed++;
			rosters[target].fail_reason = reason;
			res->failed_by_reason[reason]++;
			if (reason == MM_FAIL_RULE)
				res->failed_by_rule[rosters[target].fail_rule]++;
		}
		for (int side = 0; side < run.nteams; side++)
		{
			for (int k = 0; k < run.team[side].nrosters; k++)
				run.chosen[run.team[side].rosters[k]] = false;
			run.team[side].nrosters = 0;
		}
	}
	/*
	 * the results, in the given order (each roster's own arrays stay the
	 * given ones: the copy's are this run's, and a caller may keep its
	 * rosters for the next run)
	 */
	if (perm != NULL)
	{
		for (int j = 0; j < n; j++)
		{
			MmRoster   *g = &given[perm[j]];
			int		   *prof = g->prof;
			int		   *prof_count = g->prof_count;

			*g = rosters[j];
			g->prof = prof;
			g->prof_count = prof_count;
		}
		for (int m = 0; m < res->nmatches; m++)
			for (int k = 0; k < res->matches[m].nmembers; k++)
				res->matches[m].members[k] = perm[res->matches[m].members[k]];
		for (int k = 0; k < res->nfailed; k++)
			res->failed[k] = perm[res->failed[k]];
	}
}
