#!/usr/bin/perl
# Build mm's install and upgrade scripts from one source per SQL object.
#
# A source (sql/mm.sql, sql/parts/*.sql) writes each object once: its
# CREATE statement, then its COMMENT, which names a function, procedure or
# aggregate without its argument list (the generator adds the signature of
# the CREATE before it), and, among the comments just above the CREATE,
# one line saying who may use it (functions, procedures, aggregates,
# tables, views, sequences):
#
#   -- @access public                pure: EXECUTE to PUBLIC
#   -- @access service, admin        the roles mm.grant_roles grants it to
#   -- @access service; definer      ... and it runs with the owner's rights
#   -- @access internal              nobody but the owner and mm's own
#                                    definer functions
#
#   -- @access public
#   CREATE FUNCTION mm.ordinal(mu float8, sigma float8, z float8 DEFAULT 3)
#   ...;
#   COMMENT ON FUNCTION mm.ordinal IS 'conservative skill estimate ...';
#
# From these the generator writes the COMMENTs with their signatures and
# the rows of mm.privileges (sql/parts/90_privileges.sql), which it inserts
# just before "SELECT mm._apply_privileges();". It stops, naming the
# object, on a statement of a kind it does not know (a trigger, a cast, an
# operator, a GRANT ...), an object without its COMMENT or its @access
# line, a COMMENT that repeats a signature, or one that names no object
# created before it. The sequence of a serial column is internal.
#
#   perl sql/generate.pl install VERSION SOURCE...
#       the install script: the sources, in the order given, with the
#       COMMENTs' signatures and the privileges rows filled in.
#   perl sql/generate.pl upgrade FROM TO SOURCE...
#       the FROM -> TO upgrade script:
#         1. sql/upgrade/mm--FROM--TO.pre.sql, written by hand: what cannot be
#            re-run (table, index, sequence and type changes, data carried
#            over, DROPs of functions whose signature, result or argument
#            names changed, or that are gone); in it, a line
#            "-- @create mm.name" stands for a new table's statements in the
#            sources (CREATE TABLE, its indexes, the sequences it owns, its
#            pg_extension_config_dump calls), or a new type's CREATE TYPE, so
#            a new table or type is written once;
#         2. every function, procedure, aggregate and view of the sources,
#            re-created from its single definition (CREATE OR REPLACE), and
#            every COMMENT of the sources;
#         3. sql/upgrade/mm--FROM--TO.post.sql, by hand: data migration that
#            needs the new functions (stored configs rewritten by them);
#         4. the privileges rows of the sources, which replace the stored
#            ones, and mm._apply_privileges().
#   perl sql/generate.pl statements FILE...
#       one line per statement: its kind and object (a check for the
#       classification below).
#   perl sql/generate.pl signatures SOURCE...
#       one line per function, procedure and aggregate: its signature, its
#       access and its comment's first words.
#
# Statements the upgrade re-runs are recognised by their first words; the
# other statements a source may hold (CREATE SCHEMA, TABLE, INDEX,
# SEQUENCE, TYPE; ALTER TABLE and ALTER SEQUENCE; pg_extension_config_dump)
# belong to the install script only, and their change between versions
# goes into the hand-written pre script. The upgrade suite
# (test/suites/upgrade.sh) proves the result: an upgraded database has the
# catalog of a fresh install; test/suites/generate.sh tests the generator.
use strict;
use warnings;

sub slurp
{
	my ($path) = @_;
	open(my $fh, '<', $path) or die "generate.pl: cannot read $path: $!\n";
	local $/;
	my $text = <$fh>;
	close $fh;
	return $text;
}

# Split SQL text into statements, each with the comments and blank lines
# before it. Knows '...' and E'...' strings, "..." identifiers, $tag$
# quoting, -- and /* */ comments, psql backslash lines and the BEGIN ATOMIC
# bodies of SQL-standard functions (which hold semicolons up to END;).
sub statements
{
	my ($src, $path) = @_;
	my @out;
	my $cur = '';
	my $i = 0;
	my $n = length $src;
	while ($i < $n)
	{
		my $c = substr($src, $i, 1);
		my $two = substr($src, $i, 2);
		if ($c eq '\\' && $cur =~ /(^|\n)[ \t]*\z/)
		{
			my $e = index($src, "\n", $i);
			$e = $n if $e < 0;
			$cur .= substr($src, $i, $e - $i);
			push @out, $cur;
			$cur = '';
			$i = $e;
			next;
		}
		if ($two eq '--')
		{
			my $e = index($src, "\n", $i);
			$e = $n - 1 if $e < 0;
			$cur .= substr($src, $i, $e - $i + 1);
			$i = $e + 1;
			next;
		}
		if ($two eq '/*')
		{
			my $e = index($src, '*/', $i);
			die "generate.pl: $path: unterminated comment\n" if $e < 0;
			$cur .= substr($src, $i, $e + 2 - $i);
			$i = $e + 2;
			next;
		}
		if ($c eq "'")
		{
			my $escapes = $cur =~ /[eE]\z/;
			my $j = $i + 1;
			while (1)
			{
				die "generate.pl: $path: unterminated string\n" if $j >= $n;
				my $d = substr($src, $j, 1);
				if ($escapes && $d eq '\\') { $j += 2; next; }
				if ($d eq "'")
				{
					if (substr($src, $j + 1, 1) eq "'") { $j += 2; next; }
					last;
				}
				$j++;
			}
			$cur .= substr($src, $i, $j - $i + 1);
			$i = $j + 1;
			next;
		}
		if ($c eq '"')
		{
			my $e = index($src, '"', $i + 1);
			die "generate.pl: $path: unterminated identifier\n" if $e < 0;
			$cur .= substr($src, $i, $e - $i + 1);
			$i = $e + 1;
			next;
		}
		if ($c eq '$' && substr($src, $i, 64) =~ /^(\$[A-Za-z_]*\$)/ && $cur !~ /[A-Za-z0-9_]\z/)
		{
			my $tag = $1;
			my $e = index($src, $tag, $i + length $tag);
			die "generate.pl: $path: unterminated $tag quote\n" if $e < 0;
			$cur .= substr($src, $i, $e + length($tag) - $i);
			$i = $e + length $tag;
			next;
		}
		$cur .= $c;
		$i++;
		if ($c eq ';')
		{
			# a BEGIN ATOMIC body ends at a line "END;"
			next if ($cur =~ s/--[^\n]*//gr) =~ /\bBEGIN\s+ATOMIC\b/i && $cur !~ /\nEND\s*;\z/;
			push @out, $cur;
			$cur = '';
		}
	}
	die "generate.pl: $path: text after the last statement: " . substr($cur, 0, 300) . "\n"
		if $cur =~ s/--[^\n]*//gr =~ /\S/;
	push @out, $cur if $cur =~ /\S/;
	return @out;
}

# The statement without the comments and blank lines before it.
sub body
{
	my ($s) = @_;
	$s =~ s/^(?:\s+|--[^\n]*\n|\/\*.*?\*\/)*//s;
	return $s;
}

# What the upgrade does with a statement: 'code' (re-created), 'comment',
# 'apply' (mm._apply_privileges()), 'psql' (a backslash line), or 'schema'
# (install only). Any other statement is one the generator does not know:
# it stops, naming it.
sub kind
{
	my ($s) = @_;
	my $b = body($s);
	return 'psql' if $b =~ /^\\/;
	die "generate.pl: CREATE OR REPLACE in a source (write CREATE; the upgrade adds OR REPLACE): " . head($b) . "\n"
		if $b =~ /^CREATE\s+OR\s+REPLACE\b/i;
	return 'code' if $b =~ /^CREATE\s+(FUNCTION|PROCEDURE|AGGREGATE|VIEW)\b/i;
	return 'comment' if $b =~ /^COMMENT\s+ON\b/i;
	return 'apply' if $b =~ /^SELECT\s+mm\._apply_privileges\(\)\s*;/i;
	return 'schema'
		if $b =~ /^CREATE\s+(SCHEMA|(UNLOGGED\s+)?TABLE|(UNIQUE\s+)?INDEX|SEQUENCE|TYPE\s+\S+\s+AS\b)/i
		|| $b =~ /^ALTER\s+(TABLE|SEQUENCE)\s+mm\./i
		|| $b =~ /^SELECT\s+pg_catalog\.pg_extension_config_dump\(/i;
	die "generate.pl: cannot handle this statement (a kind of object or command the install "
		. "and upgrade scripts are not built for): " . head($b) . "\n";
}

# A statement's first words, for messages.
sub head
{
	my ($b) = @_;
	my ($h) = $b =~ /^(\S+(?:\s+\S+){0,4})/;
	$h //= '';
	$h =~ s/\s+/ /g;
	return $h;
}

# Split a parenthesised list at its top-level commas.
sub split_args
{
	my ($list) = @_;
	my (@out, $cur, $depth, $q);
	$cur = '';
	$depth = 0;
	$q = '';
	for my $c (split //, $list)
	{
		if ($q)
		{
			$q = '' if $c eq $q;
		}
		elsif ($c eq "'" || $c eq '"')
		{
			$q = $c;
		}
		elsif ($c eq '(' || $c eq '[')
		{
			$depth++;
		}
		elsif ($c eq ')' || $c eq ']')
		{
			$depth--;
		}
		elsif ($c eq ',' && $depth == 0)
		{
			push @out, $cur;
			$cur = '';
			next;
		}
		$cur .= $c;
	}
	push @out, $cur if $cur =~ /\S/;
	return map { s/^\s+|\s+$//gr } @out;
}

# The text from an opening parenthesis to its match.
sub balanced
{
	my ($text, $from) = @_;
	my $depth = 0;
	my $q = '';
	for (my $i = $from; $i < length $text; $i++)
	{
		my $c = substr($text, $i, 1);
		if ($q) { $q = '' if $c eq $q; next; }
		if ($c eq "'" || $c eq '"') { $q = $c; next; }
		$depth++ if $c eq '(';
		if ($c eq ')')
		{
			$depth--;
			return substr($text, $from + 1, $i - $from - 1) if $depth == 0;
		}
	}
	die "generate.pl: unbalanced parentheses in: " . head(substr($text, 0, 200)) . "\n";
}

# Types of more than one word, which an argument without a name starts with.
my $multiword = qr/^(double\s+precision|timestamp\s+with|timestamp\s+without|time\s+with|time\s+without|character\s+varying|bit\s+varying)\b/i;

# The identity of a routine's arguments: the types of its input arguments.
sub arg_types
{
	my ($list, $kind) = @_;
	my @types;
	for my $a (split_args($list))
	{
		next if $a eq '*';
		$a =~ s/\s+(DEFAULT\b|=).*$//is;
		my $mode = 'IN';
		$mode = uc $1 if $a =~ s/^(IN|OUT|INOUT|VARIADIC)\s+//i;
		next if $mode eq 'OUT' && $kind ne 'PROCEDURE';
		if ($a !~ $multiword && $a =~ /^("[^"]+"|\w+)\s+(\S.*)$/s)
		{
			$a = $2;
		}
		$a =~ s/\s+/ /g;
		push @types, $a;
	}
	return @types;
}

# What a CREATE statement creates: (kind, object), where kind is FUNCTION,
# PROCEDURE, AGGREGATE, TABLE, VIEW, SEQUENCE, TYPE, INDEX or SCHEMA and
# object its name, a routine's with its signature; () for other statements.
sub created
{
	my ($b) = @_;
	if ($b =~ /^CREATE\s+(FUNCTION|PROCEDURE|AGGREGATE)\s+(mm\.\w+)\s*\(/i)
	{
		my ($kind, $name) = (uc $1, $2);
		my $from = $-[0] + length($&) - 1;
		my $list = balanced($b, $from);
		return ($kind, "$name(" . join(', ', arg_types($list, $kind)) . ")", $name);
	}
	return (uc $1, $2, $2) if $b =~ /^CREATE\s+(?:UNLOGGED\s+)?(TABLE|VIEW|SEQUENCE|TYPE|SCHEMA)\s+(mm\.\w+|mm)\b/i;
	return ('INDEX', "mm.$1", "mm.$1") if $b =~ /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+(\w+)\s+ON\b/i;
	return ();
}

# The sequences of a table's serial columns.
sub serial_sequences
{
	my ($b) = @_;
	return () unless $b =~ /^CREATE\s+(?:UNLOGGED\s+)?TABLE\s+(mm\.\w+)\s*\((.*)\)\s*;\s*$/is;
	my ($table, $cols) = ($1, $2);
	my @seq;
	push @seq, "${table}_$1_seq" while $cols =~ /^\s*(\w+)\s+(?:big)?serial\b/gim;
	return @seq;
}

my %privilege_kind = (FUNCTION => 'function', PROCEDURE => 'function', AGGREGATE => 'function',
					  TABLE => 'relation', VIEW => 'relation', SEQUENCE => 'relation');

# Read the sources' objects: fill in each COMMENT's signature, collect each
# object's access into privileges rows, and check that every object has
# both. Returns the statements, rewritten, and the rows.
sub annotate
{
	my @st = @_;
	my (@out, @rows, %commented, @objects, $last);
	for my $s (@st)
	{
		my $b = body($s);
		my $lead = substr($s, 0, length($s) - length($b));
		my ($kind, $object, $name) = created($b);
		if (defined $kind)
		{
			push @objects, [$kind, $object];
			$last = [$kind, $object, $name];
			my @access = $lead =~ /^--\s*\@access\b[ \t]*([^\n]*)$/mg;
			if ($privilege_kind{$kind})
			{
				die "generate.pl: $object has no \"-- \@access\" line above its CREATE (public, internal, or roles such as service, admin; definer)\n"
					unless @access;
				die "generate.pl: $object has more than one \"-- \@access\" line\n" if @access > 1;
				my ($roles, $definer) = split /\s*;\s*/, $access[0], 2;
				$definer //= '';
				die "generate.pl: $object: \"-- \@access $access[0]\": after the roles, only \"; definer\"\n"
					if $definer ne '' && $definer ne 'definer';
				my @roles = split /\s*,\s*/, $roles;
				@roles = () if "@roles" eq 'internal';
				for my $r (@roles)
				{
					die "generate.pl: $object: unknown role \"$r\" in \"-- \@access\" (public, service, admin, analyst, internal)\n"
						unless $r =~ /^(public|service|admin|analyst)$/;
				}
				push @rows, [$object, $privilege_kind{$kind}, \@roles, $definer eq 'definer'];
				push @rows, [$_, 'relation', [], 0] for serial_sequences($b);
				push @objects, ['SEQUENCE', $_] for serial_sequences($b);
				$commented{"SEQUENCE $_"} = 1 for serial_sequences($b);
			}
			else
			{
				die "generate.pl: $object: \"-- \@access\" is for functions, procedures, aggregates, tables, views and sequences, not "
					. ({INDEX => "an index", TYPE => "a type", SCHEMA => "a schema"}->{$kind} // lc $kind) . "\n" if @access;
			}
		}
		elsif ($lead =~ /^--\s*\@access\b/m)
		{
			die "generate.pl: an \"-- \@access\" line above a statement that creates nothing: " . head($b) . "\n";
		}
		if ($b =~ /^COMMENT\s+ON\s+(FUNCTION|PROCEDURE|AGGREGATE)\s+(mm\.\w+)\s*(\(?)/i)
		{
			my ($ckind, $cname, $paren) = (uc $1, $2, $3);
			die "generate.pl: COMMENT ON $ckind $cname: write the name alone, the generator adds the signature of the CREATE before it\n"
				if $paren;
			die "generate.pl: COMMENT ON $ckind $cname does not follow the CREATE $ckind $cname it comments\n"
				unless $last && $last->[0] eq $ckind && $last->[2] eq $cname;
			$s =~ s/(COMMENT\s+ON\s+$ckind\s+)\Q$cname\E/$1$last->[1]/i;
			$commented{"$ckind $last->[1]"} = 1;
		}
		elsif ($b =~ /^COMMENT\s+ON\s+(TABLE|VIEW|SEQUENCE|TYPE|SCHEMA|INDEX)\s+(mm\.\w+|mm)\s+IS\b/i)
		{
			$commented{uc($1) . " $2"} = 1;
		}
		push @out, $s;
	}
	for my $o (@objects)
	{
		die "generate.pl: $o->[1] has no COMMENT (write COMMENT ON $o->[0] after its CREATE)\n"
			unless $commented{"$o->[0] $o->[1]"};
	}
	return (\@out, \@rows);
}

# The privileges rows as one INSERT.
sub privileges_insert
{
	my ($rows) = @_;
	my @v = map {
		my ($object, $kind, $roles, $definer) = @$_;
		(my $q = $object) =~ s/'/''/g;
		"('$q', '$kind', '{" . join(',', @$roles) . "}', " . ($definer ? 'true' : 'false') . ")"
	} @$rows;
	return "\n-- The list, from the \"-- \@access\" line of each object (sql/generate.pl).\n"
		. "INSERT INTO mm.privileges (object, kind, roles, definer) VALUES\n" . join(",\n", @v) . ";\n";
}

# A table new in the version being upgraded to is written once, in its
# part: a line "-- @create mm.name" of a pre script stands for its
# statements there (CREATE TABLE, its indexes, the sequences it owns, its
# pg_extension_config_dump calls), in the sources' order. Its COMMENTs come
# with the other comments.
sub table_statements
{
	my ($table, $st) = @_;
	my $t = quotemeta($table);
	my (%seq, @out);

	# the sequences it owns: by ALTER SEQUENCE ... OWNED BY, or as the
	# table_column_seq of a serial column
	for my $s (@$st)
	{
		my $b = body($s);
		$seq{$1} = 1 if $b =~ /^ALTER\s+SEQUENCE\s+(\S+)\s+OWNED\s+BY\s+$t\./i;
		if ($b =~ /^CREATE\s+(?:UNLOGGED\s+)?TABLE\s+$t\s*\((.*)\)\s*;\s*$/is)
		{
			my $cols = $1;
			$seq{"${table}_$1_seq"} = 1 while $cols =~ /^\s*(\w+)\s+(?:big)?serial\b/gim;
		}
	}
	my $seqs = join('|', map { quotemeta } sort keys %seq) || '(?!)';
	for my $s (@$st)
	{
		my $b = body($s);
		push @out, $b
			if $b =~ /^CREATE\s+(?:UNLOGGED\s+)?TABLE\s+$t\s*\(/i
			|| $b =~ /^CREATE\s+TYPE\s+$t\s+AS\b/i
			|| $b =~ /^CREATE\s+(UNIQUE\s+)?INDEX\s+\w+\s+ON\s+$t\b/i
			|| $b =~ /^(CREATE|ALTER)\s+SEQUENCE\s+($seqs)\b/i
			|| $b =~ /^SELECT\s+pg_catalog\.pg_extension_config_dump\('($t|$seqs)'/i;
	}
	die "generate.pl: -- \@create $table: no CREATE TABLE or CREATE TYPE $table in the sources\n"
		unless grep { /^CREATE\s+(UNLOGGED\s+)?(TABLE|TYPE)/i } @out;
	return join("\n", map { s/\s+\z//r } @out) . "\n";
}

sub expand_creates
{
	my ($text, $st) = @_;
	$text =~ s/^-- \@create (mm\.\w+)[ \t]*$/"-- the table $1 as sql\/parts defines it\n" . table_statements($1, $st)/gme;
	return $text;
}

sub read_sources
{
	my @st;
	for my $path (@_)
	{
		push @st, statements(slurp($path), $path);
	}
	return @st;
}

sub main
{
my $mode = shift @ARGV // '';
if ($mode eq 'install')
{
	my $version = shift @ARGV;
	my ($st, $rows) = annotate(read_sources(@ARGV));
	print "-- mm $version install script, generated by sql/generate.pl from\n";
	print "-- sql/mm.sql and sql/parts/*.sql: edit those, not this file.\n\n";
	my $applied = 0;
	for my $s (@$st)
	{
		if (kind($s) eq 'apply')
		{
			print privileges_insert($rows);
			$applied = 1;
		}
		print $s;
	}
	die "generate.pl: no SELECT mm._apply_privileges() in the sources\n" unless $applied;
	print "\n";
}
elsif ($mode eq 'upgrade')
{
	my ($from, $to) = splice(@ARGV, 0, 2);
	my $pre = "sql/upgrade/mm--$from--$to.pre.sql";
	my $post = "sql/upgrade/mm--$from--$to.post.sql";
	my @raw = read_sources(@ARGV);
	my ($st, $rows) = annotate(@raw);
	my (@code, $apply);
	for my $s (@$st)
	{
		my $k = kind($s);
		if ($k eq 'code')
		{
			$s =~ s/^((?:\s+|--[^\n]*\n|\/\*.*?\*\/)*)CREATE\s+/$1CREATE OR REPLACE /s;
			push @code, $s;
		}
		elsif ($k eq 'comment')
		{
			push @code, $s;
		}
		elsif ($k eq 'apply')
		{
			$apply = $s;
		}
	}
	die "generate.pl: no SELECT mm._apply_privileges() in the sources\n" unless defined $apply;
	print "-- mm $from -> $to upgrade script, generated by sql/generate.pl: edit\n";
	print "-- $pre, $post\n";
	print "-- and sql/parts/*.sql, not this file.\n\n";
	print "\\echo Use \"ALTER EXTENSION mm UPDATE TO '$to'\" to load this file. \\quit\n\n";
	print "-- ==== $pre ====\n\n";
	print expand_creates(slurp($pre), \@raw);
	print "\n-- ==== every function, procedure, aggregate, view and comment of sql/parts ====\n";
	print "$_" for @code;
	print "\n\n-- ==== $post ====\n\n";
	print slurp($post);
	print "\n-- ==== the privileges of the sources' \"-- \@access\" lines, applied ====\n\n";
	print "DELETE FROM mm.privileges;\n";
	print privileges_insert($rows);
	print "$apply\n";
}
elsif ($mode eq 'statements')
{
	for my $s (read_sources(@ARGV))
	{
		printf "%-10s %s\n", kind($s), head(body($s));
	}
}
elsif ($mode eq 'signatures')
{
	my ($st, $rows) = annotate(read_sources(@ARGV));
	for my $r (@$rows)
	{
		next unless $r->[1] eq 'function';
		printf "%s\t%s%s\n", $r->[0], (@{$r->[2]} ? join(',', @{$r->[2]}) : 'internal'), $r->[3] ? '; definer' : '';
	}
}
else
{
	die "usage: perl sql/generate.pl install VERSION SOURCE... | upgrade FROM TO SOURCE... | statements FILE... | signatures SOURCE...\n";
}
}

main() unless caller;
1;
