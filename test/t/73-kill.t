#!/usr/bin/perl
# 73-kill.t - a program that ends without exit: SIGKILL (as the
# out-of-memory killer sends) or _exit (as os._exit and multiprocessing's
# children do).  The writer flushes every GPUTRACE_FLUSH_MS, so the dump
# holds everything up to then; the analyzer says it ends early and reads
# it, and reads it cut at any byte up to where the data stops.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtRun;
use GtSafety;

GtRun::require_built(tracer => 1);

my %FAST = (FAKE_CUDA_SYNC_NS => 1000);
my $kept;

for my $mode ([kill => 9, 0], [_exit => 0, 0]) {
	my ($how, $sig, $exit) = @$mode;

	subtest "$how, 300 ms after the last call" => sub {
		my $r = GtRun::run(['w_kill', $how, 2000], env => \%FAST);
		my @t = GtSafety::truths($r);

		is($r->{signal}, $sig, "ends by $how") or diag(GtRun::describe($r));
		is($r->{exit}, $exit, 'exit status');
		is(scalar(@{$r->{dumps}}), 1, 'a dump') or return;
		my ($j, $err, $status) = GtSafety::analyze($r->{dumps}[0]);
		is($status, 0, 'the analyzer reads it');
		like($err, qr/ends early/, 'and says it ends early');
		GtSafety::exact($j, $t[0], 'every event', early => 1);
		my $text = `'${\ GtRun::analyzer()}' '$r->{dumps}[0]' 2>/dev/null`;
		like($text, qr/ends early/, 'the text report says so too');
		$kept = GtRun::slurp($r->{dumps}[0]) if $how eq 'kill';
	};
}

subtest 'killed while threads launch: flushed within GPUTRACE_FLUSH_MS' => sub {
	my $r = GtRun::run(['w_kill', 'kill', 100, '--threads', 4, '--wait', 200],
			   env => \%FAST);
	my @t = GtSafety::truths($r);

	is($r->{signal}, 9, 'killed') or diag(GtRun::describe($r));
	my ($j, $err, $status) = GtSafety::analyze($r->{dumps}[0] // '');
	is($status, 0, 'the analyzer reads it') or diag($err);
	ok($j && $j->{ends_early}, 'ends early');
	cmp_ok($j ? $j->{events} + $j->{dropped} : 0, '>=',
	       $t[0]{launches} + $t[0]{syncs},
	       'everything up to 200 ms before the kill');
};

subtest 'a dump cut at any point reads up to the cut' => sub {
	plan skip_all => 'no dump kept' unless $kept;
	my $dir = tempdir(CLEANUP => 1);
	my ($prev, $bad) = (0, 0);
	my $n = 0;

	for (my $cut = 64; $cut <= length($kept); $cut += 1 + int(length($kept) / 97)) {
		open(my $fh, '>:raw', "$dir/cut.bin") or die;
		print $fh substr($kept, 0, $cut);
		close($fh);
		my ($j, $err, $status) = GtSafety::analyze("$dir/cut.bin");
		$n++;
		if ($status || !$j || !$j->{ends_early} || $j->{events} < $prev) {
			$bad++;
			diag("cut at $cut: exit $status $err");
			next;
		}
		$prev = $j->{events};
	}
	cmp_ok($n, '>', 50, "$n cuts");
	is($bad, 0, 'each reads (exit 0), ends early, no fewer events than a shorter cut');
};

done_testing();
