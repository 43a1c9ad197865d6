# mm: PGXS build, plus the commands the README names (test, demo, bench, stop).

EXTENSION   = mm
EXTVERSION  = $(shell sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" mm.control)

MODULE_big  = mm
PGFILEDESC  = "mm - game matchmaking and skill rating"
OBJS        = \
	src/async.o \
	src/backfill.o \
	src/calibration.o \
	src/config.o \
	src/glicko2_math.o \
	src/glicko2_model.o \
	src/glicko2_period.o \
	src/glicko2_policy.o \
	src/glicko2_replay.o \
	src/glicko2_sql.o \
	src/gw2_dishonor.o \
	src/gw2_ladder.o \
	src/gw2_prediction.o \
	src/matcher.o \
	src/mm.o \
	src/musigma.o \
	src/openskill.o \
	src/openskill_ims.o \
	src/openskill_model.o \
	src/openskill_replay.o \
	src/openskill_sql.o \
	src/placement.o \
	src/queue.o \
	src/rating_model.o \
	src/rating_replay.o \
	src/ready.o \
	src/replay.o \
	src/results.o \
	src/signals.o \
	src/tick.o

SQL_PARTS   = $(sort $(wildcard sql/parts/*.sql))
DATA_built  = sql/mm--$(EXTVERSION).sql
# Released install scripts are frozen as they shipped; upgrade scripts carry
# every later change (sql/mm--A--B.sql).
RELEASED    = sql/mm--0.1.0.sql
DATA        = $(RELEASED) $(wildcard sql/mm--*--*.sql)

# pg_regress: every test/sql/*.sql, expected output in expected/.
REGRESS      = $(basename $(notdir $(sort $(wildcard test/sql/*.sql))))
REGRESS_OPTS = --inputdir=test --load-extension=mm

# isolationtester: every test/isolation/specs/*.spec.
ISOLATION      = $(basename $(notdir $(sort $(wildcard test/isolation/specs/*.spec))))
ISOLATION_OPTS = --inputdir=test/isolation --outputdir=output_iso --load-extension=mm

# Warnings on, but not fatal: packagers build with other compilers. The
# project's own test build (test/cluster.sh build) adds COPT=-Werror, the
# switch PostgreSQL's own makefiles use for that. MM_EXTRA_CFLAGS and
# MM_EXTRA_LDFLAGS add a sanitizer for make test-long.
PG_CFLAGS   = -Wall -Wextra $(MM_EXTRA_CFLAGS)
# Server headers as system headers: their unused parameters are not ours.
# MM_VERSION ties the library to the SQL objects of the same version.
PG_CPPFLAGS = -isystem $(shell $(PG_CONFIG) --includedir-server) -DMM_VERSION='"$(EXTVERSION)"'
SHLIB_LINK  = -lm $(MM_EXTRA_LDFLAGS)

EXTRA_CLEAN = results output_iso regression.diffs regression.out test/bench/out

PG_CONFIG  ?= /usr/lib/postgresql/15/bin/pg_config
PGXS       := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

sql/mm--$(EXTVERSION).sql: sql/mm.sql $(SQL_PARTS)
	cat $^ > $@

.PHONY: test test-long demo bench stop plots

# The README's test command: installs what is missing, builds, installs,
# runs every suite on a throwaway cluster, prints "N passed, N failed,
# N skipped".
test:
	PG_CONFIG=$(PG_CONFIG) bash test/run.sh

# Suites too slow for make test (CI runs them after it): mm built with
# UBSan into a private copy of PostgreSQL under the regression and fuzz
# suites, and a bounded sqlsmith run. Prints "N passed, N failed, N skipped".
test-long:
	PG_CONFIG=$(PG_CONFIG) bash test/long/run.sh

# Set up a cluster, show what mm does, leave the cluster running.
demo:
	PG_CONFIG=$(PG_CONFIG) bash test/demo.sh

# Run the benchmarks under test/bench/ and write a results table.
bench:
	PG_CONFIG=$(PG_CONFIG) bash test/bench/run.sh

# Regenerate the PNGs the docs show (docs/img/), on a throwaway cluster.
plots:
	PG_CONFIG=$(PG_CONFIG) bash test/plots.sh docs

# Stop the cluster that "make demo" left running.
stop:
	PG_CONFIG=$(PG_CONFIG) bash test/cluster.sh stop demo
