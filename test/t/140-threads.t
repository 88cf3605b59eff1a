#!/usr/bin/perl
# 140-threads.t - many threads launching at once (w_threads: one leaves
# early through pthread_exit), and a run with buffers too small to keep
# everything: then the drops must account exactly for what is missing.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);

my $SYNC = 50_000;

for my $mode ([], ['--ptsz']) {
	subtest "w_threads 8 200 @$mode" => sub {
		my ($t, $m) = (8, 200);
		my $r = GtRun::run(['w_threads', @$mode, $t, $m],
				   env => { FAKE_CUDA_SYNC_NS => $SYNC });
		my $j = $r->{json};

		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		ok($j, 'the analyzer read the dump') or return;
		my $k = GtRun::kernel($j, GtRun::K_WORKER);
		is($k && $k->{calls}, $t * $m, 'every launch of every thread')
			or diag(explain([GtRun::rows($j, 'kernels')]));
		my $s = GtRun::sync($j, 'cuStreamSynchronize');
		is($s->{calls}, ($t - 1) * $m, 'every stream sync');
		cmp_ok($s->{ns}, '>=', ($t - 1) * $m * $SYNC, 'sync wait time');
		cmp_ok($s->{ns}, '>=', GtRun::fake_ns($r, 'cuStreamSynchronize'),
		       'sync wait time >= the fake\'s time');
		is(scalar(GtRun::rows($j, 'kernels')), 1, 'one kernel');
		GtRun::check_totals($r);
	};
}

# Tiny per-thread rings, no timed flush: events are lost, and counted.
for my $case ([ 'w_threads', 4, 5000 ], [ 'w_cudart', 3000, 100 ]) {
	my @args = @$case;

	subtest "drops: @args" => sub {
		my $r = GtRun::run(\@args, env => {
			GPUTRACE_THREAD_BUFFER_KB => 1,
			GPUTRACE_BUFFER_MB => 1,
			GPUTRACE_FLUSH_MS => 600_000,
			FAKE_CUDA_SYNC_NS => 0, FAKE_CUDA_COPY_NS => 0,
		});
		my $j = $r->{json};

		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		ok($j, 'the analyzer read the dump') or return;
		cmp_ok($j->{dropped}, '>', 0, 'events were dropped');
		GtRun::check_totals($r, drops => 1);
	};
}

done_testing();
