#!/usr/bin/perl
# 70-fork.t - fork after CUDA is in use (DataLoader workers): a child that
# makes no CUDA call leaves no dump, one that does gets its own dump with
# exactly its own events, the parent's dump keeps exactly the parent's,
# and forking while threads launch and the writer drains every
# millisecond never hangs a child (no lock is held across fork).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;
use GtSafety;

GtRun::require_built(tracer => 1);

my %FAST = (FAKE_CUDA_SYNC_NS => 1000);

subtest 'children without CUDA calls leave no dump' => sub {
	my $r = GtRun::run(['w_fork', 'quiet', 100], env => \%FAST);
	my @t = GtSafety::truths($r);
	my %d = GtSafety::dumps_by_pid($r);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	like($r->{stdout}, qr/^children ok 2$/m, 'both children exited 0');
	is(scalar(@{$r->{dumps}}), 1, 'one dump: the parent\'s')
		or diag("@{$r->{dumps}}");
	is(scalar(@t), 1, 'one truth line');
	GtSafety::exact($d{$t[0]{pid}}[0], $t[0], 'the parent\'s dump is exact');
	is(scalar(GtSafety::tracer_lines($r)), 1, 'one line on stderr');
};

subtest 'a child that launches has its own dump' => sub {
	my $r = GtRun::run(['w_fork', 'busy', 100, 50], env => \%FAST);
	my @t = GtSafety::truths($r);
	my %d = GtSafety::dumps_by_pid($r);
	my ($child, $parent) = @t;

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(scalar(@{$r->{dumps}}), 2, 'two dumps') or diag("@{$r->{dumps}}");
	is(scalar(@t), 2, 'two truth lines') or return;
	GtSafety::exact($d{$parent->{pid}}[0], $parent, 'parent: exactly its events');
	GtSafety::exact($d{$child->{pid}}[0], $child, 'child: exactly its events');
	is($d{$child->{pid}}[0]{process}{ppid}, $parent->{pid},
	   'the child\'s dump names its parent');
	cmp_ok(scalar(GtRun::rows($d{$child->{pid}}[0], 'kernels')), '==', 1,
	       'the child\'s dump names the kernel');
};

subtest 'fork storm: threads launching, writer draining every ms' => sub {
	my ($threads, $kids, $m) = (8, 30, 20);
	my $r = GtRun::run(['w_fork', 'storm', $threads, $kids, $m],
			   env => { %FAST, GPUTRACE_FLUSH_MS => 1 }, timeout => 300);
	my @t = GtSafety::truths($r);
	my %d = GtSafety::dumps_by_pid($r);
	my $parent = $t[-1];

	is($r->{exit}, 0, 'exits 0: no child hung or failed')
		or diag(GtRun::describe($r));
	like($r->{stdout}, qr/^children ok $kids$/m, "all $kids children exited 0");
	is(scalar(@t), $kids + 1, 'a truth line per process');
	is(scalar(keys %d), $kids + 1, 'a dump per process');
	my $bad = 0;
	for my $t (@t[0 .. $#t - 1]) {
		my $j = $d{$t->{pid}} && $d{$t->{pid}}[0];
		my $ok = $j && $j->{events} == 2 * $m && $j->{dropped} == 0 &&
			!$j->{ends_early} &&
			GtSafety::calls_of($j, 'kernels', 'symbol', GtRun::K_WORKER) == $m;
		next if $ok;
		$bad++;
		diag("child $t->{pid}: no dump read"), next unless $j;
		diag(sprintf("child %d: events %d, dropped %d, ends early %s, " .
			     "launches of the worker kernel %d", $t->{pid},
			     $j->{events}, $j->{dropped}, $j->{ends_early} ? 'yes' : 'no',
			     GtSafety::calls_of($j, 'kernels', 'symbol', GtRun::K_WORKER)));
	}
	is($bad, 0, "every child's dump has exactly its $m launches and syncs");
	GtSafety::exact($d{$parent->{pid}}[0], $parent,
			'the parent\'s dump: every event in it or counted', drops => 1);
};

done_testing();
