/*-------------------------------------------------------------------------
 *
 * row_checks.c
 *		The CHECK constraints of the queue's busiest tables, each one call
 *		of an immutable C function: mm.match's teams and odds, the team
 *		name of a roster, an ended roster, a result's player and a backfill
 *		request, the event feed's kind, subject and players, and a ticket
 *		event's status and match.
 *
 * Why functions: PostgreSQL compiles every CHECK of a table from its
 * stored expression tree again in each statement that writes the table
 * (the text is parsed back into nodes, planned and initialised), and the
 * cost follows the size of that tree. Written as SQL, these checks are
 * trees of 1,000 to 4,000 characters each (an array of twelve event kinds,
 * a CASE over lists of statuses, five array tests in a row); a report,
 * which writes mm.match, mm.queue_event and mm.match_result_player in
 * statements of their own, spent about a sixth of its instructions
 * compiling them. A call with the row's columns as arguments is a tree of
 * a few hundred characters, and tests the row faster too.
 *
 * Each function accepts exactly the rows the constraint's comment names,
 * and never raises an error: a CHECK answers yes or no, and PostgreSQL's
 * error then names the constraint and shows the row. The functions are
 * internal (the owner's alone, as every table write is: the roles mm
 * grants read the tables and change them through mm's functions only).
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"
#include "utils/float.h"

/* a team name: 1 to 63 bytes (as a queue's team_names) */
static bool
team_name_ok(Datum d)
{
	Size		len = toast_raw_datum_size(d) - VARHDRSZ;

	return len >= 1 && len <= 63;
}

/* whether text t is one of the n words of list */
static bool
text_in(text *t, const char *const *list, int n)
{
	const char *s = VARDATA_ANY(t);
	int			len = VARSIZE_ANY_EXHDR(t);

	for (int i = 0; i < n; i++)
	{
		if ((int) strlen(list[i]) == len && memcmp(list[i], s, len) == 0)
			return true;
	}
	return false;
}

/* a one-dimensional array from 1 of type elemtype, without NULLs */
static bool
plain_array(ArrayType *a, Oid elemtype)
{
	return ARR_NDIM(a) == 1 && ARR_LBOUND(a)[0] == 1 && ARR_ELEMTYPE(a) == elemtype && !ARR_HASNULL(a);
}

PG_FUNCTION_INFO_V1(mm_team_name_valid);

/*
 * mm._team_name_valid(team text) -> boolean, STRICT
 * A team is named by 1 to 63 bytes.
 */
Datum
mm_team_name_valid(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(team_name_ok(PG_GETARG_DATUM(0)));
}

PG_FUNCTION_INFO_V1(mm_match_teams_valid);

/*
 * mm._match_teams_valid(teams text[]) -> boolean, STRICT
 * A match has 2 to 64 teams, each named (not ''), in a one-dimensional
 * array from 1 without NULLs.
 */
Datum
mm_match_teams_valid(PG_FUNCTION_ARGS)
{
	ArrayType  *teams = PG_GETARG_ARRAYTYPE_P(0);
	int			n;
	array_iter	it;

	if (!plain_array(teams, TEXTOID))
		PG_RETURN_BOOL(false);
	n = ARR_DIMS(teams)[0];
	if (n < 2 || n > 64)
		PG_RETURN_BOOL(false);
	array_iter_setup(&it, (AnyArrayType *) teams);
	for (int i = 0; i < n; i++)
	{
		bool		isnull;
		Datum		d = array_iter_next(&it, &isnull, i, -1, false, TYPALIGN_INT);

		if (isnull || toast_raw_datum_size(d) == VARHDRSZ)
			PG_RETURN_BOOL(false);
	}
	PG_RETURN_BOOL(true);
}

PG_FUNCTION_INFO_V1(mm_match_odds_valid);

/*
 * mm._match_odds_valid(odds float8[], teams text[], red_odds float8,
 * blue_odds float8) -> boolean, STRICT
 * One odds per team, in a one-dimensional array from 1 without NULLs;
 * red_odds and blue_odds are its first two (equal as float8 = compares:
 * NaN equals NaN).
 */
Datum
mm_match_odds_valid(PG_FUNCTION_ARGS)
{
	ArrayType  *odds = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *teams = PG_GETARG_ARRAYTYPE_P(1);
	float8		red = PG_GETARG_FLOAT8(2);
	float8		blue = PG_GETARG_FLOAT8(3);
	const float8 *v;
	int			n;

	if (!plain_array(odds, FLOAT8OID))
		PG_RETURN_BOOL(false);
	n = ARR_DIMS(odds)[0];
	if (n < 2 || n != ArrayGetNItems(ARR_NDIM(teams), ARR_DIMS(teams)))
		PG_RETURN_BOOL(false);
	v = (const float8 *) ARR_DATA_PTR(odds);
	PG_RETURN_BOOL(float8_eq(red, v[0]) && float8_eq(blue, v[1]));
}

/* the event feed's kinds: roster events first */
static const char *const event_kinds[] = {
	"queued", "left", "expired",
	"proposed", "accepted", "declined", "dissolved", "matched", "backfill_requested", "backfilled",
	"reported", "abandoned"
};
#define ROSTER_EVENT_KINDS 3

PG_FUNCTION_INFO_V1(mm_queue_event_kind_valid);

/*
 * mm._queue_event_kind_valid(kind text) -> boolean, STRICT
 * A kind of the feed: queued, left, expired (a roster's), proposed,
 * accepted, declined, dissolved, matched, backfill_requested, backfilled,
 * reported, abandoned (a match's).
 */
Datum
mm_queue_event_kind_valid(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(text_in(PG_GETARG_TEXT_PP(0), event_kinds, lengthof(event_kinds)));
}

PG_FUNCTION_INFO_V1(mm_queue_event_subject_valid);

/*
 * mm._queue_event_subject_valid(kind text, roster_id bigint, match_id
 * bigint) -> boolean, not STRICT
 * A roster event names its roster and no match; any other event names its
 * match.
 */
Datum
mm_queue_event_subject_valid(PG_FUNCTION_ARGS)
{
	if (!PG_ARGISNULL(0) && text_in(PG_GETARG_TEXT_PP(0), event_kinds, ROSTER_EVENT_KINDS))
		PG_RETURN_BOOL(!PG_ARGISNULL(1) && PG_ARGISNULL(2));
	PG_RETURN_BOOL(!PG_ARGISNULL(2));
}

PG_FUNCTION_INFO_V1(mm_id_list_valid);

/*
 * mm._id_list_valid(ids bigint[]) -> boolean, STRICT
 * At least one id, in a one-dimensional array without NULLs (any lower
 * bound).
 */
Datum
mm_id_list_valid(PG_FUNCTION_ARGS)
{
	ArrayType  *ids = PG_GETARG_ARRAYTYPE_P(0);

	PG_RETURN_BOOL(ARR_NDIM(ids) == 1 && ARR_ELEMTYPE(ids) == INT8OID && !ARR_HASNULL(ids) &&
				   ARR_DIMS(ids)[0] >= 1);
}

/* a ticket's statuses: those that name their match first, then those that never do */
static const char *const ticket_statuses[] = {
	"proposed", "accepted", "matched",
	"expired", "left",
	"waiting", "removed"
};
#define TICKET_WITH_MATCH 3
#define TICKET_WITHOUT_MATCH 2

PG_FUNCTION_INFO_V1(mm_ticket_status_valid);

/*
 * mm._ticket_status_valid(status text) -> boolean, STRICT
 * waiting, proposed, accepted, matched, expired, left or removed.
 */
Datum
mm_ticket_status_valid(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(text_in(PG_GETARG_TEXT_PP(0), ticket_statuses, lengthof(ticket_statuses)));
}

PG_FUNCTION_INFO_V1(mm_ticket_match_valid);

/*
 * mm._ticket_match_valid(status text, match_id bigint) -> boolean, not
 * STRICT
 * proposed, accepted and matched name their match; expired and left do
 * not; waiting and removed may.
 */
Datum
mm_ticket_match_valid(PG_FUNCTION_ARGS)
{
	text	   *status;

	if (PG_ARGISNULL(0))
		PG_RETURN_BOOL(true);
	status = PG_GETARG_TEXT_PP(0);
	if (text_in(status, ticket_statuses, TICKET_WITH_MATCH))
		PG_RETURN_BOOL(!PG_ARGISNULL(1));
	if (text_in(status, ticket_statuses + TICKET_WITH_MATCH, TICKET_WITHOUT_MATCH))
		PG_RETURN_BOOL(PG_ARGISNULL(1));
	PG_RETURN_BOOL(true);
}
