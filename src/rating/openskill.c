/*-------------------------------------------------------------------------
 *
 * openskill.c
 *		OpenSkill ratings: the five Weng-Lin models and win/draw/rank
 *		predictions (their SQL functions are in openskill_sql.c).
 *
 * Source: R. C. Weng and C.-J. Lin, "A Bayesian Approximation Method for
 * Online Ranking", JMLR 12 (2011), Algorithms 1 to 4 (Bradley-Terry and
 * Thurstone-Mosteller with full and partial pairing, Plackett-Luce), with
 * the conventions of openskill.js 5.0.1, whose behaviour the IMS documentation's sample
 * follows:
 *
 *	- tau is added to every sigma before the update, sigma' = sqrt(sigma^2 +
 *	  tau^2); with limit_sigma (and tau > 0) no sigma ends above its input;
 *	- teams are sorted by rank (stably: tied teams keep their order), and a
 *	  team's rank is the 0-based position of the first team with that rank;
 *	- a team is the sum of its players' mu and sigma^2 (with balance, each
 *	  player scaled by 1 + (max ordinal - ordinal) / (max ordinal + kappa));
 *	- gamma = sqrt(team sigma^2) / c, and sigma shrinks by
 *	  sqrt(max(1 - sigma^2 / team sigma^2 * delta, kappa));
 *	- Thurstone-Mosteller's draw margin is epsilon (0.1), partial pairing
 *	  doubles c; margin (with scores) scales each mu change by
 *	  1 + sum_j log1p(max(0, |s_i - s_j| - margin)) / (n - 1).
 *
 * Per-player weights follow openskill.py >= 6: each team's weights are
 * min-max normalised into [1, 2] (all equal: 1); a team whose omega is
 * positive has its players' omega and delta multiplied by the weight,
 * otherwise divided by it. mm gives a one-player team weight 1 (openskill.py
 * gives it 2), so that weights never change a solo player's update.
 *
 * Plackett-Luce is computed in log-sum-exp form: openskill.js overflows
 * exp(mu / c) and returns NaN when mu is in the thousands.
 *
 *-------------------------------------------------------------------------
 */
#include "openskill.h"

#include <float.h>
#include <math.h>

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#define OS_SQRT2	1.41421356237309504880
#define OS_SQRT2PI	2.50662827463100050242

/*
 * Scratch memory of one computation: carved from a stack buffer when the
 * game is small enough (MM_OS_SMALL players), else from one palloc'd
 * block. A replay rates millions of games in a call; each would otherwise
 * make a dozen allocations.
 */
#define OS_SCRATCH_BYTES (16 * MM_OS_SMALL * sizeof(double))

typedef struct OsScratch
{
	char	   *next;			/* first free byte */
	char	   *block;			/* the palloc'd block, or NULL */
	double		stack[OS_SCRATCH_BYTES / sizeof(double)];
} OsScratch;

/* Get ready to hand out up to bytes (counting each piece MAXALIGNed). */
static void
os_scratch_init(OsScratch *s, Size bytes)
{
	s->block = bytes <= sizeof(s->stack) ? NULL : palloc(bytes);
	s->next = s->block ? s->block : (char *) s->stack;
}

static void *
os_scratch(OsScratch *s, Size bytes)
{
	void	   *p = s->next;

	s->next += MAXALIGN(bytes);
	return p;
}

static void
os_scratch_done(OsScratch *s)
{
	if (s->block)
		pfree(s->block);
}

/*
 * The checks of mm.c, called only when a value fails them (this file
 * checks every player of every game a replay rates).
 */
#define OS_CHECK_FINITE(x, what) \
	do { if (unlikely(!isfinite(x))) mm_check_finite((x), (what)); } while (0)
#define OS_CHECK_POSITIVE(x, what) \
	do { if (unlikely(!(isfinite(x) && (x) > 0.0))) mm_check_positive((x), (what)); } while (0)
#define OS_CHECK_NONNEGATIVE(x, what) \
	do { if (unlikely(!(isfinite(x) && (x) >= 0.0))) mm_check_nonnegative((x), (what)); } while (0)
#define OS_CHECK_RESULT(x, what) \
	do { if (unlikely(!isfinite(x))) mm_check_result((x), (what)); } while (0)

/*
 * Standard normal CDF in openskill.js's form, (1 + erf(x / sqrt 2)) / 2, so
 * that the models and predictions match it to rounding. In the far lower
 * tail this form loses relative precision (the models guard against its
 * denominators falling under machine epsilon, as openskill.js does); an
 * erfc form moved some extreme Thurstone-Mosteller games by up to 20%.
 */
double
mm_os_phi(double x)
{
	return 0.5 * (1.0 + erf(x / OS_SQRT2));
}

/* Standard normal CDF, accurate in both tails (for the quantile). */
static double
phi_accurate(double x)
{
	return 0.5 * erfc(-x / OS_SQRT2);
}

/* Standard normal density. */
static double
phi_minor(double x)
{
	return exp(-0.5 * x * x) / OS_SQRT2PI;
}

/*
 * Inverse of the standard normal CDF: P. J. Acklam's rational
 * approximation (relative error 1.15e-9), refined by one Halley step on
 * an erfc-based CDF, which brings it to full double precision.
 */
double
mm_os_phi_inverse(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02,
	-3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01,
	-1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00,
	4.374664141464968e+00, 2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
	2.445134137142996e+00, 3.754408661907416e+00};
	const double plow = 0.02425;
	double		q,
				r,
				x,
				e,
				u;

	if (p <= 0.0)
		return -HUGE_VAL;
	if (p >= 1.0)
		return HUGE_VAL;
	if (p < plow)
	{
		q = sqrt(-2.0 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
			((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
	}
	else if (p <= 1.0 - plow)
	{
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
			(((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
	}
	else
	{
		q = sqrt(-2.0 * log1p(-p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
			((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
	}
	/* Halley step: e is the CDF error, u = e / density */
	e = phi_accurate(x) - p;
	u = e * OS_SQRT2PI * exp(0.5 * x * x);
	if (!isfinite(u))
		return x;
	return x - u / (1.0 + 0.5 * x * u);
}

/* v(x, t) = phi(x - t) / Phi(x - t), the mean correction of a win. */
static double
os_v(double x, double t)
{
	double		xt = x - t;
	double		denom = mm_os_phi(xt);

	return denom < DBL_EPSILON ? -xt : phi_minor(xt) / denom;
}

/* w(x, t) = v (v + x - t), the variance correction of a win. */
static double
os_w(double x, double t)
{
	double		xt = x - t;
	double		denom = mm_os_phi(xt);
	double		v;

	if (denom < DBL_EPSILON)
		return x < 0 ? 1.0 : 0.0;
	v = os_v(x, t);
	return v * (v + xt);
}

/* vt(x, t): the mean correction of a draw. */
static double
os_vt(double x, double t)
{
	double		xx = fabs(x);
	double		b = mm_os_phi(t - xx) - mm_os_phi(-t - xx);
	double		a;

	if (b < 1e-5)
		return x < 0 ? -x - t : -x + t;
	a = phi_minor(-t - xx) - phi_minor(t - xx);
	return (x < 0 ? -a : a) / b;
}

/* wt(x, t): the variance correction of a draw. */
static double
os_wt(double x, double t)
{
	double		xx = fabs(x);
	double		b = mm_os_phi(t - xx) - mm_os_phi(-t - xx);
	double		vt;

	if (b < DBL_EPSILON)
		return 1.0;
	vt = os_vt(x, t);
	return ((t - xx) * phi_minor(t - xx) + (t + xx) * phi_minor(-t - xx)) / b +
		vt * vt;
}

void
mm_os_default_options(MmOsOptions *o)
{
	o->model = MM_OS_PLACKETT_LUCE;
	o->beta = 25.0 / 6.0;
	o->kappa = 0.0001;
	o->tau = 25.0 / 300.0;
	o->limit_sigma = false;
	o->z = 3.0;
	o->alpha = 1.0;
	o->target = 0.0;
	o->balance = false;
	o->epsilon = 0.1;
	o->margin = 0.0;
}

/* Look a model name up (case-insensitive); false if unknown. */
bool
mm_os_lookup_model(const char *name, MmOsModel *model)
{
	static const char *const names[] = {"plackett_luce", "bradley_terry_full",
		"bradley_terry_part", "thurstone_mosteller_full",
	"thurstone_mosteller_part"};

	for (int i = 0; i < 5; i++)
		if (pg_strcasecmp(name, names[i]) == 0)
		{
			*model = (MmOsModel) i;
			return true;
		}
	return false;
}

/* Map a model name to its enum; unknown names are an error. */
MmOsModel
mm_os_parse_model(const char *name)
{
	MmOsModel	model;

	if (!mm_os_lookup_model(name, &model))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown openskill model \"%s\"", name),
				 errhint("Valid models are: plackett_luce, bradley_terry_full, bradley_terry_part, thurstone_mosteller_full, thurstone_mosteller_part.")));
	return model;
}

/* Check the options' ranges. */
void
mm_os_check_options(const MmOsOptions *o)
{
	mm_check_positive(o->beta, "beta");
	mm_check_positive(o->kappa, "kappa");
	mm_check_nonnegative(o->tau, "tau");
	mm_check_finite(o->z, "z");
	mm_check_finite(o->alpha, "alpha");
	mm_check_finite(o->target, "target");
	mm_check_positive(o->epsilon, "epsilon");
	mm_check_nonnegative(o->margin, "margin");
}

/*
 * A denominator, checked: sigmas, beta or ordinals so small or so placed
 * that a division would be by zero are an error, not Infinity or NaN.
 */
static double
os_nonzero(double d, const char *why)
{
	if (d == 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("openskill computation is out of range"),
				 errdetail("%s.", why),
				 errhint("Check the ratings: sigmas and beta this close to 0, or a best ordinal of exactly -kappa, leave the update undefined.")));
	return d;
}

/* Order team indexes by rank, then by index (a stable sort, qsort_arg). */
static int
cmp_rank_index(const void *a, const void *b, void *arg)
{
	const double *rank = (const double *) arg;
	int			x = *(const int *) a,
				y = *(const int *) b;

	if (rank[x] != rank[y])
		return rank[x] < rank[y] ? -1 : 1;
	return x < y ? -1 : (x > y ? 1 : 0);
}

/*
 * Plackett-Luce (Weng & Lin 2011, Algorithm 4): omega and delta of every
 * team (in sorted order) in O(k), in log-sum-exp form.
 */
static void
os_plackett_luce(int k, const double *mu_t, const double *s2_t, double betasq,
				 const int *pos, double *omega, double *delta, OsScratch *scratch)
{
	double		csq = 0.0,
				c;
	double	   *lse = os_scratch(scratch, sizeof(double) * k);
	int		   *a = os_scratch(scratch, sizeof(int) * k);
	double		m = -HUGE_VAL,
				sum = 0.0,
				r1 = 0.0,
				r2 = 0.0;

	for (int i = 0; i < k; i++)
		csq += s2_t[i] + betasq;
	c = sqrt(csq);

	/*
	 * The teams are in rank order, so pos is non-decreasing and "ranked
	 * at or below q" is the suffix from q's tie group on. lse[q], the log
	 * of the sum of exp(mu / c) over that suffix, is one running
	 * log-sum-exp from the last team up; a[q] is the size of q's group.
	 */
	for (int q = k - 1; q >= 0; q--)
	{
		double		x = mu_t[q] / c;

		CHECK_FOR_INTERRUPTS();
		if (x > m)
		{
			sum = sum * exp(m - x) + 1.0;
			m = x;
		}
		else
			sum += exp(x - m);
		lse[q] = m + log(sum);
		a[q] = (q + 1 < k && pos[q + 1] == pos[q]) ? a[q + 1] + 1 : 1;
	}
	/* give every team of a tie group the whole group's values */
	for (int q = 1; q < k; q++)
		if (pos[q] == pos[q - 1])
		{
			lse[q] = lse[q - 1];
			a[q] = a[q - 1];
		}

	/*
	 * Team i sums over the teams q ranked at or above it (q up to the
	 * end g of its tie group) quot_q = exp(mu_i / c - lse_q):
	 * omega_i = 1/a_i - sum quot_q / a_q, delta_i = sum quot_q (1 -
	 * quot_q) / a_q. With r1_g = sum_{q<=g} exp(lse_g - lse_q) / a_q and
	 * r2_g likewise with the squares (each term at most 1, as lse only
	 * falls with q), the sums are exp(mu_i / c - lse_g) r1_g and its
	 * square times r2_g: one pass over the teams.
	 */
	for (int g = 0, i0 = 0; g < k; g++)
	{
		double		step = (g > 0) ? exp(lse[g] - lse[g - 1]) : 0.0;

		CHECK_FOR_INTERRUPTS();
		r1 = r1 * step + 1.0 / a[g];
		r2 = r2 * step * step + 1.0 / a[g];
		if (g + 1 < k && pos[g + 1] == pos[g])
			continue;
		/* g ends a tie group that started at i0 */
		for (int i = i0; i <= g; i++)
		{
			double		quot = exp(mu_t[i] / c - lse[g]);
			double		s1 = quot * r1;
			double		s2 = quot * quot * r2;

			omega[i] = (1.0 / a[i] - s1) * (s2_t[i] / c);
			delta[i] = (s1 - s2) * (s2_t[i] / (c * c)) * (sqrt(s2_t[i]) / c);
		}
		i0 = g + 1;
	}
}

/*
 * Compute omega and delta of every team (in sorted order) for the model.
 * mu_t and s2_t are the teams' sums, pos their rank positions.
 */
static void
os_model(const MmOsOptions *o, int k, const double *mu_t, const double *s2_t,
		 const int *pos, double *omega, double *delta, OsScratch *scratch)
{
	double		betasq = o->beta * o->beta;

	if (o->model == MM_OS_PLACKETT_LUCE)
	{
		os_plackett_luce(k, mu_t, s2_t, betasq, pos, omega, delta, scratch);
		return;
	}

	for (int i = 0; i < k; i++)
	{
		bool		part = (o->model == MM_OS_BRADLEY_TERRY_PART ||
							o->model == MM_OS_THURSTONE_MOSTELLER_PART);
		bool		bt = (o->model == MM_OS_BRADLEY_TERRY_FULL ||
						  o->model == MM_OS_BRADLEY_TERRY_PART);
		double		om = 0.0,
					de = 0.0;

		/* full pairing is O(k^2): stay cancellable */
		CHECK_FOR_INTERRUPTS();
		for (int q = part ? Max(i - 1, 0) : 0; q < (part ? Min(i + 2, k) : k); q++)
		{
			double		ciq,
						eta,
						gamma;

			if (q == i || (part && q != i - 1 && q != i + 1))
				continue;
			ciq = sqrt(s2_t[i] + s2_t[q] + 2.0 * betasq);
			if (o->model == MM_OS_THURSTONE_MOSTELLER_PART)
				ciq *= 2.0;
			eta = s2_t[i] / ciq;
			gamma = sqrt(s2_t[i]) / ciq;
			if (bt)
			{
				double		piq = 1.0 / (1.0 + exp((mu_t[q] - mu_t[i]) / ciq));
				double		s = pos[q] < pos[i] ? 0.0 : (pos[q] > pos[i] ? 1.0 : 0.5);

				om += eta * (s - piq);
				de += gamma * eta / ciq * piq * (1.0 - piq);
			}
			else
			{
				double		dmu = (mu_t[i] - mu_t[q]) / ciq;
				double		t = o->epsilon / ciq;

				if (pos[q] == pos[i])
				{
					om += eta * os_vt(dmu, t);
					de += gamma * eta / ciq * os_wt(dmu, t);
				}
				else
				{
					double		sign = pos[q] > pos[i] ? 1.0 : -1.0;

					om += sign * eta * os_v(sign * dmu, t);
					de += gamma * eta / ciq * os_w(sign * dmu, t);
				}
			}
		}
		omega[i] = om;
		delta[i] = de;
	}
}

/* Rate one game; results per player, in input order. */
void
mm_os_rate(const MmOsGame *g, const MmOsOptions *o, double *mu_out,
		   double *sigma_out)
{
	int			n = g->nplayers,
				k = g->nteams;
	double		tausq = o->tau * o->tau;
	OsScratch	scratch;
	double	   *sig;
	int		   *ord;			/* sorted position -> team */
	int		   *where;			/* team -> sorted position */
	int		   *pos;
	double	   *mu_t;
	double	   *s2_t;
	double	   *omega;
	double	   *delta;
	double	   *maxord = NULL;
	double	   *wmin = NULL,
			   *wmax = NULL;
	int		   *tsize = NULL;

	/* n doubles; at most 5 int and 10 double arrays of k (with the model's) */
	os_scratch_init(&scratch, MAXALIGN(sizeof(double) * n) +
					5 * MAXALIGN(sizeof(int) * k) + 10 * MAXALIGN(sizeof(double) * k));
	sig = os_scratch(&scratch, sizeof(double) * n);
	ord = os_scratch(&scratch, sizeof(int) * k);
	where = os_scratch(&scratch, sizeof(int) * k);
	pos = os_scratch(&scratch, sizeof(int) * k);
	mu_t = os_scratch(&scratch, sizeof(double) * k);
	s2_t = os_scratch(&scratch, sizeof(double) * k);
	omega = os_scratch(&scratch, sizeof(double) * k);
	delta = os_scratch(&scratch, sizeof(double) * k);
	memset(mu_t, 0, sizeof(double) * k);
	memset(s2_t, 0, sizeof(double) * k);

	for (int p = 0; p < n; p++)
		sig[p] = sqrt(OS_SIGMA(g)[p] * OS_SIGMA(g)[p] + tausq);

	/*
	 * Sort the teams by rank, stably (ties keep their order): (rank,
	 * index) is a strict order, so any sort gives the one result; few
	 * teams are sorted by insertion.
	 */
	for (int t = 0; t < k; t++)
		ord[t] = t;
	if (k <= MM_OS_SMALL)
	{
		for (int i = 1; i < k; i++)
		{
			int			x = ord[i];
			int			j = i;

			while (j > 0 && g->rank[ord[j - 1]] > g->rank[x])
			{
				ord[j] = ord[j - 1];
				j--;
			}
			ord[j] = x;
		}
	}
	else
		qsort_arg(ord, k, sizeof(int), cmp_rank_index, (void *) g->rank);
	for (int j = 0; j < k; j++)
	{
		where[ord[j]] = j;
		pos[j] = (j > 0 && g->rank[ord[j - 1]] < g->rank[ord[j]]) ? j :
			(j > 0 ? pos[j - 1] : 0);
	}

	/* team sums, in sorted order */
	if (o->balance)
	{
		maxord = os_scratch(&scratch, sizeof(double) * k);
		for (int j = 0; j < k; j++)
			maxord[j] = -HUGE_VAL;
		for (int p = 0; p < n; p++)
		{
			int			j = where[g->team_of[p]];
			double		ordv = o->target + o->alpha * (OS_MU(g)[p] - o->z * sig[p]);

			if (ordv > maxord[j])
				maxord[j] = ordv;
		}
	}
	for (int p = 0; p < n; p++)
	{
		int			j = where[g->team_of[p]];
		double		f = 1.0;

		if (o->balance)
			f = 1.0 + (maxord[j] - (o->target + o->alpha * (OS_MU(g)[p] - o->z * sig[p]))) /
				os_nonzero(maxord[j] + o->kappa,
						   "The balance factor divides by the best ordinal plus kappa, which is 0");
		mu_t[j] += OS_MU(g)[p] * f;
		s2_t[j] += (sig[p] * f) * (sig[p] * f);
	}
	/* every model divides by team variances (and by sums of them) */
	for (int j = 0; j < k; j++)
	{
		OS_CHECK_RESULT(mu_t[j], "team mu");
		OS_CHECK_RESULT(s2_t[j], "team variance");
		os_nonzero(s2_t[j], "A team's variance is 0");
	}

	os_model(o, k, mu_t, s2_t, pos, omega, delta, &scratch);

	if (g->weight)
	{
		tsize = os_scratch(&scratch, sizeof(int) * k);
		wmin = os_scratch(&scratch, sizeof(double) * k);
		wmax = os_scratch(&scratch, sizeof(double) * k);
		for (int t = 0; t < k; t++)
		{
			tsize[t] = 0;
			wmin[t] = HUGE_VAL;
			wmax[t] = -HUGE_VAL;
		}
		for (int p = 0; p < n; p++)
		{
			int			t = g->team_of[p];

			tsize[t]++;
			wmin[t] = Min(wmin[t], g->weight[p]);
			wmax[t] = Max(wmax[t], g->weight[p]);
		}
	}

	for (int p = 0; p < n; p++)
	{
		int			t = g->team_of[p];
		int			j = where[t];
		double		ratio = sig[p] * sig[p] / s2_t[j];
		double		om = omega[j],
					de = delta[j];

		if (g->weight && tsize[t] > 1 && wmax[t] > wmin[t])
		{
			/* min-max normalised into [1, 2] */
			double		w = 1.0 + (g->weight[p] - wmin[t]) / (wmax[t] - wmin[t]);

			if (om > 0)
			{
				om *= w;
				de *= w;
			}
			else
			{
				om /= w;
				de /= w;
			}
		}
		mu_out[p] = OS_MU(g)[p] + ratio * om;
		sigma_out[p] = sig[p] * sqrt(Max(1.0 - ratio * de, o->kappa));
	}

	if (g->score && o->margin != 0.0)
	{
		/* each team's factor once (O(k^2)), then each player's */
		double	   *factor = os_scratch(&scratch, sizeof(double) * k);

		for (int t = 0; t < k; t++)
		{
			double		sum = 0.0;

			CHECK_FOR_INTERRUPTS();
			for (int u = 0; u < k; u++)
				if (u != t)
					sum += log1p(Max(0.0, fabs(g->score[t] - g->score[u]) - o->margin));
			factor[t] = 1.0 + sum / (k - 1);
		}
		for (int p = 0; p < n; p++)
			mu_out[p] = OS_MU(g)[p] + factor[g->team_of[p]] * (mu_out[p] - OS_MU(g)[p]);
	}

	if (o->tau != 0.0 && o->limit_sigma)
		for (int p = 0; p < n; p++)
			sigma_out[p] = Min(sigma_out[p], OS_SIGMA(g)[p]);

	for (int p = 0; p < n; p++)
	{
		OS_CHECK_RESULT(mu_out[p], "rated mu");
		OS_CHECK_RESULT(sigma_out[p], "rated sigma");
	}
	os_scratch_done(&scratch);
}

/* Team sums for the predictions: mu and sigma^2 per team. */
static void
os_team_sums(const MmOsGame *g, double *mu_t, double *s2_t, int *size)
{
	for (int t = 0; t < g->nteams; t++)
	{
		mu_t[t] = 0.0;
		s2_t[t] = 0.0;
		size[t] = 0;
	}
	for (int p = 0; p < g->nplayers; p++)
	{
		int			t = g->team_of[p];

		mu_t[t] += OS_MU(g)[p];
		s2_t[t] += OS_SIGMA(g)[p] * OS_SIGMA(g)[p];
		size[t]++;
	}
}

/*
 * Win probability of each team (openskill.js predictWin): the mean over
 * pairs of Phi((mu_a - mu_b) / sqrt(n beta^2 + sigma_a^2 + sigma_b^2)), n
 * the number of teams.
 */
void
mm_os_predict_win(const MmOsGame *g, double beta, double *prob)
{
	int			k = g->nteams;
	OsScratch	scratch;
	double	   *mu_t;
	double	   *s2_t;
	int		   *size;
	double		denom = k * (k - 1) / 2.0;

	os_scratch_init(&scratch, 2 * MAXALIGN(sizeof(double) * k) + MAXALIGN(sizeof(int) * k));
	mu_t = os_scratch(&scratch, sizeof(double) * k);
	s2_t = os_scratch(&scratch, sizeof(double) * k);
	size = os_scratch(&scratch, sizeof(int) * k);
	os_team_sums(g, mu_t, s2_t, size);
	for (int i = 0; i < k; i++)
		prob[i] = 0.0;
	for (int i = 0; i < k; i++)
	{
		/* O(k^2) pairs: stay cancellable */
		CHECK_FOR_INTERRUPTS();
		for (int j = i + 1; j < k; j++)
		{
			double		p = mm_os_phi((mu_t[i] - mu_t[j]) /
									  os_nonzero(sqrt(k * beta * beta + s2_t[i] + s2_t[j]),
												 "A pair of teams has no variance"));

			prob[i] += p;
			prob[j] += 1.0 - p;
		}
	}
	for (int i = 0; i < k; i++)
		prob[i] /= denom;
	os_scratch_done(&scratch);
}

/*
 * Draw probability (openskill.js predictDraw): with N players, draw margin
 * m = sqrt(N) beta Phi^-1((1 + 1/N) / 2), the mean over pairs of
 * Phi((m - mu_a + mu_b) / d) - Phi((mu_b - mu_a - m) / d).
 */
double
mm_os_predict_draw(const MmOsGame *g, double beta)
{
	int			k = g->nteams,
				n = g->nplayers;
	double	   *mu_t = palloc(sizeof(double) * k);
	double	   *s2_t = palloc(sizeof(double) * k);
	int		   *size = palloc(sizeof(int) * k);
	double		margin = sqrt((double) n) * beta * mm_os_phi_inverse((1.0 + 1.0 / n) / 2.0);
	double		total = 0.0;
	int			count = 0;

	os_team_sums(g, mu_t, s2_t, size);
	for (int i = 0; i < k; i++)
	{
		CHECK_FOR_INTERRUPTS();
		for (int j = i + 1; j < k; j++)
		{
			double		d = os_nonzero(sqrt(n * beta * beta + s2_t[i] + s2_t[j]),
									   "A pair of teams has no variance");

			total += mm_os_phi((margin - mu_t[i] + mu_t[j]) / d) -
				mm_os_phi((mu_t[j] - mu_t[i] - margin) / d);
			count++;
		}
	}
	return total / count;
}
