#!/usr/bin/env python3
"""The kept input is the same queue: random sequences of every queue
operation from several backends, with ticks from two backends that keep
their input (mm.keep_tick_input = always, and mm.run_ticks), with
mm.check_tick_input on: every tick that matches from a kept input first
compares it, roster by roster, with a fresh read of the tables under the
same snapshot, then its matches and failed targets with the matcher's over
that read, and fails the tick if either differs.

Between the ticks, worker sessions enqueue, leave, leave_player,
remove_player, update_roster (new regions too), accept and decline ready
checks, request backfills, report and abandon matches, and roll some of it
back; the queues' configs change. Ticks are rolled back, cancelled midway,
killed midway (the backend terminated), taken over by the other ticker or
by a tick that keeps nothing, and the server is restarted, cleanly and
after a crash (immediate shutdown: the unlogged change log is emptied).

Prints TAP lines. MM_TICK_INPUT_SEED replays a run, MM_TICK_INPUT_STEPS
sets its length. Needs PGHOST/PGPORT/PGUSER, PGDATABASE (a database with
mm), and for the restarts MM_PGCTL and MM_PGDATA (the server's pg_ctl
and data directory; without them the restarts are skipped, and said so).
"""
import os
import random
import re
import subprocess
import sys
import time

SEED = int(os.environ.get('MM_TICK_INPUT_SEED', random.randrange(1, 10**6)))
STEPS = int(os.environ.get('MM_TICK_INPUT_STEPS', '400'))
PGCTL = os.environ.get('MM_PGCTL')
PGDATA = os.environ.get('MM_PGDATA')
PGLOG = os.environ.get('MM_PGLOG', '/dev/null')
DB = os.environ['PGDATABASE']
rng = random.Random(SEED)

QUEUES = {
    # a plain queue, small teams: many matches a tick
    'plain': {'team_size': 2, 'filter': {'potentials_min': 1, 'limit': 600000, 'rosters': 20,
                                         'potentials_max': 30}},
    # rules: modes, latencies (regions), roles; its bits kept with the rosters
    'rules': {'team_size': 3, 'filter': {'potentials_min': 1, 'limit': 600000, 'rosters': 20},
              'attributes': {'mode': {'type': 'string', 'required': True}},
              'roles': ['tank', 'damage', 'support'],
              'rules': [{'type': 'equal', 'attribute': 'mode'},
                        {'type': 'latency', 'max': 80, 'expand': [{'after': 30, 'max': 200}]},
                        {'type': 'roles', 'counts': {'tank': 1, 'damage': 1},
                         'expand': [{'after': 20, 'flex': 3}]}]},
    # a ready check (dissolves give rosters back) and expiry
    'ready': {'team_size': 2, 'accept_timeout': 5, 'ticket_ttl': 120,
              'filter': {'potentials_min': 1, 'limit': 600000, 'rosters': 20}},
}
REGIONS = ['eu', 'us', 'asia']


def log(msg):
    print('# ' + msg, flush=True)


STATS_SQL = ("SELECT coalesce(sum(ticks), 0) || ' ' || coalesce(sum(reads), 0) || ' ' || "
             "coalesce(sum(changes), 0) FROM mm._kept_inputs()")


class Session:
    """A psql process kept open: one backend, commands in turn."""
    count = 0

    def __init__(self, name, settings=()):
        self.name = name
        self.settings = settings
        self.kept = [0, 0, 0]     # its backends' kept inputs: ticks, whole reads, changes read
        self.last = (0, 0, 0)
        self.open()

    def harvest(self):
        """Note this backend's kept inputs' figures (they end with the backend)."""
        try:
            self.last = tuple(int(x) for x in self.run(STATS_SQL).split())
        except (ConnectionError, ValueError):
            pass

    def open(self):
        self.kept = [a + b for a, b in zip(self.kept, self.last)]
        self.last = (0, 0, 0)
        self.p = subprocess.Popen(['psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=0', '-d', DB],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.pending = None
        for s in self.settings:
            self.run(s)
        self.pid = int(self.run('SELECT pg_backend_pid()').split()[-1])

    def send(self, sql):
        Session.count += 1
        self.pending = '__done_%d__' % Session.count
        try:
            self.p.stdin.write(sql.rstrip().rstrip(';') + ';\n\\echo ' + self.pending + '\n')
            self.p.stdin.flush()
        except BrokenPipeError:
            pass

    def wait(self):
        """The output up to the marker; None if the backend (and psql) went away."""
        out = []
        while True:
            line = self.p.stdout.readline()
            if line == '':
                self.p.wait()
                return None
            if line.strip() == self.pending:
                return ''.join(out)
            out.append(line)

    def run(self, sql):
        self.send(sql)
        out = self.wait()
        if out is None:
            raise ConnectionError('%s: the connection was lost' % self.name)
        return out

    def close(self):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        self.p.wait()


failures = []
counts = {}


def note(what):
    counts[what] = counts.get(what, 0) + 1


def check_output(where, out):
    if out is None:
        return
    for line in out.splitlines():
        if 'differs from its tables' in line or 'differ from those of its tables' in line:
            failures.append('%s: %s' % (where, line.strip()))
        elif re.search(r'\b(ERROR|WARNING):', line) and not expected_error(line):
            failures.append('%s: unexpected: %s' % (where, line.strip()))


def expected_error(line):
    """Errors a random workload runs into on purpose (and what a cancel says)."""
    return any(s in line for s in (
        'canceling statement', 'terminating connection', 'not waiting', 'is already queued',
        'already queued', 'not in a match', 'could not serialize', 'deadlock',
        'is not open', 'is in the ready check', 'is not finished', 'does not exist',
        'has no open seats', 'was queued at the same time', 'current transaction is aborted',
        'already', 'not proposed', 'must not', 'no longer', 'is finished', 'is not', 'cannot',
        'has ended'))


def party(n):
    base = rng.randrange(1, 4000)
    return [base * 10 + k for k in range(n)]


def enqueue_sql(queue):
    n = rng.choice([1, 1, 1, 2, 3][:QUEUES[queue]['team_size'] + 2])
    n = min(n, QUEUES[queue]['team_size'])
    players = party(n)
    rating = 1500 + rng.gauss(0, 150)
    extra = ''
    if queue == 'rules':
        lat = {r: rng.choice([20, 50, 90, 150, 250]) for r in rng.sample(REGIONS, rng.randrange(1, 4))}
        roles = [rng.choice(['tank', 'damage', 'support']) for _ in players]
        extra = (", attributes => '{\"mode\": \"%s\"}', latencies => '%s', roles => ARRAY[%s]"
                 % (rng.choice(['ctf', 'arena']), str(lat).replace("'", '"'),
                    ','.join("'%s'" % r for r in roles)))
        if rng.random() < 0.3:
            # the players' own latency limit, which the latency rule holds them to
            extra += ', max_latency => %d' % rng.choice([40, 60, 100, 160])
    wait = rng.randrange(0, 60)
    return ("SELECT mm.enqueue('%s', ARRAY[%s]::bigint[], %.1f, %d, joined_at => now() - interval '%d seconds'%s)"
            % (queue, ','.join(map(str, players)), rating, rng.randrange(10, 80), wait, extra))


def random_op():
    """One statement (or a short transaction) a worker runs."""
    q = rng.choice(list(QUEUES))
    kind = rng.choices(['enqueue', 'leave', 'leave_player', 'remove_player', 'update', 'accept',
                        'decline', 'backfill', 'report', 'abandon', 'rollback', 'block', 'unblock'],
                       [30, 6, 3, 3, 6, 6, 2, 2, 4, 2, 4, 6, 3])[0]
    note('op ' + kind)
    pick = ("(SELECT r.roster_id FROM mm.roster r JOIN mm.queue q USING (queue_id) WHERE q.name = '%s' "
            "AND r.match_id IS NULL ORDER BY random() LIMIT 1)" % q)
    if kind == 'enqueue':
        return enqueue_sql(q)
    if kind in ('block', 'unblock'):
        # between two waiting players of the queue: the queue does not change,
        # what may match does (now and then a block that runs out soon)
        two = ("(SELECT array_agg(p ORDER BY random()) FROM (SELECT qp.player_id AS p FROM mm.queued_player qp "
               "JOIN mm.queue q USING (queue_id) WHERE q.name = '%s' ORDER BY random() LIMIT 2) x)" % q)
        if kind == 'unblock':
            return ("SELECT mm.unblock(k.player_id, k.blocked_id) FROM (SELECT * FROM mm.player_block "
                    "ORDER BY random() LIMIT 1) k")
        until = ", now() + interval '%d seconds'" % rng.randrange(1, 5) if rng.random() < 0.3 else ''
        return ("SELECT mm.block(x.a[1], x.a[2]%s) FROM (SELECT %s AS a) x WHERE cardinality(x.a) = 2"
                % (until, two))
    if kind == 'leave':
        return 'SELECT mm.leave(%s)' % pick
    if kind == 'leave_player':
        return ('SELECT mm.leave_player((SELECT qp.player_id FROM mm.queued_player qp WHERE qp.roster_id = %s '
                'LIMIT 1))' % pick)
    if kind == 'remove_player':
        return ('SELECT mm.remove_player(x.roster_id, x.player_id) FROM (SELECT qp.roster_id, qp.player_id '
                'FROM mm.queued_player qp WHERE qp.roster_id = %s ORDER BY qp.seat DESC LIMIT 1) x' % pick)
    if kind == 'update':
        if q == 'rules' and rng.random() < 0.5:
            # latencies, now and then to a region no roster had yet
            region = rng.choice(REGIONS + ['oce-%d' % rng.randrange(3)])
            return ("SELECT mm.update_roster(%s, latencies => '{\"%s\": %d}')"
                    % (pick, region, rng.choice([30, 100, 300])))
        return 'SELECT mm.update_roster(%s, rating => %.1f)' % (pick, 1500 + rng.gauss(0, 200))
    if kind in ('accept', 'decline'):
        m = ("(SELECT m.match_id FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'ready' "
             "AND m.status = 'proposed' ORDER BY random() LIMIT 1)")
        return ('SELECT mm.%s(x.match_id, x.p) FROM (SELECT %s AS match_id) mm_m, '
                'LATERAL (SELECT mm_m.match_id, u.p FROM mm.match_roster mr, unnest(mr.players) u(p) '
                'WHERE mr.match_id = mm_m.match_id ORDER BY random() LIMIT %d) x'
                % (kind, m, 1 if kind == 'decline' else 3))
    open_match = ("(SELECT m.match_id FROM mm.match m WHERE m.status = 'matched' AND NOT EXISTS "
                  "(SELECT FROM mm.match_result r WHERE r.match_id = m.match_id) ORDER BY random() LIMIT 1)")
    if kind == 'backfill':
        return ("SELECT mm.request_backfill(x.id, 'red', 1) FROM (SELECT %s AS id) x WHERE x.id IS NOT NULL"
                % open_match)
    if kind == 'report':
        return ("SELECT count(*) FROM (SELECT %s AS id) x, mm.report_result(x.id, "
                "'{\"teams\": {\"red\": {\"rank\": 1}, \"blue\": {\"rank\": 2}}}') WHERE x.id IS NOT NULL"
                % open_match)
    if kind == 'abandon':
        return "SELECT mm.abandon_match(x.id) FROM (SELECT %s AS id) x WHERE x.id IS NOT NULL" % open_match
    # some of the above, rolled back
    return 'BEGIN;\n%s;\n%s;\nSELECT mm.leave(%s);\nROLLBACK' % (enqueue_sql(q), enqueue_sql(q), pick)


TICKER_SETTINGS = ('SET mm.check_tick_input = on', 'SET mm.keep_tick_input = always',
                   'SET client_min_messages = warning')


def tick_sql(queue, call=True):
    if call and rng.random() < 0.25:
        note('tick run_ticks')
        return "CALL mm.run_ticks('%s', '100 ms', '0 s')" % queue
    note('tick')
    return "SELECT count(*) FROM mm.tick('%s')" % queue


def restart(how):
    if not PGCTL or not PGDATA:
        note('restart skipped')
        return False
    cmd = [PGCTL, '-D', PGDATA, '-m', how, '-w', '-l', PGLOG, 'restart']
    if os.getuid() == 0:
        cmd = ['runuser', '-u', 'postgres', '--'] + cmd
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        failures.append('restart (%s) failed: %s' % (how, r.stdout.strip()))
    note('restart ' + how)
    return True


def main():
    print('# seed %d (MM_TICK_INPUT_SEED=%d replays), %d steps' % (SEED, SEED, STEPS), flush=True)
    setup = Session('setup')
    for name, cfg in QUEUES.items():
        setup.run("SELECT mm.create_queue('%s', '%s')" % (name, str(cfg).replace("'", '"')
                                                            .replace('True', 'true')))
    for _ in range(60):
        for name in QUEUES:
            check_output('fill', setup.run(enqueue_sql(name)))
    tickers = [Session('ticker A', TICKER_SETTINGS), Session('ticker B', TICKER_SETTINGS)]
    plain = Session('plain ticker', ('SET mm.keep_tick_input = off', 'SET client_min_messages = warning'))
    workers = [Session('worker %d' % i, ('SET client_min_messages = warning',)) for i in range(3)]
    control = Session('control')
    current = 0
    restarts = ['fast', 'immediate']

    def reopen_all():
        for s in tickers + [plain, control] + workers:
            try:
                s.close()
            except Exception:
                pass
            s.open()

    for step in range(STEPS):
        if restarts and step in (STEPS // 3, 2 * STEPS // 3):
            # a clean restart, then a crash (the unlogged change log is emptied)
            if restart(restarts.pop(0)):
                time.sleep(0.5)
                reopen_all()
        r = rng.random()
        q = rng.choice(list(QUEUES))
        if r < 0.50:
            w = rng.choice(workers)
            check_output(w.name, w.run(random_op()))
            continue
        if r < 0.53:
            # the other ticker takes the queues over (its input is read whole)
            current = 1 - current
            note('ticker hand-over')
        t = tickers[current]
        if r < 0.56:
            note('tick rolled back')
            check_output(t.name, t.run('BEGIN;\n%s;\nROLLBACK' % tick_sql(q, call=False)))
        elif r < 0.58:
            note('tick cancelled')
            t.send(tick_sql(q))
            time.sleep(rng.random() * 0.02)
            control.run('SELECT pg_cancel_backend(%d)' % t.pid)
            check_output(t.name, t.wait())
        elif r < 0.60:
            note('tick killed')
            t.send(tick_sql(q))
            time.sleep(rng.random() * 0.02)
            control.run('SELECT pg_terminate_backend(%d)' % t.pid)
            out = t.wait()
            if out is not None:
                check_output(t.name, out)
            t.close()
            t.open()
        elif r < 0.62 or step == STEPS // 2:
            note('plain tick')
            check_output(plain.name, plain.run("SELECT count(*) FROM mm.tick('%s')" % q))
        elif r < 0.63:
            note('config changed')
            check_output('alter', control.run(
                "SELECT mm.alter_queue('%s', '{\"scoring\": {\"age\": %d}}')" % (q, rng.randrange(0, 30))))
        else:
            check_output(t.name, t.run(tick_sql(q)))
            t.harvest()

    # the check itself: a change behind mm's back (no change log row) is caught
    t = tickers[current]
    # a roster nobody is near, so that the queue has one waiting whatever the run left
    check_output('control', control.run("SELECT mm.enqueue('plain', ARRAY[99999901]::bigint[], 60000, 10)"))
    check_output(t.name, t.run("SELECT count(*) FROM mm.tick('plain')"))
    control.run("UPDATE mm.roster r SET rating = r.rating + 1 FROM mm.queue q WHERE q.queue_id = r.queue_id "
                "AND q.name = 'plain' AND r.match_id IS NULL")
    out = t.run("SELECT count(*) FROM mm.tick('plain')")
    print('%s - a kept input that differs from the tables fails the check (a rating changed by hand)'
          % ('ok' if 'differs from its tables' in (out or '') else 'not ok'))
    if 'differs from its tables' not in (out or ''):
        log('the tick said: %r' % out)
    # and in the rules queue, latencies changed by hand (the rules' bits kept with the rosters)
    check_output(t.name, t.run("SELECT count(*) FROM mm.tick('rules')"))
    control.run("UPDATE mm.roster r SET latencies = '{\"eu\": 1, \"us\": 1, \"asia\": 1}' FROM mm.queue q "
                "WHERE q.queue_id = r.queue_id AND q.name = 'rules' AND r.match_id IS NULL")
    out = t.run("SELECT count(*) FROM mm.tick('rules')")
    print('%s - a kept input that differs from the tables fails the check (latencies changed by hand)'
          % ('ok' if 'differs from its tables' in (out or '') else 'not ok'))
    if 'differs from its tables' not in (out or ''):
        log('the tick said: %r' % out)

    # what the tickers' inputs did: catch-ups (ticks that read only what changed)
    stats = []
    for t in tickers:
        t.harvest()
        stats.append(tuple(a + b for a, b in zip(t.kept, t.last)))
    for k, v in sorted(counts.items()):
        log('%s: %d' % (k, v))
    log('kept inputs now (ticks, whole reads, changes read): %s' % stats)

    ok = not failures
    print('%s - %d random steps over %d queues from %d backends: every tick from a kept input had the '
          'tables\' input and matches (seed %d)' % ('ok' if ok else 'not ok', STEPS, len(QUEUES),
                                                    len(tickers) + len(workers) + 2, SEED))
    for f in failures[:20]:
        log(f)
    caught_up = sum(s[0] - s[1] for s in stats)
    print('%s - the ticks caught their kept inputs up from the change log (%d ticks did without a whole read)'
          % ('ok' if caught_up > 0 else 'not ok', caught_up))
    for what in ('tick rolled back', 'tick cancelled', 'tick killed', 'ticker hand-over', 'plain tick'):
        if counts.get(what, 0) == 0:
            print('not ok - the run had no "%s" (a longer run, or another seed)' % what)
    if PGCTL and PGDATA:
        print('%s - server restarts, clean and after a crash' %
              ('ok' if counts.get('restart fast') and counts.get('restart immediate') else 'not ok'))
    else:
        print('ok - server restarts # SKIP MM_PGCTL and MM_PGDATA not set')
    for s in tickers + [plain, control, setup] + workers:
        s.close()
    return 0 if ok and caught_up > 0 else 1


if __name__ == '__main__':
    sys.exit(main())
