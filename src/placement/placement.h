/*-------------------------------------------------------------------------
 *
 * placement.h
 *		The placement engine's parts (Roblox's matchmaking documentation):
 *		a place's signal configuration (placement_config.c), the scoring of
 *		one server for a joining player (placement_score.c), and the SQL
 *		side that reads a place's servers and ranks them (placement.c).
 *		Internal to those three files.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_PLACEMENT_H
#define MM_PLACEMENT_H

#include "mm.h"
#include "config.h"

#include "utils/jsonb.h"

typedef enum SignalKind
{
	/* the built-in signals of Roblox's matchmaking documentation, in the default configuration */
	SIG_FRIENDS,
	SIG_LATENCY,
	SIG_OCCUPANCY,
	SIG_PLAY_HISTORY,
	SIG_AGE,
	SIG_LANGUAGE,
	SIG_VOICE_CHAT,
	SIG_DEVICE_TYPE,
	/* the eight kinds of custom signals of Roblox's matchmaking documentation */
	SIG_PLAYER_NUMERIC_JOINING,
	SIG_PLAYER_NUMERIC_CONSTANT,
	SIG_PLAYER_CATEGORICAL_CLUSTERING,
	SIG_PLAYER_CATEGORICAL_DIVERSIFYING,
	SIG_SERVER_NUMERIC_JOINING,
	SIG_SERVER_NUMERIC_CONSTANT,
	SIG_SERVER_CATEGORICAL_JOINING,
	SIG_SERVER_CATEGORICAL_CONSTANT
} SignalKind;

/*
 * The largest signal weight. Only the ratios of weights matter (Roblox's
 * matchmaking documentation, "Weight magnitudes"); the cap keeps every
 * server score, a sum of weight * score with scores in [0, 1], finite.
 */
#define MM_PLACE_MAX_WEIGHT 1e12

#define N_BUILTIN 8

typedef enum Aggregation
{
	AGG_AVERAGE,
	AGG_SUM,
	AGG_MIN,
	AGG_MAX
} Aggregation;

/* Keys a signal object may have, as a bit set per kind. */
#define K_WEIGHT	0x01
#define K_ATTR		0x02
#define K_PATTR		0x04
#define K_AGG		0x08
#define K_MAXDIFF	0x10
#define K_CONST		0x20
#define K_TEXTCONST 0x40		/* "constant" is any JSON scalar */

typedef struct KindInfo
{
	const char *name;
	int			keys;			/* allowed keys besides "kind" */
	int			required;		/* keys without a default */
	double		weight;			/* default weight (built-ins) */
	double		maxdiff;		/* default max_relevant_difference */
	const char *player_attr;	/* built-ins: the joining player's attribute */
} KindInfo;

extern const KindInfo place_kinds[];
extern const int place_nkinds;

#define N_KINDS place_nkinds


/* A categorical value: a JSON string, boolean or number. */
typedef struct CatValue
{
	enum jbvType type;			/* jbvString, jbvBool or jbvNumeric */
	char	   *text;			/* string; "true"/"false" for booleans */
	double		num;			/* number */
} CatValue;

/* One signal of a configuration. */
typedef struct Signal
{
	char	   *name;			/* key in the config, and in the breakdown */
	SignalKind	kind;
	double		weight;
	char	   *attribute;		/* custom: player or server attribute */
	char	   *player_attribute;	/* the joining player's attribute */
	Aggregation agg;
	double		maxdiff;
	double		constant;		/* numeric constant */
	CatValue	cat_constant;	/* server categorical vs a constant */
	bool		has_cat_constant;
	/* the joining player's value, filled per ranking */
	double		player_num;
	bool		player_missing; /* built-in: the joining player lacks it */
	char	   *player_text;	/* player categorical: string or boolean */
	CatValue	player_cat;		/* server categorical vs the joining player */
	/* latency: the player's estimates per region, read once */
	int			nregions;
	char	  **region;
	int		   *region_len;
	double	   *region_ms;
} Signal;

typedef struct PlaceConfig
{
	bool		voice_chat;		/* the place has voice chat enabled */
	int			nsignals;
	Signal	   *signals;		/* with weight > 0 only, in config order */
} PlaceConfig;

/* One server as ranking sees it. */
typedef struct ServerRow
{
	int64		server_id;
	int32		capacity;
	int32		occupancy;
	double		age_n;
	double		age_sum;
	double		play_history_n;
	double		play_history_sum;
	bool		has_friend;
	JsonbContainer *attributes;
	JsonbContainer *stats;
} ServerRow;

/* placement_config.c */

/* Look up a key of a JSON object; NULL when absent. */
extern JsonbValue *place_json_get(JsonbContainer *obj, const char *key, JsonbValue *buf);
/* A JSON number as a double. */
extern double place_numeric(JsonbValue *v);
/* Read a JSON scalar as a categorical value; false for arrays, objects, null. */
extern bool place_cat_read(JsonbValue *v, CatValue *out);
/* Equality of a categorical value and a JSON value: same type, same value. */
extern bool place_cat_equal(const CatValue *a, JsonbValue *v);

/*
 * A place configuration: {"voice_chat": bool, "include_defaults": bool,
 * "signals": {name: {...}}}; NULL gives the Roblox default configuration.
 */
extern PlaceConfig *mm_place_parse_config(Jsonb *config);

/* A place config checked and complete, as mm.set_place_config stores it. */
extern Jsonb *mm_place_config_complete(Jsonb *config);

/* placement_score.c */

/* Fill each signal's joining-player values from the player's jsonb. */
extern void mm_place_read_player(PlaceConfig *pc, Jsonb *player);

/* One signal's score in [0, 1] for one server. */
extern double mm_place_score_signal(const Signal *s, ServerRow *row);

#endif							/* MM_PLACEMENT_H */
