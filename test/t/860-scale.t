#!/usr/bin/perl
# 860-scale.t - many names rather than many events
# (test/bench/make_worst_dump.c): 60,000 shapes then a kernel defined again
# 60,000 times, 100,000 distinct kernels, 100,000 distinct NVTX names.
# Every output mode (and --diff, and ranks) finishes within generous bounds
# of CPU time, which a busy machine does not stretch (a quadratic walk took
# minutes: 100,000 kernels in --trace 424 s, 30,000 redefinitions 12 to
# 17 s), --sqlite keeps every definition of a function with its version
# and joins each launch to the one in force, and memory stays near 1 KB a
# kernel (it was 1.9 KB: a histogram and a span list of a kilobyte each
# for rows of one call).  Under a sanitizer: a quarter of the names, bounds
# 3 times wider.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtDump qw(analyzer_path measure_analyzer);

my $build = $ENV{GT_BUILD} // 'build';
my $gen = "$build/test/make_worst_dump";
plan skip_all => 'analyzer not built' unless -x analyzer_path();
plan skip_all => "no $gen (make test builds it)" unless -x $gen;

my $dir = tempdir(CLEANUP => 1);

sub sanitized {
	open(my $fh, '<:raw', analyzer_path()) or return 0;
	local $/;
	return index(<$fh>, '__asan_init') >= 0;
}
my $slow = sanitized() ? 3 : 1;  # and a quarter of the names (CI time)

sub make_dump {
	my ($case, $n) = @_;
	my $path = "$dir/$case.bin";

	system($gen, $path, $case, $n) == 0 or BAIL_OUT("$gen failed");
	return $path;
}

sub measure { return measure_analyzer($dir, @_) }

sub modes {
	my ($path) = @_;

	unlink("$dir/out.db");
	return (json => ['--json', $path], trace => ['--trace', '/dev/null', $path],
		perfetto => ['--perfetto', '/dev/null', $path],
		sqlite => ['--sqlite', "$dir/out.db", $path],
		html => ['--html', "$dir/out.html", $path],
		diff => ['--diff', $path, $path], ranks => ['--json', $path, $path]);
}

# A build without protobuf-c has no --perfetto (it says so).
my $have_perfetto = `'${\analyzer_path()}' --perfetto /dev/null /dev/null 2>&1`
	!~ /built without the Perfetto export/;

my %bound = (redefine => 15, kernels => 10, nvtx => 10);
my %n = map { $_->[0] => $_->[1] / ($slow > 1 ? 4 : 1) }
	([redefine => 60_000], [kernels => 100_000], [nvtx => 100_000]);
for my $case (qw(redefine kernels nvtx)) {
	my $path = make_dump($case, $n{$case});
	my %m = modes($path);

	for my $mode (qw(json trace perfetto sqlite html diff ranks)) {
		next if $mode eq 'perfetto' && !$have_perfetto;
		my $limit = $bound{$case} * $slow * ($mode =~ /diff|ranks/ ? 3 : 1);
		$limit = 5 * $slow if $case eq 'kernels' && $mode eq 'trace';
		unlink("$dir/out.db") if $mode eq 'sqlite';
		my ($t, $rss, $rc) = measure(@{ $m{$mode} });

		is($rc, 0, "$case $n{$case}, --$mode: exit 0")
			or diag(`cat $dir/err`);
		ok($t < $limit, sprintf("$case $n{$case}, --$mode: %.1f s of CPU "
					. "(under %d s)", $t, $limit));
		next unless $case eq 'kernels' && $mode eq 'json';
		SKIP: {
			skip 'no /usr/bin/time (Debian package time)', 1 unless defined $rss;
			skip 'a sanitizer adds its own memory', 1 if $slow > 1;
			ok($rss < 150 * 1024, "$n{$case} kernels, --json: peak $rss KiB "
			   . '(under 150 MiB; 1.9 KiB a kernel was 190 MiB)');
		}
	}
}

# --sqlite keeps every definition: 64 kernels, then kernel 1 N times more.
SKIP: {
	skip 'no sqlite3 command', 4 unless system('sqlite3 -version >/dev/null 2>&1') == 0;
	my $path = make_dump('redefine', 1000);
	my ($t, $rss, $rc) = measure('--sqlite', "$dir/r.db", $path);
	my $q = sub { my $v = `sqlite3 $dir/r.db "$_[0]"`; chomp $v; $v };

	is($rc, 0, '--sqlite of 1,000 redefinitions: exit 0');
	is($q->('SELECT count(*), max(version) FROM kernels WHERE id = 1'),
	   '1001|1001', 'every definition of kernel 1 is a row, with its version');
	is($q->('SELECT count(*) FROM launches l JOIN kernels k ON k.dump = l.dump '
		. 'AND k.id = l.function AND k.version = l.function_version '
		. 'WHERE l.shape = 1'),
	   $q->('SELECT count(*) FROM launches WHERE shape = 1'),
	   'each launch of kernel 1 joins to one definition');
	is($q->('SELECT count(DISTINCT function_version) FROM launches '
		. 'WHERE shape = 1'), '1001', '... the one in force at the launch');
}

done_testing();
