#!/usr/bin/perl
# 500-cupti.t - the GPU side through a fake libcupti (test/fake_cupti/):
# every launch, copy and memset joined exactly to its GPU record, GPU
# times, queue delay through a clock with an offset and a drift, busy
# time, windows and how CUPTI is switched between them, a CUPTI held by
# another tool, a missing one, dropped records and refused buffers.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);
my $fake_cupti = GtRun::build_dir() . '/test/fake_cupti/libcupti.so.13';
plan skip_all => "not built: $fake_cupti, w_gpu (run make test)"
	unless -e $fake_cupti && -e GtRun::workload('w_gpu');

my $tmp = tempdir('gt-cupti-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{GT_KEEP});
my $runs = 0;

use constant { KERNEL_NS => 10_000, COPY_NS => 5_000, QUEUE_NS => 200_000,
	       HTOD => 4096, DTOH => 8192, SET => 1000 };

# Run w_gpu with the fake CUPTI; adds {truth} (its "truth" line) and
# {fc} (the fake's FAKE_CUPTI_COUNTS) to GtRun's result.
sub run_gpu {
	my ($args, %env) = @_;
	my $counts = "$tmp/counts-" . ++$runs;
	my $r = GtRun::run(['w_gpu', @$args], env => {
		GPUTRACE_GPU => 'all', FAKE_CUPTI_KERNEL_NS => KERNEL_NS,
		FAKE_CUPTI_COPY_NS => COPY_NS, FAKE_CUPTI_QUEUE_NS => QUEUE_NS,
		FAKE_CUPTI_COUNTS => $counts, FAKE_CUDA_SYNC_NS => 1000,
		FAKE_CUDA_COPY_NS => 1000, %env });

	$r->{truth} = { $r->{stdout} =~ /(\w+)=(\d+)/g };
	$r->{fc} = { map { /^(\w+) (\d+)$/ ? ($1 => $2) : () }
		     split /\n/, (GtRun::slurp($counts) // '') };
	return $r;
}

sub gpu { my ($r) = @_; return ($r->{json} && $r->{json}{gpu}) || {} }

sub ran_ok {
	my ($r, $what) = @_;

	is($r->{exit}, 0, "$what: exits 0") or diag(GtRun::describe($r));
	ok($r->{json}, "$what: the analyzer read the dump")
		or diag(GtRun::describe($r));
	return $r->{json};
}

# Every launch, copy and memset joined, with the times the fake gave.
sub check_joins {
	my ($r, $what) = @_;
	my ($j, $g, $t) = ($r->{json}, gpu($r), $r->{truth});

	is($g->{cupti}, 'on', "$what: cupti on");
	is($j->{env}{cupti}, 'on', "$what: env says cupti on");
	is($g->{records}{kernels}, $t->{kernels}, "$what: a kernel record per launch");
	is($g->{launches_in_windows}, $t->{kernels}, "$what: every launch in the window");
	is($g->{launches_joined}, $t->{kernels}, "$what: every launch joined");
	is($g->{copies_joined}, $t->{copies} + $t->{sets},
	   "$what: every copy and memset joined");
	is($g->{records}{$_}, 0, "$what: $_ 0")
		for qw(unjoined orphans name_mismatch incomplete negative_queue);
	for my $sym (GtRun::K_VECADD, GtRun::K_SCALE) {
		my $k = GtRun::kernel($j, $sym);
		my $n = $t->{kernels} / 2;
		ok($k, "$what: $sym listed") or next;
		is($k->{calls}, $n, "$what: $sym launches");
		is($k->{gpu_calls}, $n, "$what: $sym GPU runs");
		cmp_ok(abs($k->{gpu_ns_total} - $n * KERNEL_NS), '<=',
		       $n * KERNEL_NS * 0.002, "$what: $sym GPU time = runs x 10 us");
		cmp_ok($k->{queue_ns_p50}, '>=', QUEUE_NS * 0.99,
		       "$what: $sym queue delay >= what the fake waited");
		cmp_ok($k->{queue_ns_p50}, '<=', QUEUE_NS * 1.01 + 20_000,
		       "$what: $sym queue delay within 1% + 20 us of it");
	}
	my $htod = GtRun::copy($j, 'cuMemcpyHtoD', 'HtoD', 0);
	my ($row) = grep { $_->{api} eq 'cuMemcpyDtoHAsync' } GtRun::rows($j, 'copies');
	is($row->{gpu_calls}, $t->{copies} / 2, "$what: DtoH GPU runs") if $row;
	is($row->{gpu_bytes}, $t->{copies} / 2 * DTOH, "$what: DtoH GPU bytes") if $row;
	cmp_ok(abs(($row->{gpu_gbps} // 0) - DTOH / COPY_NS), '<', 0.01,
	       "$what: DtoH bandwidth = bytes / GPU time") if $row;
	is($row->{cupti_memory_mismatch}, 0,
	   "$what: CUPTI's pageable agrees with the host side") if $row;
	my ($set) = grep { $_->{api} eq 'cuMemsetD8Async' } GtRun::rows($j, 'sets');
	is($set->{gpu_calls}, $t->{sets}, "$what: memset GPU runs") if $set;
	cmp_ok($r->{fc}{cb_op}, '>=', $t->{kernels} + $t->{copies} + $t->{sets} + $t->{syncs},
	   "$what: a driver callback for each traced call that puts work on the GPU");
	is($r->{fc}{cb_enter}, $r->{fc}{cb_exit}, "$what: callbacks come in pairs");
	is($r->{fc}{cb_other}, 0, "$what: no callbacks for calls that put no "
	   . "work on the GPU (cuDeviceGet, cuCtxGetCurrent...)");
}

subtest 'all: launches through the driver, joined exactly' => sub {
	my $r = run_gpu([20], FAKE_CUPTI_OFFSET_NS => '1700000000000000000');

	ran_ok($r, 'driver') or return;
	check_joins($r, 'driver');
	is($r->{fc}{subscribe}, 1, 'subscribed once');
	is($r->{fc}{latency} // 0, 0, 'no latency timestamps from CUPTI 13.0 (it can deadlock)');
	like(join("\n", @{ $r->{json}{notes} }), qr/launch latency timestamps off: CUPTI API version 130001/,
	     'the dump says why');
	is($r->{fc}{finalize}, 0, 'not detached with GPUTRACE_GPU=all');
	is(gpu($r)->{windows}{count}, 1, 'one window');
	cmp_ok(gpu($r)->{clock}{offset_ns}, '<', -1.6e18, 'the clock offset is seen');
	my $busy = gpu($r)->{active_ns};
	cmp_ok(abs($busy - $r->{fc}{busy_ns}), '<=', 1000,
	       "active time (any GPU work) $busy = the union the fake made ($r->{fc}{busy_ns})");
	is(gpu($r)->{wall_ns}, gpu($r)->{windows}{total_ns}, 'wall = window time');
	like($r->{stderr}, qr/\A(?:gputrace: (?!.*host side only).*\n)*\z/,
	     'nothing said about host-only');
};

subtest 'cudart launches: the runtime call around the driver call joins' => sub {
	my $r = run_gpu([20], FAKE_CUPTI_RUNTIME => 1);

	ran_ok($r, 'runtime') or return;
	check_joins($r, 'runtime');
};

subtest 'CUPTI names no callbacks: whole domains, still joined' => sub {
	my $r = run_gpu([10], FAKE_CUPTI_RUNTIME => 1, FAKE_CUPTI_NO_NAMES => 1);
	my $g = gpu($r);

	ran_ok($r, 'no names') or return;
	is($g->{launches_joined}, $r->{truth}{kernels}, 'every launch joined');
	is($g->{copies_joined}, $r->{truth}{copies} + $r->{truth}{sets},
	   'every copy and memset joined');
	cmp_ok($r->{fc}{cb_other}, '>', 0, 'callbacks for every call (whole domains)');
};

subtest 'clock: offset and 300 ppm drift, queue delay still right' => sub {
	my $r = run_gpu(['--sleep-us=20000', 40], FAKE_CUPTI_RUNTIME => 1,
			FAKE_CUPTI_OFFSET_NS => '1700000000000000000',
			FAKE_CUPTI_DRIFT_PPM => 300);

	ran_ok($r, 'drift') or return;
	check_joins($r, 'drift');
	cmp_ok(abs(gpu($r)->{clock}{drift_ppm} - 300), '<', 5, 'drift of 300 ppm found');
	cmp_ok(gpu($r)->{clock}{pairs}, '>=', 5, 'clock pairs all along');
};

subtest 'threads' => sub {
	my $r = run_gpu(['--threads=4', 25], FAKE_CUPTI_RUNTIME => 1);

	ran_ok($r, 'threads') or return;
	check_joins($r, 'threads');
};

# A run of about 2 s: windows of 300 ms every 700 ms after 200 ms, by the
# clock (505-windows.t has windows placed on the steps, 506-windows-short.t
# the start window, off here).
sub windows_run {
	my (%env) = @_;

	return run_gpu(['--sleep-us=5000', 400], GPUTRACE_GPU => 'windows',
		       GPUTRACE_GPU_START_CALLS => 0,
		       GPUTRACE_GPU_PLACE => 'clock', GPUTRACE_GPU_WARMUP_MS => 200,
		       GPUTRACE_GPU_WINDOW_MS => 300, GPUTRACE_GPU_PERIOD_MS => 700,
		       FAKE_CUPTI_RUNTIME => 1, %env);
}

sub check_windows {
	my ($r, $what) = @_;
	my ($g, $t) = (gpu($r), $r->{truth});
	my $n = $g->{windows}{count};

	cmp_ok($n, '>=', 2, "$what: $n windows");
	# a window closes on the writer's first cycle after 300 ms (later on a
	# loaded machine), the last one at the exit
	cmp_ok($g->{windows}{total_ns}, '>=', ($n - 1) * 300e6,
	       "$what: each but the last at least 300 ms");
	cmp_ok($g->{windows}{total_ns}, '<', $n * 1300e6,
	       "$what: none a second longer");
	cmp_ok($g->{launches_in_windows}, '>', 0, "$what: launches in windows");
	cmp_ok($g->{launches_in_windows}, '<', $t->{kernels} * 0.8,
	       "$what: not all launches");
	is($g->{launches_joined}, $g->{launches_in_windows},
	   "$what: every launch in a window joined");
	# A launch made while CUPTI's kinds are being switched, between the
	# window's stamp and the switch (a loaded machine widens that), may
	# bring a record from just outside it: at most a few per window.
	cmp_ok($g->{records}{kernels}, '>=', $g->{launches_in_windows},
	       "$what: a record for every launch in a window");
	cmp_ok($g->{records}{kernels} - $g->{launches_in_windows}, '<=', 4 * $n,
	       "$what: kernel records from outside the windows only at their edges");
	is($g->{records}{orphans}, 0, "$what: orphans 0");
	# A launch that began just before a window opened (so it publishes no
	# ids) and reached the driver once the kinds were on brings a record
	# that cannot be joined: one thread, so at most one per window.
	cmp_ok($g->{records}{unjoined}, '<=', $n,
	       "$what: unjoined records only from launches under way at an opening");
	# (callbacks need not pair here: a window's domains go off, or CUPTI
	# is detached, while a call is inside the driver)
	cmp_ok($r->{fc}{cb_op}, '<', $t->{kernels} * 3 * 0.8,
	       "$what: no callbacks outside windows");
	my $start = $g->{windows}{first}[0][0];
	cmp_ok($start, '>=', 200e6, "$what: the first window after the warm-up");
}

subtest 'windows, detached between them (default)' => sub {
	my $r = windows_run();

	ran_ok($r, 'finalize') or return;
	check_windows($r, 'finalize');
	cmp_ok($r->{fc}{finalize}, '>=', 1, 'cuptiFinalize between windows');
	cmp_ok($r->{fc}{subscribe}, '>=', 2, 'subscribed again for the next one');
	my $notes = join("\n", @{ $r->{json}{notes} });
	like($notes, qr/window 1: switching CUPTI on took [\d.]+ ms \(attach [\d.]+, enable [\d.]+\), off [\d.]+ ms \(disable [\d.]+, detach [\d.]+\)/,
	     'what switching took, in the notes');
	like($notes, qr/switching CUPTI on and off for \d+ windows took [\d.]+ ms/,
	     'and for all windows');
};

subtest 'windows, kinds disabled between them' => sub {
	my $r = windows_run(GPUTRACE_GPU_SWITCH => 'disable');

	ran_ok($r, 'disable') or return;
	check_windows($r, 'disable');
	is($r->{fc}{finalize}, 0, 'never detached');
	is($r->{fc}{subscribe}, 1, 'subscribed once');
	cmp_ok($r->{fc}{disable}, '>=', 2 * 5, 'kinds disabled after each window');
};

subtest 'windows: never detached while kernels may still run' => sub {
	my $r = windows_run(FAKE_CUPTI_NO_KERNELS => 1);
	my $g = gpu($r);

	ran_ok($r, 'unfinished') or return;
	is($r->{fc}{kernels}, 0, 'no kernel ever finished');
	is($r->{fc}{finalize}, 0, 'so CUPTI was never detached');
	is($r->{fc}{subscribe}, 1, 'and stayed subscribed');
	cmp_ok($g->{windows}{count}, '>=', 2, 'windows went on');
	is($g->{copies_joined}, $g->{copies_in_windows}, 'copies still joined');
};

subtest 'launch latency timestamps: where CUPTI is safe, or when asked' => sub {
	for my $case ([{ FAKE_CUPTI_VERSION => 130401 }, 1, 'CUPTI 13.4 Update 1'],
		      [{ GPUTRACE_CUPTI_LATENCY => 1 }, 1, 'asked for on 13.0'],
		      [{ GPUTRACE_CUPTI_LATENCY => 0, FAKE_CUPTI_VERSION => 130401 }, 0,
		       'turned off on 13.4']) {
		my ($env, $want, $what) = @$case;
		my $r = run_gpu([5], %$env);

		ran_ok($r, $what) or next;
		is($r->{fc}{latency} // 0, $want, "$what: asked for $want time(s), before cuInit");
		unlike(join("\n", @{ $r->{json}{notes} }), qr/latency timestamps off/,
		       "$what: no note");
	}
};

subtest 'a CUPTI call that does not return: said once, and which' => sub {
	my $r = run_gpu(['--sleep-us=2000', 300], FAKE_CUPTI_FLUSH_STALL_MS => 1500,
			GPUTRACE_STALL_MS => 400, GPUTRACE_SAMPLE_MS => 0);
	my @lines = $r->{stderr} =~ /^(gputrace: the background thread.*)$/mg;

	ran_ok($r, 'stalled flush') or return;
	is(scalar @lines, 1, 'said once') or diag($r->{stderr});
	like($lines[0] // '', qr/inside CUPTI's cuptiActivityFlushAll for [\d.]+ s.*GPUTRACE_GPU=off/,
	     'naming the call and the way out');
	is(gpu($r)->{launches_joined}, $r->{truth}{kernels}, 'and every launch still joined');
};

subtest 'the warm-up counts from the first launch, not from the start' => sub {
	# CUDA starts, then 600 ms pass before the first launch (a framework
	# loading its data); warm-up 300 ms, so from the start it would end
	# before any launch.
	my $r = run_gpu(['--idle-ms=600', '--sleep-us=5000', 150], GPUTRACE_GPU => 'windows',
			GPUTRACE_GPU_START_CALLS => 0, GPUTRACE_GPU_PLACE => 'clock', GPUTRACE_GPU_WARMUP_MS => 300, GPUTRACE_GPU_WINDOW_MS => 200,
			GPUTRACE_GPU_PERIOD_MS => 100000);
	my $g = gpu($r);

	ran_ok($r, 'idle start') or return;
	is($g->{windows}{count}, 1, 'one window');
	cmp_ok($g->{windows}{first}[0][0], '>=', 850e6,
	       'it opened 300 ms after the first launch, at 600 ms')
		or diag("first window at $g->{windows}{first}[0][0] ns");
	cmp_ok($g->{launches_in_windows}, '>', 0, 'launches in it');
	is($g->{launches_joined}, $g->{launches_in_windows}, 'all joined');
};

subtest 'no start window, a run shorter than the warm-up: no window, said why' => sub {
	my $r = run_gpu([5], GPUTRACE_GPU => undef, GPUTRACE_GPU_START_CALLS => 0);
	my $g = gpu($r);

	ran_ok($r, 'short') or return;
	is($g->{mode}, 'windows', 'GPU windows are the default');
	is($g->{windows}{count}, 0, 'no window opened');
	is($r->{fc}{subscribe}, 0, 'CUPTI never subscribed');
	is($r->{fc}{cb_enter}, 0, 'no callbacks');
	# Why: no steps known yet and the clock's warm-up not over, or a few
	# steps found and not steady yet (which the writer saw first depends
	# on its timing).
	like(GtDump_text($r->{dump}) =~ s/\n {4,}/ /gr, qr/no GPU window opened: (?:.*the run ended before the clock's first window|\d+ steps? (?:was|were) found, but .*GPUTRACE_GPU_STEADY_STEPS)/,
	     'the report says why there is no GPU timing');
	unlike($r->{stderr}, qr/host side only/, 'nothing said on stderr');
};

subtest 'CUPTI held by another tool' => sub {
	my $r = run_gpu([10], FAKE_CUPTI_TAKEN => 1);
	my @lines = $r->{stderr} =~ /^(gputrace: CUPTI is held.*)$/mg;

	ran_ok($r, 'taken') or return;
	is($r->{json}{env}{cupti}, 'taken', 'env says taken');
	is(gpu($r)->{cupti}, 'taken', 'gpu says taken');
	is(scalar @lines, 1, 'said once on stderr') or diag($r->{stderr});
	like($lines[0] // '', qr/fake profiler/, 'naming who holds it');
	like(join("\n", @{ $r->{json}{notes} }), qr/held by another tool/, 'in the notes');
	is(gpu($r)->{records}{kernels}, 0, 'no GPU records');
	is($r->{fc}{cb_enter} // 0, 0, 'no callbacks');
	is(GtRun::kernel($r->{json}, GtRun::K_VECADD)->{calls}, $r->{truth}{kernels} / 2,
	   'the host side is traced');
	my $text = GtDump_text($r->{dump});
	like($text, qr/CUPTI was held by another tool \(fake profiler\)/,
	     'the report says so');
};

subtest 'no libcupti' => sub {
	my $r = GtRun::run(['w_cudart', 5], env => {
		GPUTRACE_GPU => 'all', GPUTRACE_CUPTI_LIB => '/nonexistent/libcupti.so.13' });
	my @lines = $r->{stderr} =~ /^(gputrace: no GPU timing.*)$/mg;

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($r->{json}, 'dump read') or return;
	is(scalar @lines, 1, 'said once') or diag($r->{stderr});
	is($r->{json}{env}{cupti}, 'off', 'env says off');
	GtRun::check_totals($r);
};

subtest 'GPUTRACE_CUPTI=0' => sub {
	my $r = run_gpu([5], GPUTRACE_CUPTI => 0);

	ran_ok($r, 'off') or return;
	is(gpu($r)->{cupti}, 'off', 'off');
	is($r->{fc}{subscribe} // 0, 0, 'CUPTI never subscribed');
	like($r->{stderr}, qr/^gputrace: GPUTRACE_CUPTI=0: tracing the host side only$/m,
	     'said on stderr');
	like(join("\n", @{ $r->{json}{notes} }), qr/GPUTRACE_CUPTI=0/, 'in the notes');
};

subtest 'dropped records are counted and shown' => sub {
	my $r = run_gpu([5], FAKE_CUPTI_DROPPED => 17);

	ran_ok($r, 'dropped') or return;
	is(gpu($r)->{dropped}{cupti}, 17, 'CUPTI dropped 17');
	like(GtDump_text($r->{dump}), qr/warning: GPU records lost: 17 dropped by CUPTI/,
	     'the report warns');
};

subtest 'bounded buffers: refused when all are out, nothing breaks' => sub {
	my $r = run_gpu([3000], GPUTRACE_CUPTI_BUFFERS => 2,
			GPUTRACE_CUPTI_BUFFER_KB => 64, GPUTRACE_FLUSH_MS => 2000,
			GPUTRACE_CUPTI_FLUSH_MS => 60000);
	my $g = gpu($r);

	ran_ok($r, 'bounded') or return;
	cmp_ok($r->{fc}{refused}, '>', 0, "the fake was refused $r->{fc}{refused} buffers");
	is($g->{dropped}{refused_buffers}, $r->{fc}{refused}, 'refusals counted');
	is($g->{records}{kernels}, $r->{fc}{kernels}, 'what the fake wrote is in the dump');
	cmp_ok($g->{records}{kernels}, '<', $r->{truth}{kernels}, 'records were lost');
	is($g->{launches_in_windows}, $r->{truth}{kernels}, 'host side complete');
	is($g->{records}{orphans} + $g->{records}{unjoined}, 0, 'what came is joined');
};

subtest 'a real libcupti on the fake driver: host side only, intact' => sub {
	my ($real) = grep { -e } map { ($ENV{CUDA_HOME} // '/usr/local/cuda') . $_ }
		('/extras/CUPTI/lib64/libcupti.so', '/lib64/libcupti.so');
	plan skip_all => 'no libcupti in the CUDA toolkit' unless $real;
	my $r = GtRun::run(['w_cudart', 5],
			   env => { GPUTRACE_GPU => 'all', GPUTRACE_CUPTI_LIB => $real });

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($r->{json}, 'dump read') or return;
	GtRun::check_totals($r);
	isnt($r->{json}{env}{cupti}, 'on', 'not on: the fake driver is no GPU');
};

sub GtDump_text {
	my ($dump) = @_;
	my $a = GtRun::analyzer();

	return $dump ? scalar qx{'$a' '$dump' 2>&1} : '';
}

done_testing();
