#!/usr/bin/perl
# 850-size.t - a dump of 10 million events (test/bench/make_big_dump.c):
# the text report and --trace finish in seconds, --trace in constant
# memory (the same peak for 1 million events as for 10 million), the text
# report within the caps of its parts; the progress bar shows on a
# terminal (forced here with GPUTRACE_PROGRESS=1) and not otherwise.
# GT_BIG_EVENTS=N changes the size.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtDump qw(run_analyzer measure_analyzer);

my $build = $ENV{GT_BUILD} // 'build';
my $gen = "$build/test/make_big_dump";
plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();
plan skip_all => "no $gen (make test builds it)" unless -x $gen;

my $events = $ENV{GT_BIG_EVENTS} // 10_000_000;
my $dir = tempdir(CLEANUP => 1);

sub make_dump {
	my ($n) = @_;
	my $path = "$dir/big-$n.bin";

	system($gen, $path, $n, 8) == 0 or BAIL_OUT("$gen failed");
	return $path;
}

sub measure { return measure_analyzer($dir, @_) }

my $big = make_dump($events);
my $small = make_dump(int($events / 10));

my ($t, $rss, $rc) = measure($big);
is($rc, 0, "text report of $events events: exit 0");
ok($t < 60, sprintf('text report in %.1f s', $t));
SKIP: {
	skip 'no /usr/bin/time (Debian package time)', 1 unless defined $rss;
	ok($rss < 400 * 1024, "text report peak $rss KiB: within the caps of its parts");
}

my ($tt, $trss, $trc) = measure('--trace', '/dev/null', $big);
is($trc, 0, '--trace: exit 0');
ok($tt < 60, sprintf('--trace of %d events in %.1f s', $events, $tt));
SKIP: {
	skip 'no /usr/bin/time (Debian package time)', 2 unless defined $trss;
	my (undef, $srss) = measure('--trace', '/dev/null', $small);
	ok($trss < 64 * 1024, "--trace peak $trss KiB");
	ok($trss < $srss + 8 * 1024, "--trace: $srss KiB for a tenth of the events, " .
	   "$trss KiB for all: constant");
}

# the progress bar: forced on, it is drawn and erased; through a pipe, not
my $res = do {
	local $ENV{GPUTRACE_PROGRESS} = '1';
	run_analyzer($small);
};
is($res->{exit}, 0, 'progress forced: exit 0');
like($res->{err}, qr/\rreading \[=+>? *\] +\d+% of [\d.]+ MiB/, 'a progress bar on stderr');
like($res->{err}, qr/100%/, 'up to 100%');
like($res->{err}, qr/\r +\r\z/, 'erased at the end');
$res = do {
	local $ENV{GPUTRACE_PROGRESS};
	delete $ENV{GPUTRACE_PROGRESS};
	run_analyzer($small);
};
is($res->{err}, '', 'not a terminal: no bar');

done_testing();
