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
	unless -f "$build/analyzer/reader/dump_chunks.d" && -f "$build/preload/record/ring.d";
plan skip_all => 'no make' unless system('make --version >/dev/null 2>&1') == 0;

# Under make -j (make test), the outer make's job server is not handed
# down to ours: its flags are dropped, or ours warns that it is missing.
delete @ENV{qw(MAKEFLAGS MFLAGS MAKELEVEL)};

# The name the objects were made under: relative to the top, as make test
# and make test-asan give it.
my $b = $build =~ s{^\Q$root\E/}{}r;

# Would make rebuild $object if $header had changed?
sub rebuilds {
	my ($header, $object) = @_;
	my $out = `make -s -C '$root' -n B='$b' -W '$header' '$b/$object' 2>&1`;

	return $out =~ /\s-c\s.*\Q$object\E/ ? 1 : 0;
}

# HEADER, OBJECT, whether it is rebuilt, what that shows.
my @CASES = (
	['include/gputrace/varint.h', 'analyzer/reader/dump_chunks.o', 1, 'a header the file includes'],
	['include/gputrace/format.h', 'analyzer/model/model.o', 1, 'a header included through another'],
	['include/gputrace/varint.h', 'analyzer/lib/units.o', 0, 'a header it does not include'],
	['analyzer/lib/hmap.h', 'analyzer/lib/units.o', 0, 'another analyzer header'],
	['preload/record/ring.h', 'preload/record/ring.o', 1, 'a library header, its file'],
	['preload/record/ring.h', 'preload/base/tsc.o', 0, 'a library header, another file'],
	['preload/base/hooks.def', 'preload/base/ops.o', 1, 'an included .def'],
);

for my $c (@CASES) {
	my ($header, $object, $want, $what) = @$c;

	is(rebuilds($header, $object), $want,
	   "$what: $object " . ($want ? 'rebuilt' : 'not rebuilt'));
}

# Nothing changed: the built objects are up to date, the CUDA headers'
# check included (a stamp, not a target made every time).
my $out = `make -s --no-print-directory -C '$root' -n B='$b' '$b/preload/record/ring.o' '$b/libgputrace.so' 2>&1`;
is($out, '', 'a built object and the library: nothing to do');

done_testing();
