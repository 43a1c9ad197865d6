# The TAP helpers of the Citus suite's scripts (test/citus/*.sh), sourced:
# ok/notok print a TAP line (notok sets fail=1), q runs psql on the
# coordinator's postgres database (PGHOST/PGPORT/PGUSER), check NAME SQL
# passes when the statement's answer is "t" and shows the answer otherwise.
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
q() { psql -X -q -At -d postgres -v ON_ERROR_STOP=1 "$@"; }
check() {
	local got
	got=$(q -c "$2" 2>&1)
	if [ "$got" = t ]; then
		ok "$1"
	else
		notok "$1"
		echo "$got" | sed 's/^/#   /' | head -10
	fi
}
