#!/usr/bin/perl
# 197-make-deps.t - make rebuilds an object when a header it includes, even
# through another header, changes, and only then: the compiler writes each
# object's headers (-MMD -MP) and the Makefile includes them.  Asked of
# make -n -W HEADER (as if HEADER had changed, touching nothing) on the
# objects of the build under test.
use strict;
use warnings;
use Cwd qw(abs_path);
use FindBin;
use Test::More;

my $root = abs_path("$FindBin::Bin/../..");
my $build = abs_path($ENV{GT_BUILD} // "$root/build") // '';

plan skip_all => 'no objects built with their dependencies'
	unless -f "$build/analyzer/dump_chunks.d" && -f "$build/preload/ring.d";
plan skip_all => 'no make' unless system('make --version >/dev/null 2>&1') == 0;

# The name the objects were made under: relative to the top, as make test
# and make test-asan give it.
my $b = $build =~ s{^\Q$root\E/}{}r;

# Would make rebuild $object if $header had changed?
sub rebuilds {
	my ($header, $object) = @_;
	my $out = `make -s -C '$root' -n B='$b' -W '$header' '$b/$object' 2>&1`;

	return $out =~ /\s-c\s.*\Q$object\E/ ? 1 : 0;
}

is(rebuilds('include/gputrace/varint.h', 'analyzer/dump_chunks.o'), 1,
   'a header the analyzer file includes: rebuilt');
is(rebuilds('include/gputrace/format.h', 'analyzer/model.o'), 1,
   'a header it includes through another: rebuilt');
is(rebuilds('include/gputrace/varint.h', 'analyzer/units.o'), 0,
   'a header it does not include: not rebuilt');
is(rebuilds('analyzer/hmap.h', 'analyzer/units.o'), 0,
   'another analyzer header: not rebuilt');
is(rebuilds('preload/ring.h', 'preload/ring.o'), 1,
   'a library header: its files rebuilt');
is(rebuilds('preload/ring.h', 'preload/tsc.o'), 0,
   'not the others');
is(rebuilds('preload/hooks.def', 'preload/ops.o'), 1,
   'an included .def: rebuilt');

done_testing();
