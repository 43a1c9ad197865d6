#!/usr/bin/env python3
"""Fuzz every function of schema mm, as read from pg_proc.

Each call runs in its own statement under statement_timeout. Three passes:

  random     calls with arguments drawn at random from per-type lists of bad
             values (NULL, NaN, +-Infinity, +-1e308, -0, empty / NULL-element
             / 2-D / non-1-lower-bound / huge arrays, odd jsonb, extreme
             intervals and timestamps, control characters, unknown ids)
             mixed with plain good values, each in a subtransaction that is
             always rolled back (fuzz.call raises after a success);
  targeted   every function a role may call (not the internal ones, whose
             callers are mm's own), every argument, every hostile value of its
             type -- control characters (one, a newline, 1,900 of them, a C1
             control; in names and in jsonb keys), 10^6-element arrays and a
             10^5-key object, NaN, +-Infinity, +-1e308, unknown ids -- with
             plain values for the other arguments; rolled back too;
  stateful   the calls a service, an admin or an analyst makes on queues
             (enqueue, update_roster, leave, tick, claim, accept, decline,
             backfill, report, abandon, dishonor, purge, alter_queue...) with
             hostile and plain values, each kept when it succeeds; then every
             target queue must still tick, and match fresh players.

The suite fails on a lost connection (a backend crash), an XX-class error,
a call that ran far past its timeout (a hang: a loop that does not check
for interrupts), a raw constraint violation (a 23xxx error PostgreSQL
raised for one of mm's table constraints, where mm should have refused the
input with its own message), a result holding NaN or +-Infinity, and a
queue that stopped ticking or matching after the stateful pass; it prints
each count. The seed is printed: MM_FUZZ_SEED=... replays a run,
MM_FUZZ_CALLS sets the number of random calls and MM_FUZZ_PASSES the passes
to run (a developer's shortcut: 'stateful' alone, say). Only the Python standard
library and psql are used.
"""
import os
import random
import re
import subprocess
import sys
import time

TIMEOUT_MS = 500
# A call that returns this long after its statement_timeout did not honour it.
LATE_MS = 5000
# The stateful pass: calls kept.
STATEFUL_CALLS = 1500

# Known failures in code other work owns, so that the suite stays honest
# about everything else: (function, kind of failure) -> who fixes it. Only
# that kind of failure of that function is let through, and it is still
# printed. Empty this list when they are fixed.
KNOWN_ELSEWHERE = {
}

# Control characters: one, a newline, 1,900 of them (11,402 bytes escaped
# in JSON: a queue named so broke NOTIFY's limit), a C1 control (U+0085).
CONTROL = [r"E'\x01'", r"E'a\nb'", r"repeat(E'\x01', 1900)", r"E'x\u0085'"]
# and in jsonb: an attribute, a rule, a region and a team named with them
CONTROL_JSONB = [r"""'{"attributes": {"mo\nde": {"type": "string"}}}'""",
                 r"""'{"rules": [{"type": "latency", "name": "la\u0001t", "max": 50}]}'""",
                 r"""'{"team_names": ["re\u0085d", "blue"]}'""", r"""'{"e\nu": 20}'"""]

GOOD = {
    'double precision': ['0', '1', '0.5', '25', '8.333', '1500', '350', '0.06', '-3', '2'],
    'integer': ['1', '2', '3', '5', '10', '0'],
    'bigint': ['1', '2', '7', '42', '1000'],
    'boolean': ['true', 'false'],
    'text': ["'plackett_luce'", "'q'", "'p'", "'pool'", "'a'", "'eu'",
             "'SELECT 1 AS match_id, 1::bigint AS player_id, 1 AS team, 1 AS rank'"],
    'jsonb': ["'{}'", "'{\"a\": 1}'", "'{\"region\": \"eu\"}'"],
    'interval': ["'10 seconds'", "'1 minute'", "'1 day'"],
    'timestamp with time zone': ["'2026-01-01 00:00:00+00'", 'now()'],
    'double precision[]': ["'{1,2}'", "'{25,25}'", "'{8,8}'", "'{1,0,0.5}'", "'{1500,1600}'"],
    'integer[]': ["'{1,2}'", "'{1,1,2,2}'", "'{1,2,3}'"],
    'bigint[]': ["'{1,2}'", "'{7}'", "'{1,2,3,4}'"],
    'text[]': ["'{a,b}'", "'{age,latency}'", "'{eu}'"],
    'mm.glicko': ["'(1500,350,0.06)'", "'(1700,50,0.05)'"],
}

BAD = {
    'double precision': ['NULL', "'NaN'", "'Infinity'", "'-Infinity'", '1e308', '-1e308',
                         "'-0'", '5e-324', '-1', '1e-300', '2147483648', '1e15'],
    'integer': ['NULL', '-1', '2147483647', '-2147483648', '0', '1000000000', '999999'],
    'bigint': ['NULL', '-1', '9223372036854775807', '-9223372036854775808', '0', '999999999'],
    'boolean': ['NULL'],
    'text': ['NULL', "''", "'x'", "repeat('x', 10000)", "'show all'", "'explain select 1'",
             "'select 1'", "'with d as (delete from fuzz.victim returning 1) select 1'",
             "'\"; drop table fuzz.victim; --'", "'é'", "' plackett_luce '", "'1 second'",
             "'select NULL::bigint, NULL::bigint, NULL::float8, NULL::timestamptz'"] + CONTROL,
    'jsonb': ['NULL', "'[]'", "'null'", "'1'", "'\"x\"'", "'{\"\": 1}'", "'{\"a\": null}'",
              "'{\"weight\": 1e308}'", "'[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]'",
              "'{\"signals\": {\"x\": {\"kind\": \"numeric\", \"weight\": 1e308}}}'",
              "'{\"signals\": {\"age\": {\"weight\": 1.7e308}, \"latency\": {\"weight\": 1.7e308}}}'",
              "'{\"config\": {}, \"teams\": []}'", "'{\"teams\": [[{\"playerId\": \"a\"}], [{\"playerId\": \"a\"}]]}'",
              "'{\"max_beta\": -1}'", "'{\"period\": \"-1 day\"}'", "'{\"a\": 1e-320}'",
              "'{\"rating\": 1e308, \"deviation\": 1e308}'"] + CONTROL_JSONB,
    'interval': ['NULL', "'0'", "'-1 second'", "'1 microsecond'", "'1000000 years'",
                 "'-178000000 years'", "'1 month'", "'178000000 years'"],
    'timestamp with time zone': ['NULL', "'infinity'", "'-infinity'", "'4713-01-01 00:00:00+00 BC'",
                                 "'294276-12-31 00:00:00+00'"],
    'double precision[]': ['NULL', "'{}'", "'{NULL}'", "'{{1,2},{3,4}}'", "'[0:1]={1,2}'",
                           "'{NaN}'", "'{Infinity,1}'", "'{1e308,-1e308}'", "'{-1,-2}'",
                           "'{0,0}'", "'{-0}'",
                           "ARRAY(SELECT (i % 7)::float8 FROM generate_series(1, 100000) i)"],
    'integer[]': ['NULL', "'{}'", "'{NULL}'", "'{{1},{2}}'", "'[0:1]={1,2}'", "'{1,1}'",
                  "'{2147483647,-2147483648}'",
                  "ARRAY(SELECT i FROM generate_series(1, 100000) i)"],
    'bigint[]': ['NULL', "'{}'", "'{NULL}'", "'{{1},{2}}'", "'[0:1]={1,2}'", "'{7,7}'",
                 "'{-1}'", "ARRAY(SELECT i::bigint FROM generate_series(1, 100000) i)"],
    'text[]': ['NULL', "'{}'", "'{NULL}'", "'{{a},{b}}'", "'[0:1]={a,b}'", "'{\"\"}'",
               "'{a,a}'", "ARRAY(SELECT i::text FROM generate_series(1, 100000) i)"],
    'mm.glicko': ['NULL', "'(,,)'", "'(NaN,1,1)'", "'(1e308,1e308,1e308)'", "'(1500,-1,0.06)'",
                  "'(1500,0,0)'", "'(Infinity,350,0.06)'", "'(1500,1e-300,1e-300)'"],
}


# Live ids of the fixtures (test/fuzz/setup.sql), read when the call runs:
# calls on the matches, rosters and players that exist, as a backend makes.
LIVE_IDS = ["(SELECT max(match_id) FROM mm.match)",
            "(SELECT min(match_id) FROM mm.match WHERE status = 'proposed')",
            "(SELECT max(match_id) FROM mm.match WHERE status = 'matched')",
            "(SELECT max(roster_id) FROM mm.roster)",
            "(SELECT min(roster_id) FROM mm.roster WHERE match_id IS NULL)",
            "(SELECT min(player_id) FROM mm.queued_player)",
            "(SELECT max(player_id) FROM mm.queued_player)",
            "(SELECT max(backfill_id) FROM mm.backfill)"]
GOOD['bigint'] = GOOD['bigint'] + LIVE_IDS
GOOD['text'] = GOOD['text'] + ["'fz_duel'", "'fz_rules'", "'fz_ready'", "'fz_party'", "'red'", "'blue'"]
GOOD['jsonb'] = GOOD['jsonb'] + [
    """'{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}'""",
    """'{"mode": "ranked"}'""", """'{"eu": 20, "us": 80}'"""]
GOOD['text[]'] = GOOD['text[]'] + ["'{tank}'", "'{damage}'", "'{tank,damage}'"]

# The hostile values of the targeted pass, per type: each one given to
# every argument of that type of every function.
HOSTILE = {
    'double precision': ["'NaN'", "'Infinity'", "'-Infinity'", '1e308', '-1e308'],
    'integer': ['2147483647', '-2147483648', '999999'],
    'bigint': ['999999999', '-1', '9223372036854775807'],
    'text': CONTROL,
    'name': CONTROL,
    'jsonb': CONTROL_JSONB + [
        """'{"teams": {"red": {"rank": 1e308, "score": 1e308}, "blue": {"rank": -1e308}}}'""",
        """'{"rank": 1e308, "weight": 1e308, "rating": -1e308, "max": 1e308}'""",
        "(SELECT j FROM fuzz.big)"],
    'double precision[]': ['(SELECT f FROM fuzz.big)', "'{NaN}'", "'{Infinity,-Infinity}'", "'{1e308,-1e308}'"],
    'integer[]': ['(SELECT i FROM fuzz.big)', "'{2147483647,-2147483648}'"],
    'bigint[]': ['(SELECT b FROM fuzz.big)', "'{999999999}'", "'{9223372036854775807}'"],
    'text[]': ['(SELECT t FROM fuzz.big)', r"ARRAY[E'a\nb']", r"ARRAY[repeat(E'\x01', 1900)]"],
    'jsonb[]': [r"""ARRAY['{"mo\nde": 1}'::jsonb]"""],
    'interval': ["'178000000 years'", "'-1 second'"],
    'timestamp with time zone': ["'infinity'", "'-infinity'"],
    'mm.glicko': ["'(NaN,1,1)'", "'(1e308,1e308,1e308)'", "'(Infinity,350,0.06)'"],
    'mm.rating': ["'(NaN,1)'", "'(1e308,1e308)'"],
}

POLY_TYPES = {
    'integer': GOOD['integer'] + BAD['integer'],
    'text': GOOD['text'][:5] + ["''", 'NULL'],
}

SKIP_TYPES = {'internal', 'trigger', 'event_trigger'}

# The stateful pass: what a service, an admin or an analyst calls on a
# queue, each call kept. A queue argument is one of the target queues (the
# config changes go to fz_alter); mm.drop_queue and mm.run_ticks (which
# needs a transaction of its own) are left out.
STATEFUL = {'enqueue', 'update_roster', 'leave', 'leave_player', 'remove_player', 'tick', 'preview',
            'claim_matches', 'accept', 'decline', 'request_backfill', 'cancel_backfill', 'report_result',
            'abandon_match', 'dishonor', 'dishonor_clear', 'purge', 'alter_queue', 'match_players',
            'open_matches', 'explain', 'estimate_wait', 'estimate_roster_wait', 'ticket_status',
            'roster_status', 'list_queue', 'close_rating_period', 'roster_rating'}
QUEUES = ["'fz_duel'", "'fz_rules'", "'fz_ready'", "'fz_party'"]
# the queue-id forms (Citus routes them): the target queues' ids
QUEUE_IDS = ["(SELECT queue_id FROM mm.queue WHERE name = %s AND dropped_at IS NULL)" % q for q in QUEUES]
# roster values a service sends, hostile among them
STATE_VALUES = {
    'double precision': ['1500', '1400', '1600', '50', '0', '25', "'NaN'", '1e308', '-1e308', '1e9', '-1e9'],
    'jsonb': ["""'{"mode": "ranked"}'""", """'{"eu": 20}'""", """'{"eu": 20, "us": 90}'""", "'{}'",
              """'{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}'""",
              """'{"teams": {"red": {"rank": 2}, "blue": {"rank": 1}}, "desertions": [101]}'""",
              """'{"teams": {"red": {"rank": 1, "score": 1e308}, "blue": {"rank": 2, "score": -1e308}}}'""",
              """'{"team_size": 1}'""", """'{"team_size": 3, "accept_timeout": 30}'""",
              """'{"rules": [{"type": "latency", "max": 50}]}'"""] + CONTROL_JSONB,
    'bigint[]': ["ARRAY[(SELECT coalesce(max(player_id), 0) + 1 FROM mm.queued_player)]",
                 "ARRAY[(SELECT coalesce(max(player_id), 0) + 1 FROM mm.queued_player), "
                 "(SELECT coalesce(max(player_id), 0) + 2 FROM mm.queued_player)]",
                 "'{101}'", "'{999999999}'", "(SELECT b FROM fuzz.big)"],
    'text[]': ["'{tank}'", "'{damage}'", "'{}'", "'{tank,damage}'"] + ["ARRAY[%s]" % c for c in CONTROL[:2]],
    'integer': ['1', '2', '3', '2147483647', '0', '-1'],
    'interval': ["'0 seconds'", "'1 day'", "'30 days'"],
}


def psql(sql, *args):
    out = subprocess.run(['psql', '-X', '-At', '-F', '\t', '-v', 'ON_ERROR_STOP=1', *args, '-c', sql],
                         capture_output=True, text=True, check=True)
    return out.stdout


def functions():
    rows = psql("""
        SELECT p.oid, p.proname, p.prokind,
               pg_catalog.format_type(p.prorettype, NULL), p.proretset,
               coalesce(array_to_string(ARRAY(SELECT pg_catalog.format_type(t, NULL)
                                              FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, i)
                                              ORDER BY i), '|'), ''),
               p.provariadic <> 0,
               coalesce(array_to_string(p.proargnames, '|'), ''), p.pronargdefaults
        FROM pg_catalog.pg_proc p
        WHERE p.pronamespace = 'mm'::regnamespace
        ORDER BY p.proname, p.oid""")
    fns = []
    for line in rows.splitlines():
        oid, name, kind, rettype, retset, args, variadic, argnames, ndefaults = line.split('\t')
        argtypes = args.split('|') if args else []
        if rettype in SKIP_TYPES or any(t in SKIP_TYPES for t in argtypes):
            continue
        fns.append(dict(oid=oid, name=name, kind=kind, rettype=rettype, retset=retset == 't',
                        args=argtypes, variadic=variadic == 't',
                        argnames=argnames.split('|') if argnames else [], ndefaults=int(ndefaults)))
    return fns


def value(rng, typ, poly):
    if typ in ('anyelement', 'anynonarray', 'anycompatible'):
        return '(%s)::%s' % (rng.choice(POLY_TYPES[poly]), poly)
    good = GOOD.get(typ, [])
    bad = BAD.get(typ, ['NULL'])
    if good and rng.random() < 0.55:
        v = rng.choice(good)
    else:
        v = rng.choice(bad)
    return '(%s)::%s' % (v, typ)


def good_value(rng, typ, poly):
    if typ in ('anyelement', 'anynonarray', 'anycompatible'):
        return '(%s)::%s' % (rng.choice(GOOD[poly]), poly)
    good = GOOD.get(typ)
    return '(%s)::%s' % (rng.choice(good) if good else 'NULL', typ)


# The ids a stateful call names, by argument name: the fixtures' live rows
# mostly, an unknown id sometimes.
STATE_IDS = {
    'match_id': ["(SELECT max(match_id) FROM mm.match)",
                 "(SELECT max(match_id) FROM mm.match WHERE status = 'proposed')",
                 "(SELECT max(match_id) FROM mm.match WHERE status = 'matched')",
                 "(SELECT min(match_id) FROM mm.match WHERE status = 'matched' AND delivered_at IS NOT NULL)",
                 "(SELECT max(match_id) FROM mm.match WHERE status IN ('finished', 'dissolved'))",
                 "(SELECT match_id FROM mm.match ORDER BY random() LIMIT 1)", '999999999'],
    'roster_id': ["(SELECT max(roster_id) FROM mm.roster WHERE match_id IS NULL)",
                  "(SELECT roster_id FROM mm.roster ORDER BY random() LIMIT 1)", '999999999'],
    'player_id': ["(SELECT player_id FROM mm.queued_player ORDER BY random() LIMIT 1)",
                  "(SELECT max(player_id) FROM mm.queued_player)", '999999999'],
    'backfill_id': ["(SELECT max(backfill_id) FROM mm.backfill)", '999999999'],
}
# how often each stateful call comes: the backend's loop most
STATE_WEIGHTS = {'enqueue': 8, 'tick': 6, 'claim_matches': 3, 'accept': 3, 'decline': 1, 'request_backfill': 3,
                 'report_result': 3, 'abandon_match': 2, 'update_roster': 2, 'leave': 1, 'remove_player': 1,
                 'alter_queue': 2}


def state_value(rng, fn, i, typ, poly):
    name = fn['argnames'][i] if i < len(fn['argnames']) else ''
    if typ == 'text' and name in ('queue', 'name'):
        return '(%s)::text' % ("'fz_alter'" if fn['name'] == 'alter_queue' else rng.choice(QUEUES))
    if typ == 'integer' and name == 'queue_id':
        return '(%s)::int' % rng.choice(QUEUE_IDS)
    if typ == 'bigint' and name in STATE_IDS:
        return '(%s)::bigint' % rng.choice(STATE_IDS[name])
    if typ == 'bigint[]' and name == 'match_ids':
        return 'ARRAY[%s]::bigint[]' % rng.choice(STATE_IDS['match_id'])
    if typ == 'text' and name == 'team':
        return '(%s)::text' % rng.choice(["'red'", "'blue'", "'red'", r"E'r\ned'"])
    if typ == 'text' and name == 'reason':
        return '(%s)::text' % rng.choice(["'abandon'", "'queue_dodge'", r"E'x\x01'"])
    if typ == 'timestamp with time zone':
        return '(%s)::timestamptz' % rng.choice(['now()', 'now()', "now() + interval '1 minute'", "'infinity'"])
    if rng.random() < 0.75 and typ in STATE_VALUES:
        return '(%s)::%s' % (rng.choice(STATE_VALUES[typ]), typ)
    if rng.random() < 0.6:
        return good_value(rng, typ, poly)
    return value(rng, typ, poly)


def scenario(rng):
    """An adversary's sequence on one queue: rosters with hostile numbers
    matched, then a backfill of their match, then ticks."""
    q = rng.choice(["'fz_duel'", "'fz_party'"])
    h = [rng.choice(["1e308", "-1e308", "1e9", "'NaN'", "0", "2147483647"]) for _ in range(3)]
    fresh = "ARRAY[(SELECT coalesce(max(player_id), 0) + 1 FROM mm.queued_player)]"
    if q == "'fz_party'":
        # parties: a team's figures sum their players'
        fresh = ("ARRAY[(SELECT coalesce(max(player_id), 0) + 1 FROM mm.queued_player), "
                 "(SELECT coalesce(max(player_id), 0) + 2 FROM mm.queued_player)]")
    newest = ("(SELECT max(m.match_id) FROM mm.match m JOIN mm.queue x USING (queue_id) "
              "WHERE x.name = %s AND m.status = 'matched')" % q)
    steps = ["SELECT mm.enqueue(%s, %s, 1500, 50, rank => %s, ladder_points => %s)::text" % (q, fresh, h[0], h[1]),
             "SELECT mm.enqueue(%s, %s, 1500, 50, rank => %s)::text" % (q, fresh, h[2]),
             "SELECT count(*)::text FROM mm.tick(%s)" % q,
             "SELECT mm.request_backfill(%s, %s, 1)::text" % (newest, rng.choice(["'red'", "'blue'"])),
             "SELECT mm.enqueue(%s, %s, 1500, 50)::text" % (q, fresh),
             "SELECT count(*)::text FROM mm.tick(%s)" % q]
    names = ['enqueue', 'enqueue', 'tick', 'request_backfill', 'enqueue', 'tick']
    return [(dict(name='scenario: ' + n), st) for n, st in zip(names, steps)]


def call_sql(fn, argv):
    args = list(argv)
    if fn['variadic'] and args:
        args[-1] = 'VARIADIC ' + args[-1]
    target = 'mm.%s(%s)' % (fn['name'], ', '.join(args))
    if fn['kind'] == 'p':
        return 'CALL ' + target
    if fn['kind'] == 'a':
        return 'SELECT (SELECT %s)::text' % target
    return 'SELECT string_agg(x::text, \' | \') FROM %s AS x' % target


def literal(s):
    return '$fuzz$' + s + '$fuzz$'


def run(script, timeout):
    """Run a psql script; its stdout (lines of fuzz.call) and stderr."""
    try:
        proc = subprocess.run(['psql', '-X', '-At', '-v', 'ON_ERROR_STOP=0'],
                              input='\n'.join(script) + '\n', capture_output=True,
                              text=True, timeout=timeout)
        return proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b'').decode() if isinstance(e.stdout, bytes) else (e.stdout or '')
        return out, 'the run did not finish in %d s' % timeout


CRASHED = re.compile(r'server closed the connection|connection to server was lost|terminated abnormally|no connection to the server')


def internal(fn):
    """An internal function: callable by no role but the owner and mm's definer functions.

    Only a crash, an XX000 or a non-finite result of one counts: a hang or a
    raw constraint violation needs an argument no caller of it passes."""
    return fn.get('name', '').startswith('_')


RAW_CONSTRAINT = re.compile(r'violates (check|unique|foreign key|not-null|exclusion) constraint|duplicate key value')


def judge(calls, out, err, counts, failures):
    """Read fuzz.call's lines: count the calls, collect the failures."""
    seen = set()
    for line in out.splitlines():
        parts = line.split('\t', 4)
        if len(parts) < 5 or not parts[0].isdigit():
            continue
        i, status, ms, state, text = int(parts[0]), parts[1], float(parts[2]), parts[3], parts[4]
        seen.add(i)
        counts[status] = counts.get(status, 0) + 1
        fn, sql = calls[i]
        what = None
        if status == 'err' and state.startswith('XX'):
            what, kind = 'internal error: %s %s' % (state, text[:300]), 'xx000'
        elif ms > TIMEOUT_MS + LATE_MS and not internal(fn):
            what, kind = 'timeout not honoured (a hang): ran %.0f ms under a %d ms statement_timeout' % (ms, TIMEOUT_MS), 'hang'
        elif status == 'err' and state.startswith('23') and RAW_CONSTRAINT.search(text) and not internal(fn):
            what, kind = 'raw constraint violation: %s %s' % (state, text[:300]), 'constraint'
        elif status == 'ok' and re.search(r'NaN|Infinity', text):
            what, kind = 'non-finite result: %s' % text[:300], 'nonfinite'
        elif (status == 'err' and fn.get('name') in ('tick', 'scenario: tick')
              and state not in ('22023', '22004', '42704', '57014')):
            # a tick of a queue never fails but for a bad argument: the queue stopped
            what, kind = 'a tick failed (the queue stopped): %s %s' % (state, text[:300]), 'stopped'
        if what:
            known = KNOWN_ELSEWHERE.get((fn['name'], what.split(' (')[0].split(':')[0]))
            failures.append((fn['name'], what, sql, known, kind))
    missing = [i for i in range(len(calls)) if i not in seen]
    crashed = bool(CRASHED.search(err)) or 'did not finish' in err
    if missing and crashed:
        i = missing[0]
        failures.append((calls[i][0]['name'],
                         'connection lost: the server crashed or the run stopped (%s)' % err.strip()[-300:],
                         calls[i][1], None, 'crash'))
    elif missing:
        # the session lives on: a cancel that reached fuzz.call's own handler
        counts['timeout'] = counts.get('timeout', 0) + len(missing)
    return not crashed


def main():
    seed = int(os.environ.get('MM_FUZZ_SEED') or random.SystemRandom().randrange(1, 2**31))
    ncalls = int(os.environ.get('MM_FUZZ_CALLS') or 2000)
    print('# fuzz seed %d (replay with MM_FUZZ_SEED=%d), %d random calls' % (seed, seed, ncalls))
    rng = random.Random(seed)
    fns = functions()
    passes = []
    wanted = (os.environ.get('MM_FUZZ_PASSES') or 'random targeted stateful').split()
    if os.environ.get('MM_FUZZ_SELFTEST'):
        # calls that must be reported: the harness itself is tested
        fns = []
        calls = []
        for name, sql in (('selftest_nan', 'SELECT fuzz.selftest_nan()::text'),
                          ('selftest_xx000', 'SELECT fuzz.selftest_xx000()::text'),
                          ('selftest_constraint', 'SELECT fuzz.selftest_constraint()::text'),
                          ('selftest_crash', 'SELECT pg_terminate_backend(pg_backend_pid())::text')):
            calls.append((dict(name=name), sql))
        passes.append(('self-test', calls, False))
    else:
        # random: every function at least once, then random functions
        order = fns + [rng.choice(fns) for _ in range(max(0, ncalls - len(fns)))]
        calls = []
        for fn in order:
            poly = rng.choice(sorted(POLY_TYPES))
            calls.append((fn, call_sql(fn, [value(rng, t, poly) for t in fn['args']])))
        passes.append(('random', calls, False))
        # targeted: each hostile value of each argument's type, the other
        # arguments plain
        calls = []
        for fn in fns:
            if internal(fn):
                continue
            poly = rng.choice(sorted(POLY_TYPES))
            for i, t in enumerate(fn['args']):
                for v in HOSTILE.get(t, []):
                    argv = [good_value(rng, u, poly) for u in fn['args']]
                    argv[i] = '(%s)::%s' % (v, t)
                    calls.append((fn, call_sql(fn, argv)))
        passes.append(('targeted', calls, False))
        # stateful: kept
        pool = [fn for fn in fns if fn['name'] in STATEFUL]
        weights = [STATE_WEIGHTS.get(fn['name'], 1) for fn in pool]
        calls = []
        for _ in range(STATEFUL_CALLS):
            fn = rng.choices(pool, weights)[0]
            poly = rng.choice(sorted(POLY_TYPES))
            # the arguments a caller must give, and some of those with a
            # default, by name (as a backend calls mm.enqueue)
            nreq = len(fn['args']) - fn['ndefaults']
            argv = [state_value(rng, fn, i, t, poly) for i, t in enumerate(fn['args'][:nreq])]
            for i in range(nreq, len(fn['args'])):
                if rng.random() < 0.3 and i < len(fn['argnames']) and not fn['variadic']:
                    argv.append('%s => %s' % (fn['argnames'][i], state_value(rng, fn, i, fn['args'][i], poly)))
            calls.append((fn, call_sql(fn, argv)))
            # now and then an adversary's sequence: hostile numbers queued,
            # matched, a backfill asked of their match, ticked again
            if rng.random() < 0.05:
                calls.extend(scenario(rng))
        passes.append(('stateful', calls, True))

    failures = []
    total = 0
    alive = True
    for label, calls, keep in passes:
        if not alive:
            break
        if label != 'self-test' and label not in wanted:
            continue
        counts = {'ok': 0, 'err': 0, 'timeout': 0}
        script = ['SET statement_timeout = %d;' % TIMEOUT_MS, 'SET client_min_messages = error;']
        for i, (fn, sql) in enumerate(calls):
            script.append('SELECT fuzz.call(%d, %s, %s);' % (i, literal(sql), 'true' if keep else 'false'))
        t0 = time.time()
        out, err = run(script, 240)
        alive = judge(calls, out, err, counts, failures)
        total += len(calls)
        print('# %s: %d calls in %.1f s: %d returned, %d errors, %d timeouts'
              % (label, len(calls), time.time() - t0, counts['ok'], counts['err'], counts['timeout']))

    # after the stateful pass every target queue still ticks and matches
    stopped = []
    if alive and not os.environ.get('MM_FUZZ_SELFTEST'):
        out, err = run(['SET statement_timeout = 10000;',
                        "SELECT q, fuzz.queue_check(q) FROM unnest(ARRAY['fz_duel', 'fz_rules', 'fz_ready', 'fz_party', 'fz_alter']) q;"],
                       120)
        checked = 0
        for line in out.splitlines():
            q, _, result = line.partition('|')
            if not result:
                continue
            checked += 1
            if result != 'ok':
                stopped.append((q, result))
        if checked < 5:
            stopped.append(('(check)', 'the queue check did not run: %s' % err.strip()[-300:]))
        print('# after the stateful pass: %d queues checked, %d stopped ticking or matching' % (checked, len(stopped)))
    elif os.environ.get('MM_FUZZ_SELFTEST'):
        out, err = run(["SELECT 'q', fuzz.queue_check('fz_broken');"], 60)
        for line in out.splitlines():
            q, _, result = line.partition('|')
            if result and result != 'ok':
                stopped.append(('fz_broken', result))

    tally = {k: 0 for k in ('crash', 'xx000', 'hang', 'constraint', 'nonfinite', 'stopped')}
    bad = 0
    reported = set()
    for name, what, sql, known, kind in failures:
        key = (name, what.split(':')[0])
        if key in reported:
            continue
        reported.add(key)
        if known:
            print('# known, owned elsewhere (%s): %s: %s' % (known, name, what))
            print('#   %s' % sql[:500])
            continue
        tally[kind] += 1
        bad += 1
        print('not ok - mm.%s: %s' % (name, what))
        print('#   %s' % sql[:2000])
    for q, result in stopped:
        bad += 1
        print('not ok - queue %s stopped: %s' % (q, result))
    print('# crashes %d, XX000s %d, hangs %d, raw constraint violations %d, non-finite results %d, '
          'queues that stopped ticking or matching %d'
          % (tally['crash'], tally['xx000'], tally['hang'], tally['constraint'], tally['nonfinite'],
             len(stopped) + tally['stopped']))
    if bad == 0:
        print('ok - %d fuzzed calls: no crash, no XX000, no hang, no raw constraint violation, no NaN or Infinity, '
              'every queue ticks and matches (seed %d)' % (total, seed))
    else:
        print('# replay with MM_FUZZ_SEED=%d' % seed)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
