#!/usr/bin/env bash
# sql/generate.pl: every SQL object's signature is written once (its
# CREATE); the COMMENTs' signatures and the privileges rows are generated
# from it; a statement of a kind the generator does not know, or an object
# without its COMMENT or its "-- @access" line, stops it with an error that
# names the object. TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail
cd "${MM_ROOT:?}"
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
scratch=$(mktemp -d "${MM_TMPDIR:-/tmp}/mm-generate.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
sources="sql/mm.sql $(ls sql/parts/*.sql | sort | tr '\n' ' ')"

# The real sources: no signature written twice.
n=$(grep -hcE '^COMMENT ON (FUNCTION|PROCEDURE|AGGREGATE) mm\.[a-z0-9_]+ *\(' $sources | paste -sd+ | bc)
if [ "$n" = 0 ]; then
	ok "no COMMENT of a function, procedure or aggregate in sql/ repeats its signature"
else
	notok "no COMMENT of a function, procedure or aggregate in sql/ repeats its signature ($n do)"
fi
if ! grep -qE '^INSERT INTO mm\.privileges' $sources; then
	ok "no privileges row is written by hand in sql/ (each object's -- @access line makes it)"
else
	notok "no privileges row is written by hand in sql/"
fi
perl sql/generate.pl signatures $sources >"$scratch/sigs" 2>"$scratch/err"
nsig=$(wc -l <"$scratch/sigs")
ncreate=$(grep -hcE '^CREATE (FUNCTION|PROCEDURE|AGGREGATE) ' $sources | paste -sd+ | bc)
if [ "$nsig" -gt 200 ] && [ "$nsig" = "$ncreate" ]; then
	ok "every function, procedure and aggregate has its signature from its CREATE ($nsig)"
else
	notok "every function, procedure and aggregate has its signature from its CREATE ($nsig of $ncreate)"
	sed 's/^/#   /' "$scratch/err"
fi
perl sql/generate.pl install 0.0 $sources >"$scratch/install.sql"
c_sources=$(grep -hcE '^COMMENT ON ' $sources | paste -sd+ | bc)
c_install=$(grep -cE '^COMMENT ON ' "$scratch/install.sql")
if [ "$c_sources" = "$c_install" ] &&
	grep -q "^COMMENT ON FUNCTION mm.ordinal(float8, float8, float8) IS" "$scratch/install.sql" &&
	grep -q "^('mm.enqueue(text, bigint\[\], float8, float8" "$scratch/install.sql"; then
	ok "the install script carries every COMMENT with its signature and a privileges row per object"
else
	notok "the install script carries every COMMENT with its signature and a privileges row per object ($c_sources, $c_install)"
fi

# A source of every kind the generator knows.
cat >"$scratch/good.sql" <<'EOF'
CREATE SCHEMA mm;
COMMENT ON SCHEMA mm IS 'schema';
CREATE TYPE mm.pair AS (a int, b int);
COMMENT ON TYPE mm.pair IS 'a pair';
-- @access admin, analyst
CREATE TABLE mm.t (id bigserial PRIMARY KEY, v text DEFAULT 'a,b');
CREATE INDEX t_v_idx ON mm.t (v);
COMMENT ON TABLE mm.t IS 'a table';
COMMENT ON INDEX mm.t_v_idx IS 'an index';
SELECT pg_catalog.pg_extension_config_dump('mm.t', '');
-- @access internal
CREATE SEQUENCE mm.s;
COMMENT ON SEQUENCE mm.s IS 'a sequence';
-- @access public
CREATE FUNCTION mm.f(x int, y float8 DEFAULT 1, OUT z int, VARIADIC w text[] DEFAULT '{a,b}')
LANGUAGE sql IMMUTABLE AS $$ SELECT x $$;
COMMENT ON FUNCTION mm.f IS 'it''s f';
-- @access service, admin; definer
CREATE FUNCTION mm.f(double precision, timestamp with time zone)
RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
COMMENT ON FUNCTION mm.f IS 'f again';
-- @access analyst
CREATE AGGREGATE mm.agg(float8, float8) (SFUNC = float8_accum, STYPE = float8[]);
COMMENT ON AGGREGATE mm.agg IS 'an aggregate';
-- @access analyst
CREATE VIEW mm.v AS SELECT 1 AS one;
COMMENT ON VIEW mm.v IS 'a view';
-- @access admin
CREATE PROCEDURE mm.p(a int)
LANGUAGE sql AS $$ SELECT 1 $$;
COMMENT ON PROCEDURE mm.p IS 'a procedure';
CREATE TABLE mm.privileges (object text);
COMMENT ON TABLE mm.privileges IS 'list';
SELECT mm._apply_privileges();
EOF
sed -i 's/^CREATE TABLE mm.privileges/-- @access admin\nCREATE TABLE mm.privileges/' "$scratch/good.sql"
if perl sql/generate.pl install 9.9 "$scratch/good.sql" >"$scratch/good.out" 2>"$scratch/err"; then
	want=(
		"COMMENT ON FUNCTION mm.f(int, float8, text[]) IS 'it''s f';"
		"COMMENT ON FUNCTION mm.f(double precision, timestamp with time zone) IS 'f again';"
		"COMMENT ON AGGREGATE mm.agg(float8, float8) IS 'an aggregate';"
		"COMMENT ON PROCEDURE mm.p(int) IS 'a procedure';"
		"('mm.f(int, float8, text[])', 'function', '{public}', false),"
		"('mm.f(double precision, timestamp with time zone)', 'function', '{service,admin}', true),"
		"('mm.agg(float8, float8)', 'function', '{analyst}', false),"
		"('mm.t', 'relation', '{admin,analyst}', false),"
		"('mm.t_id_seq', 'relation', '{}', false),"
		"('mm.s', 'relation', '{}', false),"
		"('mm.v', 'relation', '{analyst}', false),"
		"('mm.p(int)', 'function', '{admin}', false),"
	)
	missing=''
	for w in "${want[@]}"; do grep -qxF "$w" "$scratch/good.out" || missing="$missing
#   $w"; done
	if [ -z "$missing" ] && grep -B1 -q '^SELECT mm._apply_privileges();' "$scratch/good.out"; then
		ok "a source of every object kind gives each COMMENT its signature and each object its privileges row"
	else
		notok "a source of every object kind gives each COMMENT its signature and each object its privileges row$missing"
	fi
else
	notok "a source of every object kind generates"
	sed 's/^/#   /' "$scratch/err"
fi

# refuse NAME MESSAGE-PATTERN: the source in $scratch/bad.sql stops the
# generator with an error matching the pattern.
refuse() {
	local what=$1 pattern=$2 err
	if err=$(perl sql/generate.pl install 9.9 "$scratch/bad.sql" 2>&1 >/dev/null); then
		notok "$what: refused"
	elif grep -qE "$pattern" <<<"$err"; then
		ok "$what: refused ($err)"
	else
		notok "$what: refused with a message matching /$pattern/ (got: $err)"
	fi
}
bad() { cat >"$scratch/bad.sql"; }

bad <<'EOF'
CREATE TRIGGER t_trg AFTER INSERT ON mm.t FOR EACH ROW EXECUTE FUNCTION mm.g();
EOF
refuse "a trigger" 'cannot handle this statement.*CREATE TRIGGER t_trg'
bad <<'EOF'
CREATE CAST (mm.pair AS text) WITH INOUT;
EOF
refuse "a cast" 'cannot handle this statement.*CREATE CAST'
bad <<'EOF'
CREATE OPERATOR mm.=== (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq);
EOF
refuse "an operator" 'cannot handle this statement.*CREATE OPERATOR mm.==='
bad <<'EOF'
GRANT SELECT ON mm.t TO PUBLIC;
EOF
refuse "a GRANT" 'cannot handle this statement.*GRANT SELECT'
bad <<'EOF'
CREATE OR REPLACE FUNCTION mm.g() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
EOF
refuse "CREATE OR REPLACE" 'CREATE OR REPLACE in a source'
bad <<'EOF'
CREATE FUNCTION mm.g() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
COMMENT ON FUNCTION mm.g IS 'g';
SELECT mm._apply_privileges();
EOF
refuse "a function without its access line" 'mm\.g\(\) has no "-- @access" line'
bad <<'EOF'
-- @access public
CREATE FUNCTION mm.g() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
SELECT mm._apply_privileges();
EOF
refuse "a function without its COMMENT" 'mm\.g\(\) has no COMMENT'
bad <<'EOF'
-- @access public
CREATE FUNCTION mm.g(a int) RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
COMMENT ON FUNCTION mm.g(int) IS 'g';
SELECT mm._apply_privileges();
EOF
refuse "a COMMENT that repeats the signature" 'COMMENT ON FUNCTION mm\.g: write the name alone'
bad <<'EOF'
-- @access public
CREATE FUNCTION mm.g(a int) RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
-- @access public
CREATE FUNCTION mm.h(a int) RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
COMMENT ON FUNCTION mm.g IS 'g';
SELECT mm._apply_privileges();
EOF
refuse "a COMMENT away from its CREATE" 'COMMENT ON FUNCTION mm\.g does not follow'
bad <<'EOF'
-- @access admin
CREATE TABLE mm.t2 (a int);
SELECT mm._apply_privileges();
EOF
refuse "a table without its COMMENT" 'mm\.t2 has no COMMENT'
bad <<'EOF'
CREATE TABLE mm.t3 (a int);
COMMENT ON TABLE mm.t3 IS 't3';
SELECT mm._apply_privileges();
EOF
refuse "a table without its access line" 'mm\.t3 has no "-- @access" line'
bad <<'EOF'
-- @access players
CREATE VIEW mm.v2 AS SELECT 1;
COMMENT ON VIEW mm.v2 IS 'v';
SELECT mm._apply_privileges();
EOF
refuse "an unknown role" 'mm\.v2: unknown role "players"'
bad <<'EOF'
-- @access public
CREATE INDEX i ON mm.t (a);
COMMENT ON INDEX mm.i IS 'i';
SELECT mm._apply_privileges();
EOF
refuse "an access line on an index" 'mm\.i: "-- @access" is for functions.*not an index'
bad <<'EOF'
CREATE TYPE mm.p2 AS (a int);
SELECT mm._apply_privileges();
EOF
refuse "a type without its COMMENT" 'mm\.p2 has no COMMENT'

exit $fail
