#!/usr/bin/perl
# 506-windows-short.t - GPU timing for the runs the windows on steady steps
# miss, in the default settings, on the fake driver and CUPTI (w_gpu): a
# short run whose host queues every step faster than CUPTI attaches, a
# loop of CUDA graphs, through the start window (GPUTRACE_GPU_START_CALLS)
# subscribed before CUDA initializes; that window closing after its calls
# on a long run, or becoming the window of the steps once they are
# steady, and the analyzer leaving it out when other windows are there.
# Then the library's steps against the analyzer's on the same dump: a step
# of identical blocks told apart by the launches' arguments, a short loop
# whose arguments never come back, and the note a report makes when the
# two differ.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtDiag;
use GtRun;

my $fake_cupti = GtRun::build_dir() . '/test/fake_cupti/libcupti.so.13';
plan skip_all => "not built: $fake_cupti, w_gpu (run make test)"
	unless -e $fake_cupti && -e GtRun::workload('w_gpu');

my $runs = 0;
my $counts_dir = File::Temp::tempdir('gt-short-XXXXXX', TMPDIR => 1,
				     CLEANUP => !$ENV{GT_KEEP});

# w_gpu with the fake CUPTI and the default GPU settings unless %env says;
# {truth} its counts, {fc} what the fake CUPTI was asked.
sub run_gpu {
	my ($args, %env) = @_;
	my $counts = "$counts_dir/counts-" . ++$runs;
	my $r = GtRun::run(['w_gpu', @$args], env => {
		GPUTRACE_GPU => undef, GPUTRACE_GPU_START_CALLS => 4096,
		FAKE_CUPTI_KERNEL_NS => 10_000,
		FAKE_CUPTI_COPY_NS => 5_000, FAKE_CUPTI_COUNTS => $counts,
		FAKE_CUDA_SYNC_NS => 1000, FAKE_CUDA_COPY_NS => 1000, %env });

	$r->{truth} = { $r->{stdout} =~ /(\w+)=(\d+)/g };
	$r->{fc} = { map { /^(\w+) (\d+)$/ ? ($1 => $2) : () }
		     split /\n/, (GtRun::slurp($counts) // '') };
	return $r;
}

sub ran_ok {
	my ($r, $what) = @_;

	is($r->{exit}, 0, "$what: exits 0") or diag(GtRun::describe($r));
	return ok($r->{json}, "$what: the analyzer read the dump");
}

sub windows { my ($r) = @_; return @{ $r->{json}{gpu_windows} // [] } }
sub gpu { my ($r) = @_; return ($r->{json} && $r->{json}{gpu}) || {} }
sub flat { my ($t) = @_; $t =~ s/\n\s+/ /g; return $t }
sub text_of { my ($r) = @_; return flat(GtDump::run_analyzer($r->{dump})->{out}) }

sub varint {
	my ($s, $pos) = @_;
	my ($v, $shift) = (0, 0);

	while (1) {
		my $b = ord(substr($s, $$pos++, 1));
		$v |= ($b & 0x7f) << $shift;
		return $v unless $b & 0x80;
		$shift += 7;
	}
}

# The step boundaries the library wrote (GT_CHUNK_STEPS), read from the
# dump, from its start as the JSON's times are: { bounds => [...],
# periods => { calls a step => boundaries } }.
sub library_steps {
	my ($path) = @_;
	my $d = GtRun::slurp($path) // '';
	my %s = (bounds => [], periods => {});
	my $off = length($d) >= 64 ? unpack('V', substr($d, 12, 4)) : length($d);
	my $start = length($d) >= 64 ? unpack('Q<', substr($d, 24, 8)) : 0;

	while ($off + 8 <= length $d) {
		my ($type, $size) = unpack('V V', substr($d, $off, 8));
		my $p = substr($d, $off + 8, $size);

		if ($type == 21 && $size >= 32) {
			my ($count, undef, $first, undef, $period) = unpack('V V Q< Q< V', $p);
			my ($pos, $t) = (32, $first - $start);

			push @{ $s{bounds} }, $t;
			push @{ $s{bounds} }, $t += varint($p, \$pos) for 2 .. $count;
			$s{periods}{$period} += $count;
		}
		$off += 8 + $size;
	}
	return \%s;
}

sub all_joined {
	my ($r, $what) = @_;
	my $g = gpu($r);

	is($g->{launches_joined}, $g->{launches_in_windows},
	   "$what: every launch in a window joined");
	is($g->{records}{$_}, 0, "$what: $_ 0") for qw(unjoined orphans);
}

subtest 'a short run that queues every step at once: all of it timed' => sub {
	# 150 steps queued with no wait (one sync at the end), as a host
	# that runs ahead of the GPU; CUPTI takes 100 ms to subscribe.
	my $r = run_gpu(['--queue', 150], FAKE_CUPTI_ATTACH_US => 100_000);

	ran_ok($r, 'queued') or return;
	my @w = windows($r);
	my $g = gpu($r);

	is(scalar @w, 1, 'one window');
	is($w[0]{reason}, 'start', 'the start window') if @w;
	is($g->{launches_in_windows}, $r->{truth}{kernels},
	   'every launch in it: CUPTI was on before the first');
	is($g->{copies_in_windows}, $r->{truth}{copies} + $r->{truth}{sets},
	   'every copy and memset too');
	all_joined($r, 'queued');
	is($r->{fc}{subscribe}, 1, 'subscribed once');
	like(text_of($r), qr/GPU windows: 1, 1 at the start \(GPUTRACE_GPU_START_CALLS\)/,
	     'the report says where the window went');
	cmp_ok($r->{json}{diagnosis}{timed_steps} // 0, '>=', 140,
	       'the only window: the diagnosis times the steps in it');
	is($r->{json}{tracing_cost}{windows_left_out} // 0, 0, 'and the cost counts it');

	# Subscribed by the background thread once the first launch is seen
	# (GPUTRACE_CUPTI_EARLY=0): the first launches are gone by then.
	my $late = run_gpu(['--queue', 150], FAKE_CUPTI_ATTACH_US => 100_000,
			   GPUTRACE_CUPTI_EARLY => 0);

	ran_ok($late, 'late') or return;
	cmp_ok(gpu($late)->{launches_in_windows} // 0, '<', $late->{truth}{kernels},
	       'subscribing at the first launch misses it');
};

subtest 'a loop of CUDA graphs' => sub {
	my $r = run_gpu(['--graphs', '--queue', 409]);

	ran_ok($r, 'graphs') or return;
	my @w = windows($r);
	my $g = gpu($r);

	is(scalar @w, 1, 'one window');
	is($w[0]{reason}, 'start', 'the start window') if @w;
	is($g->{records}{kernels}, $r->{truth}{graphs}, "a GPU record for each graph's run");
	is($g->{records}{$_}, 0, "graphs: $_ 0") for qw(unjoined orphans);
	is($r->{json}{steps}{count}, $r->{truth}{graphs} - 1, 'a step per graph launch');
	# CUPTI's record per node costs a graph launch 80 times its host time
	# on the H200 (100 nodes of 1 us); the start window asks for a record
	# per graph run (this fake, as an old CUPTI, still gives nodes)
	is($r->{fc}{graph_trace}, 1, 'the start window asks for whole graph runs');
};

subtest 'a long run: the start window closes after its calls' => sub {
	# Calls that never repeat: no steps, and the clock's window comes
	# after the run (5 s); the window takes 400 calls (80 iterations of 5).
	my $r = run_gpu(['--random', '--sleep-us=500', 600], GPUTRACE_GPU_START_CALLS => 400);

	ran_ok($r, 'long') or return;
	my @w = windows($r);
	my $g = gpu($r);

	is(scalar @w, 1, 'one window');
	is($w[0]{reason}, 'start', 'the start window') if @w;
	cmp_ok($g->{launches_in_windows} + $g->{copies_in_windows}, '>=', 400 * 4 / 5 - 10,
	       'it took its calls');
	cmp_ok($g->{launches_in_windows}, '<=', $r->{truth}{kernels} / 2,
	       'and closed long before the run ended');
	all_joined($r, 'long');
	cmp_ok($r->{fc}{finalize}, '>=', 1, 'CUPTI detached after it');
	cmp_ok($w[0]{off_ns} // 0, '>', 0, 'its span ends') if @w;
};

subtest 'steady steps in the start window: it hands over to their window' => sub {
	my $r = run_gpu(['--sleep-us=2000', 300]);

	ran_ok($r, 'hand-over') or return;
	my @w = windows($r);

	is(scalar @w, 2, 'two windows') or return;
	is($w[0]{reason}, 'start', 'the start window');
	is($w[1]{reason}, 'steps', 'then the steps\'');
	is($w[0]{off_ns}, $w[0]{end_ns}, 'the first ends where CUPTI stays on');
	is($w[1]{start_ns}, $w[0]{end_ns} + 1, 'the second begins right after');
	is($r->{fc}{subscribe}, 1, 'CUPTI subscribed once');
	is($r->{fc}{graph_trace}, 1, 'whole graph runs asked for once: the steps\' window keeps them');
	is($r->{fc}{disable}, $r->{fc}{enable}, 'its kinds switched on and off once');
	all_joined($r, 'hand-over');

	# The start window covers steps before they were steady: the cost and
	# the diagnosis go by the steps' window alone.
	my $c = $r->{json}{tracing_cost} // {};
	my @b = @{ library_steps($r->{dump})->{bounds} };
	my ($in_start, $in_steps) = (0, 0);

	for my $i (0 .. $#b - 1) {
		$in_start++ if $b[$i] >= $w[0]{start_ns} && $b[$i + 1] <= $w[0]{end_ns};
		$in_steps++ if $b[$i] >= $w[1]{start_ns} && $b[$i + 1] <= $w[1]{end_ns};
	}
	cmp_ok($in_start, '>=', 3, "steps in the start window ($in_start)");
	is($c->{windows_left_out}, 1, 'the cost leaves the start window out');
	cmp_ok($r->{json}{diagnosis}{timed_steps}, '<=', $in_steps + 1,
	       "the diagnosis times the steps' window's ($in_steps), not the start's");
	cmp_ok($r->{json}{diagnosis}{timed_steps}, '>=', $in_steps - 2,
	       'all of them');
};

subtest 'identical blocks: the library\'s steps are the analyzer\'s' => sub {
	# 4 blocks of the same two launches, each block on its own buffer:
	# the calls repeat every block, the arguments every step.
	my $r = run_gpu(['--blocks=4', '--sleep-us=2000', 120], FAKE_KERNEL_PARAMS => 1);

	ran_ok($r, 'blocks') or return;
	my $lib = library_steps($r->{dump});
	my $s = $r->{json}{steps} // {};

	like($s->{name} // '', qr/8 GPU calls per step .*4 repeats of 2 calls/,
	     'the analyzer: a step of 4 blocks');
	is_deeply($lib->{periods}, { 8 => scalar @{ $lib->{bounds} } },
		  'the library: 8 calls a step too');
	is(scalar @{ $lib->{bounds} } - 1, $s->{count}, 'as many steps')
		or diag(explain($lib->{periods}));
	unlike(text_of($r), qr/note: steps: the library found/, 'no note of a difference');
	my @w = grep { $_->{reason} eq 'steps' } windows($r);
	cmp_ok($r->{json}{tracing_cost}{steps_inside} // 0, '>=', 10,
	       'the steps\' window covers whole steps') if @w;
};

subtest 'a long set-up, then a short loop on new tensors each step: a window on its steps' => sub {
	# 1.5 s of set-up, then 300 steps of about 5 ms whose launches'
	# arguments never come back (a framework's new tensors each step):
	# fewer blocks than the library waited for before making steps of
	# them (ST_BLOCKS, ST_ARGS_WAIT_NS), so it found them only at the
	# end and no window opened on them; the clock's is far off here.
	my $r = run_gpu(['--setup-ms=1500', '--sleep-us=5000', '--fresh-args', 300],
			FAKE_KERNEL_PARAMS => 1, GPUTRACE_GPU_START_CALLS => 0,
			GPUTRACE_GPU_WARMUP_MS => 600_000);

	ran_ok($r, 'fresh') or return;
	my $lib = library_steps($r->{dump});
	my $s = $r->{json}{steps} // {};
	my @w = windows($r);
	my @b = @{ $lib->{bounds} };

	is(scalar @w, 1, 'one window');
	is($w[0]{reason}, 'steps', 'on the steps') if @w;
	cmp_ok($w[0]{start_ns} // 0, '>=', 1.5e9, 'after the set-up') if @w;
	cmp_ok($r->{json}{tracing_cost}{steps_inside} // 0, '>=', 10,
	       'it covers whole steps');
	my @in = grep { @w && $_ >= $w[0]{start_ns} && $_ <= $w[0]{end_ns} } @b;
	cmp_ok(scalar @in, '>=', 11, 'the library\'s steps inside it');
	is_deeply([keys %{ $lib->{periods} }], [$s->{period} // -1],
		  'the library\'s steps are of the analyzer\'s calls a step');
	cmp_ok(scalar @b, '>', 256, 'every step written while it ran '
	       . '(at the end only the last 256 are kept)');
	cmp_ok(scalar @b, '<=', 301, 'no more steps than the loop ran');
};

subtest 'the report says when the library\'s steps and its own differ' => sub {
	# 60 steps of 4 launches, 2 ms apart; the library wrote a step every
	# 2 ms, or one every 4 ms (as if it had taken two for one).
	for my $case ([2, 0], [4, 1]) {
		my ($every, $note) = @$case;
		my $g = GtDiag->new;

		for my $i (0 .. 59) {
			$g->launch(1, $i * 2e6 + $_ * 200e3, 10e3, fn => $_ + 1) for 0 .. 3;
		}
		$g->library_steps(1, map { $_ * $every * 1e6 } 0 .. 120 / $every - 1);
		my $text = flat($g->report);
		my $lib = 120 / $every - 1;

		like($text, qr/Steps: 59, from the launch pattern/, "every $every ms: 59 steps");
		if ($note) {
			like($text, qr/note: steps: the library found $lib steps while the program ran, this analysis 59 \(-\d+%\): its GPU windows were placed on other steps than these/,
			     "every $every ms: a note says the library found $lib");
		} else {
			unlike($text, qr/note: steps: the library/, "every $every ms: no note");
		}
	}
};

done_testing();
