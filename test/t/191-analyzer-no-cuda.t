#!/usr/bin/perl
# 191-analyzer-no-cuda.t - the two commands build with no CUDA headers at
# all: make analyzer, asked what it would do (make -n -B) with CUDA_HOME
# pointing nowhere, neither checks for the CUDA headers nor passes their
# folder to the compiler, and no source it compiles includes a CUDA,
# CUPTI, NCCL, NVTX or NVML header from outside the repository,
# /usr/include included.
# Each compile command is run as the preprocessor alone (-M -MG: a header
# not found is listed, not an error), which takes seconds, not a build.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Temp qw(tempdir);
use FindBin;
use Test::More;

my $root = abs_path("$FindBin::Bin/../..");
my $tmp = tempdir('gt-XXXXXX', TMPDIR => 1, CLEANUP => 1);

plan skip_all => 'no make' unless system('make --version >/dev/null 2>&1') == 0;

my $CUDA = qr{\b(?:cuda\w*|cupti\w*|nccl\w*|nvToolsExt\w*|nvtx3|nvml\w*)(?:\.h\b|/)}i;

my @plan = qx{make --no-print-directory -C '$root' -n -B B='$tmp/b' CUDA_HOME=/nonexistent analyzer 2>&1};
is($?, 0, 'make -n analyzer with CUDA_HOME=/nonexistent') or diag(@plan);
is_deeply([grep { /not found|nonexistent/ } @plan], [],
	  'no header check, no CUDA folder on a command line');

my @compiles = grep { /\s-c\s+-o\s+\S+\s+analyzer\/\S+\.c\s*$/ } @plan;
cmp_ok(scalar @compiles, '>', 20, scalar(@compiles) . ' analyzer sources compiled');

my @bad;
for my $cmd (@compiles) {
	my ($src) = $cmd =~ /\s(analyzer\/\S+\.c)\s*$/;
	(my $pp = $cmd) =~ s/\s-MMD\s+-MP\s/ /;
	$pp =~ s/\s-c\s+-o\s+\S+\s/ -M -MG /;
	my $deps = qx{cd '$root' && $pp 2>&1};
	if ($?) {
		push @bad, "$src: the preprocessor failed: $deps";
		next;
	}
	# the project's own headers (analyzer/nccl.h) are not the toolkit's
	push @bad, map { "$src: $_" } grep { /$CUDA/ && !m{^(?:analyzer|include)/} }
		split(/[\s\\]+/, $deps);
}
is_deeply(\@bad, [], 'no analyzer source includes a CUDA header');

done_testing();
