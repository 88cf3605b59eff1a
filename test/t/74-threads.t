#!/usr/bin/perl
# 74-threads.t - dozens of threads launching at once; threads that exit
# early keep their events; waves of short-lived threads reuse the buffers
# of those gone; CUDA reached late, from a thread; more threads than the
# memory budget has buffers for: their events are counted as dropped,
# exactly, with one line on stderr.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;
use GtSafety;

GtRun::require_built(tracer => 1);

my %FAST = (FAKE_CUDA_SYNC_NS => 1000);

for my $mode ([], ['--ptsz']) {
	subtest "w_threads 64 300 @$mode" => sub {
		my ($t, $m) = (64, 300);
		my $r = GtRun::run(['w_threads', @$mode, $t, $m], env => \%FAST);
		my $j = $r->{json};

		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		ok($j, 'the analyzer read the dump') or return;
		is(GtSafety::calls_of($j, 'kernels', 'symbol', GtRun::K_WORKER), $t * $m,
		   'every launch of every thread, the one that left early too');
		is($j->{threads}, $t, 'one buffer per thread');
		GtRun::check_totals($r);
	};
}

# 40 threads at once for 1 s (syncs of 10 ms), buffers for 16: a thread
# without one waits 500 ms at most for one to come back.
subtest 'more threads than buffers: drops counted exactly' => sub {
	my $r = GtRun::run(['w_threads', 40, 100], env => {
		FAKE_CUDA_SYNC_NS => 10_000_000, GPUTRACE_BUFFER_MB => 64 });
	my $j = $r->{json};
	my @warn = grep { !/wrote/ } GtSafety::tracer_lines($r);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($j, 'the analyzer read the dump') or return;
	cmp_ok($j->{dropped}, '>', 0, 'events were dropped');
	GtRun::check_totals($r, drops => 1);
	is(scalar(@warn), 1, 'one line says why') or diag(join "\n", @warn);
	like($warn[0] // '', qr/GPUTRACE_BUFFER_MB/, 'naming the setting');
};

for my $case ([8, 32, 200, {}], [6, 24, 100, { GPUTRACE_FLUSH_MS => 60000 }]) {
	my ($waves, $threads, $m, $env) = @$case;
	my $what = %$env ? ', no timed flush' : '';

	subtest "w_late $waves waves of $threads threads$what" => sub {
		my $r = GtRun::run(['w_late', $waves, $threads, $m],
				   env => { %FAST, %$env });
		my @t = GtSafety::truths($r);

		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		is($t[0]{launches}, $waves * $threads * $m, 'it ran');
		GtSafety::exact($r->{json}, $t[0], 'every event of every thread');
		is(scalar(GtSafety::tracer_lines($r)), 1, 'one line on stderr')
			or diag($r->{stderr});
	};
}

done_testing();
