/*-------------------------------------------------------------------------
 *
 * config.h
 *		The config spine: one declarative key table per kind of jsonb config
 *		(queue, pool, policy, dishonor, ladder, prediction) drives parsing,
 *		validation, defaults, rendering and mm.config_keys.
 *
 * A key table is a static const array of MmConfigKey ending with an entry
 * whose name is NULL. Each key says where its value lives in the kind's C
 * struct (offsetof), its type, range, default, unit and a one-line doc.
 * mm_config_defaults fills a struct with the defaults, mm_config_parse
 * reads a jsonb config over them (unknown keys, wrong types and values out
 * of range are refused here, with one set of messages), and
 * mm_config_render writes the complete config back as JSON text, numbers
 * in their shortest round-trip form. Adding a key is one row in its table
 * plus the code that uses the value.
 *
 * Durations (MM_CONFIG_DURATION) have one meaning everywhere: a JSON number
 * of seconds, or a string read as an interval of days, hours, minutes and
 * seconds ("15m", "3 days", "00:30:00"). Months and years are refused
 * (their length varies), and so is a minus sign (IntervalStyle
 * sql_standard reads it differently), so a config means the same in every
 * session.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_CONFIG_H
#define MM_CONFIG_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

typedef enum MmConfigType
{
	MM_CONFIG_FLOAT,			/* double, finite, in [min, max] */
	MM_CONFIG_INT,				/* int, integral, in [min, max] */
	MM_CONFIG_BOOL,				/* bool */
	MM_CONFIG_TEXT,				/* char *, palloc'd */
	MM_CONFIG_DURATION,			/* MmDuration, seconds in [min, max] */
	MM_CONFIG_OBJECT,			/* a nested object: keys */
	MM_CONFIG_CUSTOM			/* read and written by the key's callbacks */
} MmConfigType;

/* Flags of a key. */
#define MM_CONFIG_NULLABLE		0x01	/* JSON null allowed: sets the bool at
										 * null_offset */
#define MM_CONFIG_MIN_EXCLUSIVE 0x02	/* value must be > min, not >= */
#define MM_CONFIG_GIVEN			0x04	/* set the bool at given_offset when
										 * the config gives the key */

/* A duration value: seconds, and the text it was given as (NULL: a number). */
typedef struct MmDuration
{
	double		seconds;
	char	   *text;
} MmDuration;

struct MmConfigKey;

/*
 * A MM_CONFIG_CUSTOM key's callbacks (a free-form object or an array).
 * parse reads v into the struct at base (v NULL: set the default); render
 * appends the value's JSON; "what" and "path" name the key in messages.
 */
typedef void (*MmConfigParseFn) (JsonbValue *v, void *base, const char *what,
								 const char *path);
typedef void (*MmConfigRenderFn) (StringInfo buf, const void *base);

typedef struct MmConfigKey
{
	const char *name;			/* snake_case key; NULL ends the table */
	MmConfigType type;
	int			flags;			/* MM_CONFIG_* flags */
	size_t		offset;			/* of the value in the struct; OBJECT: of the
								 * struct its keys are relative to (0: the
								 * same struct) */
	size_t		null_offset;	/* NULLABLE: of its "is null" bool */
	size_t		given_offset;	/* GIVEN: of its "given" bool */
	double		min;			/* FLOAT, INT, DURATION (seconds) */
	double		max;
	double		def;			/* FLOAT, INT, BOOL (0/1), DURATION (seconds) */
	const char *def_text;		/* TEXT; DURATION given as text; NULL: def */
	bool		def_null;		/* NULLABLE: the default is null */
	const char *unit;			/* for mm.config_keys; NULL: none */
	const char *doc;			/* one line, for mm.config_keys */
	const struct MmConfigKey *keys; /* OBJECT: its keys */
	MmConfigParseFn parse;		/* CUSTOM */
	MmConfigRenderFn render;	/* CUSTOM */
} MmConfigKey;

/*
 * A kind of config: its name in mm.config_keys, its name in messages, its
 * key table, the size of its C struct, and the checks between keys that one
 * key's range cannot express (NULL: none).
 */
typedef struct MmConfigKind
{
	const char *kind;
	const char *what;
	const MmConfigKey *keys;
	size_t		size;
	void		(*check) (void *base, const char *what);
} MmConfigKind;

/* The kinds, each defined in its feature's file; config.c lists them. */
extern const MmConfigKind mm_queue_config_kind;
extern const MmConfigKind mm_pool_config_kind;
extern const MmConfigKind mm_policy_config_kind;
extern const MmConfigKind mm_dishonor_config_kind;
extern const MmConfigKind mm_ladder_config_kind;
extern const MmConfigKind mm_prediction_config_kind;
extern const MmConfigKind mm_rate_config_kind;
extern const MmConfigKind mm_place_config_kind;

/* Each rating family's "rating.options", a kind "<family>_options". */
extern const MmConfigKind mm_openskill_options_kind;
extern const MmConfigKind mm_glicko2_options_kind;
extern const MmConfigKind mm_elo_options_kind;

/*
 * Read a config of a kind into the struct at base (kind->size bytes):
 * defaults, then the config's keys (NULL: defaults only), then the kind's
 * checks.
 */
extern void mm_config_read(const MmConfigKind *kind, Jsonb *config, void *base);

/* Fill the struct at base with the keys' defaults (nested objects too). */
extern void mm_config_defaults(const MmConfigKey *keys, void *base);

/*
 * Read a jsonb config over the struct at base, which holds the defaults.
 * "what" names the config in messages ("queue config"). A NULL config
 * changes nothing; a config that is not an object is refused.
 */
extern void mm_config_parse(Jsonb *config, const char *what,
							const MmConfigKey *keys, void *base);

/* Same for a JSON object value (binary container); "path" its key, or NULL. */
extern void mm_config_parse_value(JsonbValue *v, const char *what,
								  const char *path, const MmConfigKey *keys,
								  void *base);

/* Append the complete config at base as a JSON object. */
extern void mm_config_render(StringInfo buf, const MmConfigKey *keys,
							 const void *base);

/* The complete config at base as jsonb. */
extern Jsonb *mm_config_jsonb(const MmConfigKey *keys, const void *base);

/* Append a float8 in its shortest round-trip form (finite values only). */
extern void mm_append_float8(StringInfo buf, double value);

/*
 * Read a duration (a JSON number of seconds or an interval text) into *out;
 * "what" and "path" name the key in messages. Refuses months, years, a
 * minus sign and non-finite values; the caller checks the range.
 */
extern void mm_duration_parse(JsonbValue *v, const char *what,
							  const char *path, MmDuration *out);

/*
 * Read a config key's text with a type's input function (timestamptz_in);
 * its errors name the key in their context.
 */
extern Datum mm_config_input(PGFunction input, const char *text,
							 const char *what, const char *key);

/*
 * Seconds in an interval argument, as EXTRACT(EPOCH FROM interval) counts
 * them: a month 30 days, a year 365.25 days. (Durations in configs refuse
 * months and years instead: see mm_duration_parse.)
 */
extern double mm_interval_seconds(const Interval *iv);

/*
 * Refuse a name a config key gives (a rating key, a dishonor reason) that
 * breaks the rule of every name (mm_check_name: 1 to 63 bytes, no control
 * characters), so that it fits any key or payload that carries it. "what"
 * names the config, "key" the key.
 */
extern void mm_config_check_name(const char *what, const char *key, const char *value);

/* Value of key "name" of an object container; NULL if absent or no object. */
extern JsonbValue *mm_jsonb_object_get(JsonbContainer *container,
									   const char *name);

#endif							/* MM_CONFIG_H */
