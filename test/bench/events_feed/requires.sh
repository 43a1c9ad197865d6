# the delay is measured by Debian's python3 with python3-psycopg2 (test/cluster.sh deps)
/usr/bin/python3 -c 'import psycopg2' 2>/dev/null || { echo "python3-psycopg2 is not installed"; exit 1; }
