#!/usr/bin/perl
# Build mm's install and upgrade scripts from one source per SQL object.
#
#   perl sql/generate.pl install VERSION SOURCE...
#       the install script: the sources (sql/mm.sql, then sql/parts/*.sql in
#       name order) as written.
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
#         4. the privileges list of the sources, which replaces the stored one,
#            and mm._apply_privileges().
#   perl sql/generate.pl statements FILE
#       one line per statement of FILE: its kind and object (a check for the
#       classification below).
#
# Statements the upgrade re-runs are recognised by their first words; every
# other statement of a source (CREATE TABLE, INDEX, SEQUENCE, TYPE, ALTER,
# pg_extension_config_dump) belongs to the install script only, and its
# change between versions goes into the hand-written pre script. The
# upgrade suite (test/suites/upgrade.sh) proves the result: an upgraded
# database has the catalog of a fresh install.
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
# 'privileges' (the list), 'apply' (mm._apply_privileges()), 'psql' (a
# backslash line), or 'schema' (install only).
sub kind
{
	my ($s) = @_;
	my $b = body($s);
	return 'psql' if $b =~ /^\\/;
	return 'code' if $b =~ /^CREATE\s+(FUNCTION|PROCEDURE|AGGREGATE|VIEW)\b/i;
	return 'comment' if $b =~ /^COMMENT\s+ON\b/i;
	return 'privileges' if $b =~ /^INSERT\s+INTO\s+mm\.privileges\b/i;
	return 'apply' if $b =~ /^SELECT\s+mm\._apply_privileges\(\)\s*;/i;
	die "generate.pl: CREATE OR REPLACE in a source (write CREATE; the upgrade adds OR REPLACE)\n"
		if $b =~ /^CREATE\s+OR\s+REPLACE\b/i;
	return 'schema';
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
		if ($b =~ /^CREATE\s+TABLE\s+$t\s*\((.*)\)\s*;\s*$/is)
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
			if $b =~ /^CREATE\s+TABLE\s+$t\s*\(/i
			|| $b =~ /^CREATE\s+TYPE\s+$t\s+AS\b/i
			|| $b =~ /^CREATE\s+(UNIQUE\s+)?INDEX\s+\w+\s+ON\s+$t\b/i
			|| $b =~ /^(CREATE|ALTER)\s+SEQUENCE\s+($seqs)\b/i
			|| $b =~ /^SELECT\s+pg_catalog\.pg_extension_config_dump\('($t|$seqs)'/i;
	}
	die "generate.pl: -- \@create $table: no CREATE TABLE or CREATE TYPE $table in the sources\n"
		unless grep { /^CREATE\s+(TABLE|TYPE)/i } @out;
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
	print "-- mm $version install script, generated by sql/generate.pl from\n";
	print "-- sql/mm.sql and sql/parts/*.sql: edit those, not this file.\n\n";
	for my $path (@ARGV)
	{
		my $text = slurp($path);
		statements($text, $path);    # the same checks as an upgrade
		print $text;
		print "\n" unless $text =~ /\n\z/;
	}
}
elsif ($mode eq 'upgrade')
{
	my ($from, $to) = splice(@ARGV, 0, 2);
	my $pre = "sql/upgrade/mm--$from--$to.pre.sql";
	my $post = "sql/upgrade/mm--$from--$to.post.sql";
	my @st = read_sources(@ARGV);
	my (@code, @privileges, $apply);
	for my $s (@st)
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
		elsif ($k eq 'privileges')
		{
			push @privileges, $s;
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
	print expand_creates(slurp($pre), \@st);
	print "\n-- ==== every function, procedure, aggregate, view and comment of sql/parts ====\n";
	print "$_" for @code;
	print "\n\n-- ==== $post ====\n\n";
	print slurp($post);
	print "\n-- ==== the privileges list of sql/parts/90_privileges.sql, applied ====\n\n";
	print "DELETE FROM mm.privileges;\n";
	print "$_" for @privileges;
	print "$apply\n";
}
elsif ($mode eq 'statements')
{
	for my $s (read_sources(@ARGV))
	{
		my $b = body($s);
		my ($head) = $b =~ /^(\S+(?:\s+\S+){0,3})/;
		$head //= '';
		$head =~ s/\s+/ /g;
		printf "%-10s %s\n", kind($s), $head;
	}
}
else
{
	die "usage: perl sql/generate.pl install VERSION SOURCE... | upgrade FROM TO SOURCE... | statements FILE...\n";
}
}

main() unless caller;
1;
