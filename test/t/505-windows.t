#!/usr/bin/perl
# 505-windows.t - where GPU windows go in the default settings, on the fake
# driver and CUPTI (w_gpu): on the program's steady steps once they are
# found (after a set-up that launches now and then; a step of calls that
# differ every other step is one step), by the clock when no
# step repeats, on a signal (the program's own handler still runs) or a
# trigger file, and on a range of steps; a run with no window says why;
# and the run's own measure of what its windows cost, checked against a
# synthetic dump whose steps and windows are known.
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
		GPUTRACE_GPU => undef, FAKE_CUPTI_KERNEL_NS => 10_000, FAKE_CUPTI_COPY_NS => 5_000,
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
	my @w = windows($r);
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
	     'the report says where the window went');
	like(text_of($r), qr/tracing cost in this run: [-+][\d.]+% per step inside GPU windows/,
	     'and what it cost');
};

subtest 'a kernel whose shape differs every other step: the step is one iteration' => sub {
	my $r = run_gpu(['--alternate', '--sleep-us=5000', 300]);

	ran_ok($r, 'alternate') or return;
	my $c = $r->{json}{tracing_cost} // {};

	cmp_ok($c->{steps} // 0, '>=', 250, 'a step per iteration, not per two');
	cmp_ok($c->{steps} // 0, '<=', 300, 'no more steps than the loop ran');
};

subtest 'no step repeats: the clock places the window' => sub {
	my $r = run_gpu(['--random', '--sleep-us=5000', 200], GPUTRACE_GPU_WARMUP_MS => 300);

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
				GPUTRACE_GPU_WARMUP_MS => 100000);

		ran_ok($r, $what) or next;
		my @w = windows($r);

		is(scalar @w, 1, "$what: one window");
		is($w[0]{reason}, 'signal', "$what: opened by the signal") if @w;
		is($r->{truth}{handler_calls}, $own, "$what: the program's handler ran $own time(s)");
		all_joined($r, $what);
	}
	my $r = run_gpu(['--random', '--sleep-us=3000', 100],
			GPUTRACE_GPU_WARMUP_MS => 100000);
	ran_ok($r, 'no signal');
	is(scalar windows($r), 0, 'no signal, no window');
};

subtest 'a trigger file opens a window, and is removed' => sub {
	my $file = "$tmp/window-now";
	my $r = run_gpu(['--random', '--sleep-us=3000', '--touch-at=100', 300],
			GPUTRACE_GPU_WARMUP_MS => 100000, GPUTRACE_GPU_TRIGGER => $file,
			W_GPU_TRIGGER => $file);

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
	cmp_ok($c->{steps_before} // 0, '>=', 45, 'the steps before it are outside (50 of them compared)');
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
		is($n->{exit}, 0, 'nvtx marker: exits 0');
		is(($n->{json}{tracing_cost} // {})->{steps}, 39,
		   'a step per push of the range named "step" (40 pushes)');
	}
	$r = run_gpu([5], GPUTRACE_STEP => 'bogus');
	like($r->{stderr}, qr/ignoring GPUTRACE_STEP='bogus'/, 'a bad one is said');
	is($r->{exit}, 0, 'and the program runs');
};

subtest 'a run with no window says why' => sub {
	my $r = run_gpu(['--random', '--sleep-us=1000', 50]);

	ran_ok($r, 'short') or return;
	is(scalar windows($r), 0, 'no window');
	like(text_of($r), qr/no GPU window opened: no repeating launch pattern was found, and the run ended before the clock's first window/,
	     'the report says why');
	$r = run_gpu(['--sleep-us=2000', 8]);
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

# ---- the cost figures, from a dump whose steps and windows are known ----

use constant { MS => 1_000_000, CHUNK_STEPS => 21, CHUNK_SWITCH => 22,
	       CHUNK_WINDOW => 18 };

# A dump of steps, given as runs [count, ms, in a window?]: each run in a
# window gets its window and switching span, which cover its steps.
sub steps_dump {
	my ($name, @runs) = @_;
	my $d = GtDump->new(pid => 7, start_ns => 1_000 * MS);
	my @b = (2_000 * MS);
	my $seq = 0;

	for my $run (@runs) {
		my ($n, $ms, $in) = @$run;     # $ms: each step's, or a list
		my $from = $#b;

		push @b, $b[-1] + $_ * MS for ref $ms ? @$ms : ($ms) x $n;
		next unless $in;
		$seq++;
		$d->add_chunk(CHUNK_WINDOW, pack('Q< Q< V V', $b[$from] + 2 * MS, 0, $seq, 0));
		$d->add_chunk(CHUNK_WINDOW, pack('Q< Q< V V', $b[$from] + 2 * MS,
						 $b[-1] - 2 * MS, $seq, 0));
		$d->add_chunk(CHUNK_SWITCH, pack('V V Q< Q< V V', $seq, 2, $b[$from] + 0.1 * MS,
						 $b[-1] - 0.1 * MS, 10, 0));
	}
	return steps_chunk($d, "$tmp/$name.bin", @b);
}

sub steps_chunk {
	my ($d, $path, @b) = @_;
	my ($first, @rest) = @b;
	my $p = pack('V V Q< Q< V V', scalar @b, 1, $first, 1, 5, 11);
	my $prev = $first;

	for (@rest) {
		$p .= GtDump::varint($_ - $prev);
		$prev = $_;
	}
	$d->process(host => 'h', exe => '/bin/train', argv => ['train']);
	$d->add_chunk(CHUNK_STEPS, $p);
	$d->end(end_ns => $b[-1] + MS);
	return $d->write($path);
}

# 100 steps: 30 of 10 ms, 15 of 11 ms in a window, 55 of 10.1 ms after it;
# the window is compared with the 15 steps on either side.
sub cost_dump { return steps_dump('cost', [30, 10], [15, 11, 1], [55, 10.1]) }

subtest 'the cost figures match a synthetic dump' => sub {
	my $path = cost_dump();
	my $j = run_analyzer('--json', $path);
	my $t = run_analyzer($path);
	$t->{out} = flat($t->{out});

	is($j->{exit}, 0, 'json: exit 0') or diag($j->{err});
	my $c = (eval { JSON::PP::decode_json($j->{out}) } // {})->{tracing_cost} // {};
	is($c->{steps}, 100, '100 steps');
	is($c->{steps_inside}, 15, '15 inside the window');
	is($c->{steps_before}, 15, 'compared with the 15 steps just before it');
	is($c->{steps_after}, 15, 'and the 15 just after it');
	is($c->{inside_p50_ns}, 11 * MS, 'inside: 11 ms a step');
	is($c->{outside_p50_ns}, 10.1 * MS, 'around: 10.1 ms (the median of 15 x 10 and 15 x 10.1)');
	cmp_ok(abs($c->{inside} - (11 / 10.1 - 1)), '<', 1e-6, 'inside: +8.91%');
	cmp_ok(abs($c->{covered} - 0.15), '<', 1e-6, 'covered: 15%');
	cmp_ok(abs($c->{overall} - 15 * 0.9 / (300 + 165 + 55 * 10.1)), '<', 1e-6,
	       'overall: 13.5 ms of 1020.5 ms, +1.32%');
	cmp_ok(abs($c->{after_detach} - 0.01), '<', 1e-6, 'after the window: +1.0%');
	like($t->{out}, qr/tracing cost in this run: \+8\.9% per step inside GPU windows \(11\.00 ms a step on average against 10\.10 ms for the steps around them\), which covered 15\.0% of the 100 steps; \+1\.32% overall/,
	     'the report line');
	is($c->{after_windows}, 1, 'one window before and after');
	like($t->{out}, qr/after a window \(CUPTI off again\): \+1\.0% per step just after it against just before it \(one window; the first: 10\.10 ms against 10\.00 ms\)/,
	     'and the line on what CUPTI leaves');
};

# A window whose first step holds a long switch (200 ms) and whose other
# 14 steps take 10.5 ms, against 10 ms around it: the mean says +131%, the
# medians +5%; the report gives both.
subtest 'a long step inside a window: the means and the medians' => sub {
	my $path = steps_dump('long', [30, 10], [15, [200, (10.5) x 14], 1], [55, 10]);
	my $j = run_analyzer('--json', $path);
	my $c = (eval { JSON::PP::decode_json($j->{out}) } // {})->{tracing_cost} // {};
	my $t = run_analyzer($path);
	my $mean = (200 + 14 * 10.5) / 15;

	cmp_ok(abs($c->{inside} - ($mean / 10 - 1)), '<', 1e-4, 'inside: the mean, +131%');
	is($c->{inside_mean_ns}, int($mean * MS), 'the mean step inside: 23.13 ms');
	is($c->{around_mean_ns}, 10 * MS, 'around: 10 ms');
	is($c->{inside_p50_ns}, 10.5 * MS, 'the median inside: 10.5 ms');
	like($t->{out}, qr/\+131\.3% per step inside GPU windows \(23\.13 ms a step on average against\s+10\.00 ms/,
	     'the report line: the mean');
	like($t->{out}, qr/by the medians: \+5\.0% per step inside \(10\.50 ms against 10\.00 ms\)/,
	     'and the medians');
	unlike(run_analyzer(cost_dump())->{out}, qr/by the medians/,
	       'not when they agree with the mean');
};

# Three windows of 12 steps, each compared with the 12 steps on either
# side: after over before 10/10, 10.5/10 and 10.71/10.5, so +0%, +5% and
# +2%: the median, +2%, is what CUPTI leaves, not the first window's +0%.
subtest 'what CUPTI leaves: the median over windows' => sub {
	my $path = steps_dump('after', [20, 10], [12, 11, 1], [20, 10], [12, 11, 1],
			      [20, 10.5], [12, 11, 1], [20, 10.71]);
	my $j = run_analyzer('--json', $path);
	my $c = (eval { JSON::PP::decode_json($j->{out}) } // {})->{tracing_cost} // {};
	my $t = run_analyzer($path);

	is($c->{steps_inside}, 36, '36 steps inside 3 windows');
	is($c->{after_windows}, 3, 'three windows with steps on both sides');
	cmp_ok(abs(($c->{after_detach} // 9) - 0.02), '<', 1e-6, 'after a window: +2.0%');
	like(flat($t->{out}), qr/after a window \(CUPTI off again\): \+2\.0% per step just after it against just before it \(the median of 3 windows; the first: 10\.00 ms against 10\.00 ms\)/,
	     'the report says so');
};

done_testing();
