#!/usr/bin/perl
# 505-windows.t - where GPU windows go in the default settings, on the fake
# driver and CUPTI (w_gpu): on the program's steady steps once they are
# found (after a set-up that launches now and then; a step of calls that
# differ every other step is one step), by the clock when no
# step repeats, on a signal (the program's own handler still runs) or a
# trigger file, and on a range of steps; a run with no window says why;
# and the run's own measure of what its windows cost (checked against
# synthetic dumps whose cost is known in 905-cost-line.t).  The start
# window (506-windows-short.t) is left aside here: it comes first, or the
# tests of the other windows turn it off.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

use GtDump qw(run_analyzer);
use GtRun;

my $fake_cupti = GtRun::build_dir() . '/test/fake_cupti/libcupti.so.13';
plan skip_all => "not built: $fake_cupti, w_gpu (run make test)"
	unless -e $fake_cupti && -e GtRun::workload('w_gpu');

my $tmp = tempdir('gt-windows-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{GT_KEEP});

# w_gpu with the fake CUPTI and the default GPU settings unless %env says.
sub run_gpu {
	my ($args, %env) = @_;
	my $r = GtRun::run(['w_gpu', @$args], env => {
		GPUTRACE_GPU => undef, GPUTRACE_GPU_START_CALLS => 0,
		FAKE_CUPTI_KERNEL_NS => 10_000, FAKE_CUPTI_COPY_NS => 5_000,
		FAKE_CUDA_SYNC_NS => 1000, FAKE_CUDA_COPY_NS => 1000, %env });

	$r->{truth} = { $r->{stdout} =~ /(\w+)=(\d+)/g };
	return $r;
}

sub ran_ok {
	my ($r, $what) = @_;

	is($r->{exit}, 0, "$what: exits 0") or diag(GtRun::describe($r));
	return ok($r->{json}, "$what: the analyzer read the dump");
}

# The text report with its lines of prose joined (they wrap at 100 columns).
sub flat { my ($t) = @_; $t =~ s/\n\s+/ /g; return $t }
sub text_of { my ($r) = @_; return flat(run_analyzer($r->{dump})->{out}) }
sub windows { my ($r) = @_; return @{ $r->{json}{gpu_windows} // [] } }
sub placed { my ($r) = @_; return grep { ($_->{reason} // '') ne 'start' } windows($r) }
sub gpu { my ($r) = @_; return ($r->{json} && $r->{json}{gpu}) || {} }

sub all_joined {
	my ($r, $what) = @_;
	my $g = gpu($r);

	cmp_ok($g->{launches_in_windows} // 0, '>', 0, "$what: launches in windows");
	is($g->{launches_joined}, $g->{launches_in_windows},
	   "$what: every launch in a window joined");
	is($g->{records}{$_}, 0, "$what: $_ 0") for qw(unjoined orphans);
}

subtest 'set-up, then steady steps: the first window covers whole steady steps' => sub {
	# 3 s of loading and compiling (a new kernel shape and copy size every
	# 20-60 ms), then 300 steps of about 5 ms; the clock's first window
	# would come 5 s after the first GPU work, after the run.
	my $r = run_gpu(['--setup-ms=3000', '--sleep-us=5000', 300]);

	ran_ok($r, 'set-up') or return;
	my @w = placed($r);
	my $c = $r->{json}{tracing_cost} // {};

	cmp_ok(scalar @w, '>=', 1, 'a window opened');
	is($w[0]{reason}, 'steps', 'placed on the steps') if @w;
	cmp_ok($w[0]{start_ns} // 0, '>=', 3e9, 'after the set-up') if @w;
	cmp_ok(($w[0]{end_ns} // 0) - ($w[0]{start_ns} // 0), '>=', 0.5e9,
	       'at least GPUTRACE_GPU_WINDOW_MS (500 ms) long') if @w;
	cmp_ok($c->{steps_inside} // 0, '>=', 10,
	       'at least GPUTRACE_GPU_WINDOW_STEPS (10) whole steps inside');
	cmp_ok($c->{steps} // 0, '>=', 250, 'the steps were found');
	cmp_ok($c->{steps} // 0, '<=', 300, 'no more steps than the loop ran');
	all_joined($r, 'set-up');
	like(text_of($r), qr/GPU windows: 1, 1 on steady steps/,
	     'the report says where the windows went');
	like(text_of($r), qr/tracing cost in this run: ([-+][\d.]+% per step inside GPU windows|not measurable \(steps vary)/,
	     'and what it cost (the fake CUPTI costs next to nothing)');
};

subtest 'CUPTI\'s attach holds the calls 1.5 s: the window still covers its steps' => sub {
	# As on a GPU another process computes on (1.7 s on an H200): the
	# program's calls wait in the driver while CUPTI attaches, and the
	# steps that come after are the window's, not a sign they stopped.
	my $r = run_gpu(['--sleep-us=5000', 500], FAKE_CUPTI_ATTACH_US => 1_500_000,
			FAKE_CUPTI_ATTACH_HOLDS => 1);

	ran_ok($r, 'held attach') or return;
	my @w = placed($r);
	my $c = $r->{json}{tracing_cost} // {};

	is($w[0]{reason}, 'steps', 'a window placed on the steps') or return;
	cmp_ok($w[0]{end_ns} - $w[0]{start_ns}, '>=', 0.5e9,
	       'the first is GPUTRACE_GPU_WINDOW_MS (500 ms) long: not closed as if the steps had stopped');
	cmp_ok($c->{steps_inside} // 0, '>=', 10,
	       'at least GPUTRACE_GPU_WINDOW_STEPS (10) whole steps inside');
	cmp_ok($r->{json}{diagnosis}{timed_steps} // 0, '>=', 10,
	       'the diagnosis times them');
	my $g = gpu($r);
	is($g->{launches_joined}, $g->{launches_in_windows}, 'every launch in it joined');
	# the call held across the attach began before the window: its
	# record has no launch in it (one thread: one call)
	cmp_ok($g->{records}{unjoined}, '<=', 1, 'at most the held call\'s record unjoined');
};

subtest 'a kernel whose shape differs every other step: the step is one iteration' => sub {
	my $r = run_gpu(['--alternate', '--sleep-us=5000', 300]);

	ran_ok($r, 'alternate') or return;
	my $c = $r->{json}{tracing_cost} // {};

	cmp_ok($c->{steps} // 0, '>=', 250, 'a step per iteration, not per two');
	cmp_ok($c->{steps} // 0, '<=', 300, 'no more steps than the loop ran');
};

subtest 'no step repeats: the clock places the window' => sub {
	my $r = run_gpu(['--random', '--sleep-us=5000', 200], GPUTRACE_GPU_WARMUP_MS => 300,
			GPUTRACE_GPU_START_CALLS => 0);

	ran_ok($r, 'random') or return;
	my @w = windows($r);

	is(scalar @w, 1, 'one window');
	is($w[0]{reason}, 'clock', 'by the clock') if @w;
	cmp_ok($w[0]{start_ns} // 0, '>=', 0.3e9, 'after the warm-up') if @w;
	ok(!$r->{json}{tracing_cost}, 'no steps, so no cost measured from them');
	all_joined($r, 'random');
};

subtest 'a signal opens a window; the program\'s handler still runs' => sub {
	for my $own (0, 1) {
		my $what = $own ? 'own handler' : 'no handler';
		my $r = run_gpu(['--random', '--sleep-us=3000', '--raise-at=100',
				 $own ? ('--own-handler') : (), 300],
				GPUTRACE_GPU_WARMUP_MS => 100000, GPUTRACE_GPU_START_CALLS => 0);

		ran_ok($r, $what) or next;
		my @w = windows($r);

		is(scalar @w, 1, "$what: one window");
		is($w[0]{reason}, 'signal', "$what: opened by the signal") if @w;
		is($r->{truth}{handler_calls}, $own, "$what: the program's handler ran $own time(s)");
		all_joined($r, $what);
	}
	my $r = run_gpu(['--random', '--sleep-us=3000', 100],
			GPUTRACE_GPU_WARMUP_MS => 100000, GPUTRACE_GPU_START_CALLS => 0);
	ran_ok($r, 'no signal');
	is(scalar windows($r), 0, 'no signal, no window');
};

subtest 'a trigger file opens a window, and is removed' => sub {
	my $file = "$tmp/window-now";
	my $r = run_gpu(['--random', '--sleep-us=3000', '--touch-at=100', 300],
			GPUTRACE_GPU_WARMUP_MS => 100000, GPUTRACE_GPU_TRIGGER => $file,
			W_GPU_TRIGGER => $file, GPUTRACE_GPU_START_CALLS => 0);

	ran_ok($r, 'trigger') or return;
	my @w = windows($r);

	is(scalar @w, 1, 'one window');
	is($w[0]{reason}, 'file', 'opened by the file') if @w;
	ok(!-e $file, 'the file was taken away');
};

subtest 'GPUTRACE_GPU_STEPS=a-b: those steps, and no others' => sub {
	my $r = run_gpu(['--sleep-us=3000', 400], GPUTRACE_GPU_STEPS => '100-150');

	ran_ok($r, 'range') or return;
	my @w = windows($r);
	my $c = $r->{json}{tracing_cost} // {};

	is(scalar @w, 1, 'one window');
	is($w[0]{reason}, 'range', 'for the range') if @w;
	cmp_ok($c->{steps_inside} // 0, '>=', 48, 'about 51 steps inside');
	cmp_ok($c->{steps_inside} // 0, '<=', 70, 'not many more');
	cmp_ok((ref $c->{inside} ? $c->{inside}{pairs} : 0) // 0, '>=', 45,
	       'the steps inside paired with as many just outside');
};

subtest 'step markers: an NVTX range or a kernel' => sub {
	my $r = run_gpu(['--sleep-us=2000', 200], GPUTRACE_STEP => 'kernel:scale');

	ran_ok($r, 'kernel marker') or return;
	my $c = $r->{json}{tracing_cost} // {};
	cmp_ok($c->{steps} // 0, '>=', 195, 'a step per launch of the marked kernel');
	cmp_ok($c->{steps} // 0, '<=', 199, 'and no more');
	like($r->{stderr}, qr/^(?!.*ignoring GPUTRACE_STEP)/s, 'the setting is taken');
	SKIP: {
		skip 'w_nvtx not built', 2 unless -x GtRun::workload('w_nvtx');
		my $n = GtRun::run(['w_nvtx', 40, 0], env => { GPUTRACE_STEP => 'nvtx:step' });
		my $s = $n->{json}{steps} // {};

		is($n->{exit}, 0, 'nvtx marker: exits 0');
		is($s->{count}, 39, 'a step per push of the range named "step" (40 pushes)');
		is(($n->{json}{tracing_cost} // {})->{steps}, ($s->{count} // 0) - ($s->{warmup_steps} // 0),
		   'the cost counts the steady ones, as the diagnosis does');
	}
	$r = run_gpu([5], GPUTRACE_STEP => 'bogus');
	like($r->{stderr}, qr/ignoring GPUTRACE_STEP='bogus'/, 'a bad one is said');
	is($r->{exit}, 0, 'and the program runs');
};

subtest 'a run with no window says why' => sub {
	my $r = run_gpu(['--random', '--sleep-us=1000', 50], GPUTRACE_GPU_START_CALLS => 0);

	ran_ok($r, 'short') or return;
	is(scalar windows($r), 0, 'no window');
	like(text_of($r), qr/no GPU window opened: no repeating launch pattern was found, and the run ended before the clock's first window/,
	     'the report says why');
	$r = run_gpu(['--sleep-us=2000', 8], GPUTRACE_GPU_START_CALLS => 0);
	ran_ok($r, 'few steps') or return;
	like(text_of($r), qr/no GPU window opened: \d+ steps were found, but/,
	     'steps, but too few: said');
};

# CUPTI's enable and disable take a while (FAKE_CUPTI_SWITCH_US for each
# kind) while two threads go on launching: calls made while only some
# kinds are on bring no record for the drain to wait for, and the window
# must still be detached once its records came, not kept attached (at
# about 1 us a launch) to the run's end.
subtest 'CUPTI detaches soon after a window while threads race its switch' => sub {
	my $r = run_gpu(['--threads=2', '--sleep-us=500', 2500],
			GPUTRACE_GPU_STEPS => '100-150', FAKE_CUPTI_SWITCH_US => 3000);

	ran_ok($r, 'racing') or return;
	my @w = windows($r);
	my $text = text_of($r);

	is(scalar @w, 1, 'one window');
	return unless @w;
	cmp_ok($w[0]{off_ns} // 0, '>', $w[0]{end_ns}, 'CUPTI went off after the window');
	cmp_ok(($w[0]{off_ns} // 0) - $w[0]{end_ns}, '<', 1e9,
	       'within a second of its end (the run went on for more)');
	unlike($text, qr/stayed attached/, 'no note of CUPTI kept attached');
	all_joined($r, 'racing');
};

done_testing();
