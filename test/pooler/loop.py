"""A whole service loop of game backends, each statement its own transaction,
as a backend runs it through a transaction pooler (pgbouncer in
pool_mode = transaction): no LISTEN, no session state.

Clients (threads, one connection each) own players. Each queues its idle
players, reads the queue's event feed with mm.events from the last event id
it saw, accepts the ready checks of its players (and declines some), claims
matches with mm.claim_matches when the feed says a match is ready, reports
them with mm.report_result, and queues its players again when the feed says
their match ended or their roster was removed. A ticker thread calls mm.tick.
Every client tracks its players from the feed alone.

    python3 loop.py check|bench --queue Q --clients N --seconds S [options]

The connection comes from the PG* environment (PGHOST, PGPORT, PGUSER,
PGDATABASE): pgbouncer's or the cluster's. Prints one JSON object: what each
client saw and did, and the run's figures. Run with Debian's python3 and
python3-psycopg2.
"""
import argparse
import json
import random
import sys
import threading
import time

import psycopg2
import psycopg2.errors


def connect(user=None):
    conn = psycopg2.connect('', **({'user': user} if user else {}))
    conn.autocommit = True
    return conn


class Client(threading.Thread):
    def __init__(self, k, args, stop, draining):
        super().__init__(daemon=True)
        self.k = k
        self.args = args
        self.stop = stop
        self.draining = draining
        self.players = [1000000 * (k + 1) + i for i in range(args.players)]
        self.state = {p: 'idle' for p in self.players}
        self.cursor = 0
        self.seen = []            # every event id, in the order read
        self.proposals = []       # match ids of proposed events, in the order read
        self.reported = []        # match ids this client reported
        self.declines = 0
        self.late_accepts = 0
        self.errors = []
        self.rng = random.Random(k)

    def run(self):
        try:
            self.conn = connect()
            self.cur = self.conn.cursor()
            while True:
                if not self.stop.is_set():
                    self.enqueue_idle()
                got = self.read_feed()
                if self.stop.is_set() and not got and self.draining.is_set():
                    break
                if not got and self.args.client_sleep > 0:
                    time.sleep(self.args.client_sleep)
        except Exception as e:  # reported by the caller
            self.errors.append(repr(e))

    def enqueue_idle(self):
        for p in self.players:
            if self.state[p] == 'idle':
                self.cur.execute('SELECT mm.enqueue(%s, ARRAY[%s]::bigint[], %s, 100)',
                                 (self.args.queue, p, 1500 + self.rng.uniform(-50, 50)))
                self.state[p] = 'queued'

    def read_feed(self):
        self.cur.execute('SELECT event_id, kind, match_id, player_ids, detail FROM mm.events(%s, %s, %s, %s)',
                         (self.args.queue, self.cursor, 500, '%d milliseconds' % self.args.max_wait_ms))
        rows = self.cur.fetchall()
        for event_id, kind, match_id, players, detail in rows:
            self.seen.append(event_id)
            self.cursor = event_id
            mine = [p for p in players if p in self.state]
            if kind == 'proposed':
                self.proposals.append(match_id)
                for p in mine:
                    if self.args.decline_every and (match_id * 7 + p) % self.args.decline_every == 0:
                        self.cur.execute('SELECT mm.decline(%s, %s)', (match_id, p))
                        self.declines += 1
                    else:
                        try:
                            self.cur.execute('SELECT mm.accept(%s, %s)', (match_id, p))
                        except psycopg2.errors.ObjectNotInPrerequisiteState:
                            # another player declined first: the feed says
                            # dissolved next
                            self.late_accepts += 1
            elif kind == 'matched':
                self.claim_and_report()
            elif kind == 'dissolved':
                back = set(detail.get('requeued_players', []))
                for p in mine:
                    if p not in back:
                        self.state[p] = 'idle'
            elif kind in ('reported', 'abandoned', 'left', 'expired'):
                for p in mine:
                    self.state[p] = 'idle'
        return len(rows) > 0

    def claim_and_report(self):
        self.cur.execute('SELECT DISTINCT match_id, team FROM mm.claim_matches(%s, 10) WHERE kind = %s',
                         (self.args.queue, 'match'))
        teams = {}
        for match_id, team in self.cur.fetchall():
            teams.setdefault(match_id, []).append(team)
        for match_id, names in sorted(teams.items()):
            names = sorted(set(names))
            self.rng.shuffle(names)
            result = {'teams': {t: {'rank': i + 1} for i, t in enumerate(names)}}
            self.cur.execute('SELECT count(*) FROM mm.report_result(%s, %s)', (match_id, json.dumps(result)))
            self.reported.append(match_id)


class Ticker(threading.Thread):
    def __init__(self, args, done):
        super().__init__(daemon=True)
        self.args = args
        self.done = done
        self.ticks = 0
        self.errors = []

    def run(self):
        try:
            conn = connect()
            cur = conn.cursor()
            while not self.done.is_set():
                cur.execute('SELECT count(*) FROM mm.tick(%s)', (self.args.queue,))
                cur.fetchall()
                self.ticks += 1
                time.sleep(self.args.tick_interval)
        except Exception as e:
            self.errors.append(repr(e))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mode', choices=['check', 'bench'])
    ap.add_argument('--queue', required=True)
    ap.add_argument('--clients', type=int, default=6)
    ap.add_argument('--players', type=int, default=6)
    ap.add_argument('--seconds', type=float, default=10)
    ap.add_argument('--max-wait-ms', type=int, default=200)
    ap.add_argument('--client-sleep', type=float, default=0)
    ap.add_argument('--tick-interval', type=float, default=0.05)
    ap.add_argument('--decline-every', type=int, default=0)
    ap.add_argument('--drain-seconds', type=float, default=20)
    ap.add_argument('--check-user', default=None)
    ap.add_argument('--target-matches', type=int, default=0,
                    help='bench: stop queueing once this many matches were reported (before --seconds)')
    args = ap.parse_args()

    stop = threading.Event()
    draining = threading.Event()
    done = threading.Event()
    ticker = Ticker(args, done)
    clients = [Client(k, args, stop, draining) for k in range(args.clients)]
    t0 = time.time()
    ticker.start()
    for c in clients:
        c.start()
    end = t0 + args.seconds
    while time.time() < end:
        if args.target_matches and sum(len(c.reported) for c in clients) >= args.target_matches:
            break
        if any(c.errors for c in clients) or ticker.errors:
            break
        time.sleep(0.01)
    stop.set()
    elapsed = time.time() - t0
    reported_in_run = sum(len(c.reported) for c in clients)
    # drain: no new rosters; ticks go on until every ready check and match
    # in flight has ended, then the clients read the feed to its end
    # the checks read mm's tables: as the owner, not the service role
    conn = connect(args.check_user)
    cur = conn.cursor()
    deadline = time.time() + args.drain_seconds
    while time.time() < deadline:
        cur.execute("""SELECT count(*) FROM mm.match m JOIN mm.queue q USING (queue_id)
                       WHERE q.name = %s AND m.status IN ('proposed', 'matched')""", (args.queue,))
        if cur.fetchone()[0] == 0:
            break
        time.sleep(0.1)
    time.sleep(0.5)
    draining.set()
    for c in clients:
        c.join(timeout=args.drain_seconds)
    done.set()
    ticker.join(timeout=10)

    # the whole feed, as the table has it
    cur.execute("""SELECT e.event_id, e.kind, e.match_id, e.detail FROM mm.queue_event e JOIN mm.queue q USING (queue_id)
                   WHERE q.name = %s ORDER BY e.event_id""", (args.queue,))
    feed = cur.fetchall()
    ids = [r[0] for r in feed]
    proposed = [r[2] for r in feed if r[1] == 'proposed']
    matched = [r[2] for r in feed if r[1] == 'matched']
    timeouts = [r[2] for r in feed if r[1] == 'dissolved' and r[3].get('reason') == 'timeout']
    cur.execute("""SELECT count(*), count(DISTINCT r.match_id) FROM mm.match_result r JOIN mm.queue q USING (queue_id)
                   WHERE q.name = %s AND r.status = 'reported'""", (args.queue,))
    results, distinct_results = cur.fetchone()
    cur.execute("""SELECT count(*), count(*) FILTER (WHERE p.state_after IS DISTINCT FROM p.state_before)
                   FROM mm.match_result_player p JOIN mm.queue q USING (queue_id) WHERE q.name = %s""", (args.queue,))
    rated, moved = cur.fetchone()
    cur.execute("""SELECT count(*) FROM mm.match m JOIN mm.queue q USING (queue_id)
                   WHERE q.name = %s AND m.status IN ('proposed', 'matched')""", (args.queue,))
    left_open = cur.fetchone()[0]
    reported = [m for c in clients for m in c.reported]
    out = {
        'elapsed': elapsed,
        'matches_per_s': reported_in_run / elapsed if elapsed > 0 else 0,
        'reported_in_run': reported_in_run,
        'ticks': ticker.ticks,
        'events': len(ids),
        'proposed': len(proposed),
        'matched': len(matched),
        'timeouts': len(timeouts),
        'declines': sum(c.declines for c in clients),
        'results': results,
        'distinct_results': distinct_results,
        'reported_calls': len(reported),
        'reported_distinct': len(set(reported)),
        'reported_equals_matched': sorted(reported) == sorted(matched),
        'rated_players': rated,
        'ratings_moved': moved,
        'left_open': left_open,
        'clients_seeing_every_event_once_in_order': sum(1 for c in clients if c.seen == ids),
        'clients_seeing_every_proposal_once': sum(1 for c in clients if c.proposals == proposed
                                                  and len(set(c.proposals)) == len(c.proposals)),
        'clients': len(clients),
        'errors': [e for c in clients for e in c.errors] + ticker.errors,
    }
    json.dump(out, sys.stdout)
    print()


if __name__ == '__main__':
    main()
