"""The wake-up delay of a reader waiting in mm.events: a writer ticks a
match (autocommit) and notes when its commit returned; a reader, waiting in
mm.events(queue, cursor, 100, '5 seconds') on its own connection, notes when
the matched event came back. Prints one line: the delays' median and 90th
percentile in ms and their count. argv[1]: how many matches."""
import random
import statistics
import sys
import threading
import time

import psycopg2

n = int(sys.argv[1])
got = {}
done = threading.Event()


def reader():
    conn = psycopg2.connect('')
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SELECT coalesce(max(event_id), 0) FROM mm.events('wake', 0, 10000)")
    cursor = cur.fetchone()[0]
    while not done.is_set():
        cur.execute("SELECT event_id, kind, match_id FROM mm.events('wake', %s, 100, '5 seconds')", (cursor,))
        now = time.monotonic()
        for event_id, kind, match_id in cur.fetchall():
            cursor = event_id
            if kind == 'matched':
                got[match_id] = now


t = threading.Thread(target=reader, daemon=True)
t.start()
conn = psycopg2.connect('')
conn.autocommit = True
cur = conn.cursor()
cur.execute("SELECT coalesce(max(player_id), 0) FROM mm.queued_player")
base = 10 ** 9 + random.randrange(10 ** 6) * 1000
delays = []
time.sleep(0.5)
for i in range(n):
    cur.execute("SELECT mm.enqueue('wake', ARRAY[p], 1500, joined_at => now() - interval '1 minute') "
                "FROM unnest(ARRAY[%s, %s]::bigint[]) p", (base + 2 * i, base + 2 * i + 1))
    # the sleep puts the commit anywhere in the reader's poll interval
    time.sleep(random.uniform(0.03, 0.12))
    cur.execute("SELECT DISTINCT match_id FROM mm.tick('wake')")
    committed = time.monotonic()
    ids = [r[0] for r in cur.fetchall()]
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not all(m in got for m in ids):
        time.sleep(0.001)
    delays += [(got[m] - committed) * 1000 for m in ids if m in got]
done.set()
if len(delays) < n:
    print('ERROR: %d of %d matches reached the reader' % (len(delays), n))
    sys.exit(1)
q = statistics.quantiles(delays, n=10)
print('median %.1f ms, p90 %.1f ms, %d matches' % (statistics.median(delays), q[8], len(delays)))
