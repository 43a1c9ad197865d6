#!/usr/bin/env bash
# mm's queue metrics as a Prometheus stack sees them (monitoring/):
#   - promtool (Debian's prometheus) checks monitoring/alerts.yml and runs
#     its unit tests (monitoring/tests/alerts_test.yml: each alert fires
#     when it should and stays quiet otherwise), and the same tests fail
#     against a copy of the rules with a threshold moved (they can fail);
#   - after a scripted run (rosters queued and left, ready checks accepted
#     and declined, a match reported), Debian's prometheus-postgres-exporter
#     with monitoring/queries.yaml, logged in as a role that has only
#     pg_monitor, is scraped: every column of mm.queue_metrics is a metric
#     mm_queue_* of the right type (counters as counters, the wait as a
#     histogram), its values are the view's and the run's;
#   - every query of monitoring/grafana-dashboard.json names only metrics
#     the exporter emits.
# The exporter listens on 127.0.0.1 at the scheme's exporter port (B+9,
# test/ports.sh) and is stopped at the end. A part whose tool is not
# installed prints "ok - ... # SKIP why" (test/cluster.sh deps installs
# both). TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail
cd "${MM_ROOT:?}"
. test/ports.sh
db=mm_monitoring
role=mm_suite_monitor
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
skip() { echo "ok - $1 # SKIP $2"; }
py=/usr/bin/python3
work=$(mktemp -d "$(mm_tmpdir)"/mm-monitoring.XXXXXX)
exporter_pid=
cleanup() {
	if [ -n "$exporter_pid" ]; then
		kill "$exporter_pid" 2>/dev/null
		wait "$exporter_pid" 2>/dev/null
	fi
	psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" \
		-c "DROP ROLE IF EXISTS $role" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

# ---- the alert rules
if command -v promtool >/dev/null; then
	if promtool check rules monitoring/alerts.yml >"$work/check.log" 2>&1; then
		ok "promtool check rules: $(grep -o '[0-9]* rules found' "$work/check.log")"
	else
		notok "promtool check rules monitoring/alerts.yml"
		sed 's/^/#   /' "$work/check.log"
	fi
	if (cd monitoring/tests && promtool test rules alerts_test.yml) >"$work/test.log" 2>&1; then
		ok "promtool test rules: every alert fires when it should and stays quiet otherwise"
	else
		notok "promtool test rules monitoring/tests/alerts_test.yml"
		sed 's/^/#   /' "$work/test.log" | head -30
	fi
	# the unit tests can fail: a threshold moved breaks them
	mkdir -p "$work/rules/tests"
	sed 's/mm_queue_oldest_wait_seconds > 600/mm_queue_oldest_wait_seconds > 6000/' monitoring/alerts.yml >"$work/rules/alerts.yml"
	cp monitoring/tests/alerts_test.yml "$work/rules/tests/"
	if ! (cd "$work/rules/tests" && promtool test rules alerts_test.yml) >/dev/null 2>&1; then
		ok "promtool test rules fails against rules whose threshold was moved"
	else
		notok "promtool test rules fails against rules whose threshold was moved"
	fi
else
	skip "promtool checks and unit-tests monitoring/alerts.yml" "promtool is not installed (apt-get install prometheus)"
fi

# ---- the exporter over a scripted run
exporter=$(command -v prometheus-postgres-exporter || true)
if [ -z "$exporter" ]; then
	skip "prometheus-postgres-exporter exports mm.queue_metrics" "it is not installed (apt-get install prometheus-postgres-exporter)"
	skip "the dashboard names only metrics the exporter emits" "prometheus-postgres-exporter is not installed"
	exit $fail
fi

psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" \
	-c "DROP ROLE IF EXISTS $role" -c "CREATE DATABASE $db" -c "CREATE ROLE $role LOGIN IN ROLE pg_monitor" >/dev/null || exit 1
psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 >"$work/run.out" 2>&1 <<'SQL' || { notok "the scripted run"; sed 's/^/#   /' "$work/run.out"; exit 1; }
CREATE EXTENSION mm;
SELECT mm.create_queue('mon', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": 60}');
-- six rosters: two pairs that match, one alone, one that leaves
SELECT mm.enqueue('mon', ARRAY[p], r, 50, joined_at => now() - w * interval '1 second')
FROM (VALUES (101, 1500, 40), (102, 1500, 40), (103, 1800, 20), (104, 1800, 20), (105, 3000, 20), (106, 1500, 20)) v(p, r, w);
SELECT mm.leave_player(106);
SELECT count(*) FROM mm.tick('mon');
-- 101 and 102 accept: matched; 103 declines: dissolved, 104 back in the queue
SELECT mm.accept(m.match_id, p) FROM mm.match m, unnest(ARRAY[101, 102]) p
WHERE m.match_id = (SELECT match_id FROM mm.match_roster WHERE 101 = ANY (players));
SELECT mm.decline(m.match_id, 103) FROM mm.match m
WHERE m.match_id = (SELECT match_id FROM mm.match_roster WHERE 103 = ANY (players) AND match_id IS NOT NULL);
SELECT count(*) FROM mm.report_result((SELECT match_id FROM mm.claim_matches('mon') LIMIT 1),
                                      '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SQL

port=$(mm_port exporter)
DATA_SOURCE_NAME="host=$PGHOST port=$PGPORT user=$role dbname=$db sslmode=disable" \
	"$exporter" --web.listen-address="127.0.0.1:$port" --extend.query-path=monitoring/queries.yaml \
	--disable-default-metrics --disable-settings-metrics --log.level=warn >"$work/exporter.log" 2>&1 &
exporter_pid=$!
scrape() {
	"$py" -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
		"http://127.0.0.1:$port/metrics"
}
for _ in $(seq 1 100); do
	scrape >"$work/metrics" 2>/dev/null && grep -q '^mm_queue_' "$work/metrics" && break
	sleep 0.1
done
if ! grep -q '^mm_queue_' "$work/metrics" 2>/dev/null; then
	notok "prometheus-postgres-exporter exports mm.queue_metrics on 127.0.0.1:$port"
	sed 's/^/#   /' "$work/exporter.log" | tail -10
	exit 1
fi
# the view as the monitor role reads it, one JSON object per queue
psql -X -q -At -U "$role" -d "$db" -c "SELECT json_agg(m) FROM mm.queue_metrics m" >"$work/view.json"

"$py" - "$work/metrics" "$work/view.json" monitoring/queries.yaml <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
view = {row['queue']: row for row in json.loads(open(sys.argv[2]).read())}
types, samples = {}, {}
for line in text.splitlines():
    m = re.match(r'# TYPE (mm_queue_\w+) (\w+)', line)
    if m:
        types[m.group(1)] = m.group(2)
        continue
    m = re.match(r'(mm_queue_\w+)\{([^}]*)\} (\S+)', line)
    if m:
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        samples[(m.group(1), labels.get('queue'), labels.get('le'))] = float(m.group(3))
fail = False
def check(cond, what):
    global fail
    print(('ok - ' if cond else 'not ok - ') + what)
    fail = fail or not cond
row = view['mon']
counters = [c for c in row if c.endswith('_total')]
gauges = ['waiting_rosters', 'waiting_players', 'oldest_wait_seconds', 'open_matches', 'open_ready_checks']
check(all(types.get('mm_queue_' + c) == 'counter' for c in counters) and len(counters) == 16,
      'the 16 counters are exported as counters (mm_queue_*_total)')
check(all(types.get('mm_queue_' + g) == 'gauge' for g in gauges), 'the 5 gauges are exported as gauges')
check(types.get('mm_queue_wait_seconds') == 'histogram', 'the wait is exported as a histogram (mm_queue_wait_seconds)')
same = [c for c in counters + gauges if c != 'oldest_wait_seconds'
        and samples.get(('mm_queue_' + c, 'mon', None)) == float(row[c])]
check(len(same) == len(counters) + len(gauges) - 1,
      'every counter and gauge scraped equals the view (%d of %d)' % (len(same), len(counters) + len(gauges) - 1))
expected = {'enqueued_total': 6, 'left_total': 1, 'proposed_total': 2, 'accepted_total': 2, 'declined_total': 1,
            'dissolved_total': 1, 'matches_total': 1, 'players_matched_total': 2, 'results_total': 1,
            'expired_total': 0, 'waiting_rosters': 2, 'waiting_players': 2, 'open_matches': 0, 'open_ready_checks': 0}
got = {k: samples.get(('mm_queue_' + k, 'mon', None)) for k in expected}
check(all(got[k] == v for k, v in expected.items()) and samples.get(('mm_queue_ticks_total', 'mon', None), 0) >= 1,
      'the scraped values are the scripted run\'s: %s' % ', '.join('%s %s' % (k, got[k]) for k in expected))
buckets = [(le, samples.get(('mm_queue_wait_seconds_bucket', 'mon', le))) for le in ['5', '10', '30', '60', '120', '300', '+Inf']]
count = samples.get(('mm_queue_wait_seconds_count', 'mon', None))
total = samples.get(('mm_queue_wait_seconds_sum', 'mon', None))
check([b for _, b in buckets] == [0, 0, 0, 2, 2, 2, 2] and count == 2 and 80 <= total < 90,
      'the wait histogram: the two rosters matched after 40 s in the buckets from le="60" on, count 2, sum %s' % total)
# the dashboard's queries name only metrics the exporter emits (a
# histogram's series are its _bucket, _sum and _count)
dash = json.load(open('monitoring/grafana-dashboard.json'))
exprs = []
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k in ('expr', 'definition') and isinstance(v, str):
                exprs.append(v)
            elif k == 'query' and isinstance(v, str):
                exprs.append(v)
            else:
                walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(dash)
emitted = set(n for (n, _, _) in samples)
named = set(n for e in exprs for n in re.findall(r'\bmm_queue_\w+', e))
unknown = sorted(named - emitted)
check(len(exprs) >= 6 and named and not unknown,
      'every query of the dashboard (%d) names only metrics the exporter emits (%d names%s)'
      % (len(exprs), len(named), '; unknown: ' + ', '.join(unknown) if unknown else ''))
sys.exit(1 if fail else 0)
PY
[ $? = 0 ] || fail=1
exit $fail
