#!/usr/bin/perl
# 901-diagnosis-steps.t - training steps on synthetic dumps: from NVTX
# ranges (the repeated top-level name, start to start, framework ranges
# left out, steps inside epochs, a range without GPU work left out), from
# the launch pattern (with a warm-up
# whose kernels differ, with pauses between groups of launches, with
# batches that come in pairs from two DataLoader workers, with a kernel
# that differs every other step), from the marker GPUTRACE_STEP named;
# warm-up steps shown apart, outliers beyond 3 sigma; the warm-up's idle
# time kept out of the steady state; GPU records that make no sense.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtDiag;

plan skip_all => 'gputrace-analyze not built'
	unless -x GtDump::analyzer_path();

my $US = 1000;
my $MS = 1000 * $US;

# ---- NVTX: "train_step" at the top level, "forward" inside, aten ops -----
{
	my $g = GtDiag->new;
	my @len = (400, 300, 100, 100, 100, 100, 100, 100, 100, 100);
	my $t = 0;

	for my $i (0 .. $#len) {
		$g->push_range(1, $t, 'train_step');
		$g->push_range(1, $t + 1 * $MS, 'forward');
		$g->launch(1, $t + 2 * $MS, 5 * $US);
		$g->pop_range(1, $t + 3 * $MS);
		$g->pop_range(1, $t + 80 * $MS);
		$g->push_range(1, $t + 85 * $MS, 'aten::mm');
		$g->pop_range(1, $t + 86 * $MS);
		$g->kernel($t + 2 * $MS, $t + 60 * $MS);
		$t += $len[$i] * $MS;
	}
	my $j = $g->analyze;
	my $s = $j->{steps};

	is($s->{source}, 'nvtx', 'nvtx: steps from the ranges');
	like($s->{name}, qr/"train_step"/, 'nvtx: the top-level repeated name');
	is($s->{count}, 10, 'nvtx: ten steps');
	is($s->{warmup_steps}, 2, 'nvtx: the two slow first steps are the warm-up');
	is($s->{warmup_mean_ns}, 350 * $MS, 'nvtx: warm-up mean');
	# steady: 7 steps of 100 ms (start to start) and the last, 80 ms long
	is($s->{mean_ns}, int((7 * 100 + 80) * $MS / 8), 'nvtx: steady mean');
	is($s->{p50_ns}, 100 * $MS, 'nvtx: p50');
	is($s->{min_ns}, 80 * $MS, 'nvtx: the last step ends with its range');
	my $w = $j->{diagnosis}{warmup};
	ok($w->{span_ns} > 0 && $w->{span_ns} < 700 * $MS, 'nvtx: warm-up time apart');
	is($j->{diagnosis}{span_ns} + $w->{span_ns}, 1460 * $MS - 2 * $MS,
	   'nvtx: warm-up and steady state cover the GPU time, nothing twice');
}

# ---- NVTX: epochs around steps --------------------------------------------
{
	my $g = GtDiag->new;
	my $t = 0;

	for my $e (0 .. 2) {
		$g->push_range(1, $t, 'epoch');
		for my $i (0 .. 19) {
			$g->push_range(1, $t, 'step');
			$g->launch(1, $t + 10 * $US, 5 * $US);
			$g->kernel($t + 20 * $US, $t + 900 * $US);
			$g->pop_range(1, $t + 950 * $US);
			$t += $MS;
		}
		$g->pop_range(1, $t);
	}
	my $j = $g->analyze;

	like($j->{steps}{name}, qr/"step"/, 'epochs: steps are the ranges inside');
	is($j->{steps}{count}, 60, 'epochs: 60 steps');
}

# ---- NVTX: a range without GPU work is no step ---------------------------
# A compiler's range (JAX's XlaCompileGpuAsm), long and repeated 5 times
# before the loop, holds no GPU call; the 20 "step" ranges, shorter in all,
# each hold a launch.
{
	my $g = GtDiag->new;
	my $t = 0;

	for my $i (0 .. 4) {
		$g->push_range(2, $t, 'compile');
		$g->pop_range(2, $t + 200 * $MS);
		$t += 201 * $MS;
	}
	for my $i (0 .. 19) {
		$g->push_range(1, $t, 'step');
		$g->launch(1, $t + 10 * $US, 5 * $US);
		$g->kernel($t + 20 * $US, $t + 900 * $US);
		$g->pop_range(1, $t + 950 * $US);
		$t += $MS;
	}
	my $j = $g->analyze;

	like($j->{steps}{name}, qr/"step"/, 'no GPU work: the ranges with launches are the steps');
	is($j->{steps}{count}, 20, 'no GPU work: 20 steps');
}

# ---- launch pattern: warm-up with other kernels, an outlier ---------------
{
	my $g = GtDiag->new;
	my $t = 0;

	for my $i (0 .. 2) {                    # autotuning: other kernels, slow
		$g->launch(1, $t + $_ * 100 * $US, 10 * $US, fn => 10 + $_) for 0 .. 5;
		$g->launch(1, $t + $_ * 10 * $MS, 10 * $US, fn => $_ + 1) for 0 .. 3;
		$t += 40 * $MS;
	}
	for my $i (0 .. 59) {
		my $len = $i == 30 ? 9 * $MS : 2 * $MS;

		$g->launch(1, $t + $_ * 100 * $US, 10 * $US, fn => $_ + 1) for 0 .. 3;
		$g->kernel($t + 20 * $US, $t + 1500 * $US);
		$t += $len;
	}
	my $j = $g->analyze;
	my $s = $j->{steps};

	is($s->{source}, 'launch_pattern', 'pattern: steps from launches');
	is($s->{period}, 4, 'pattern: four launches per step');
	ok($s->{warmup_steps} >= 3, 'pattern: the slow first steps are the warm-up')
		or diag(explain($s));
	is($s->{p50_ns}, 2 * $MS, 'pattern: 2 ms steps');
	ok(scalar(grep { $_->{ns} == 9 * $MS } @{ $s->{outliers} }), 'pattern: the 9 ms step is an outlier')
		or diag(explain($s));
}

# ---- launch pattern: groups of identical launches, then a pause -----------
{
	my $g = GtDiag->new;
	for my $s (0 .. 9) {
		my $b = $s * 20 * $MS;

		$g->launch(1, $b + 15 * $MS + $_ * 20 * $US, 10 * $US) for 0 .. 4;
		$g->kernel($b + 15 * $MS + 20 * $US, $b + 19 * $MS);
	}
	my $j = $g->analyze;

	is($j->{steps}{p50_ns}, 20 * $MS, 'pauses: a step is the group and its pause');
	is($j->{steps}{period}, 5, 'pauses: five launches per step');
}

# ---- launch pattern: two DataLoader workers deliver batches in pairs -----
# Each batch is 9 ms of launches; the workers, started together, finish a
# batch each every 72 ms, so every other step waits for the next pair.
# The step is the batch (36 ms on average), not the pair.
{
	my $g = GtDiag->new;
	my $t = 0;

	for my $i (0 .. 139) {
		$t = ($i / 2) * 72 * $MS + 200 * $US unless $i % 2;
		$g->copy(1, $t, 20 * $US, dir => 'htod', memory => 'pinned', bytes => 262144);
		$g->copy(1, $t + 30 * $US, 10 * $US, dir => 'htod', memory => 'pinned', bytes => 256);
		$g->launch(1, $t + 100 * $US + $_ * $MS, 10 * $US, fn => $_ + 1) for 0 .. 8;
		$g->kernel($t + 110 * $US, $t + 9 * $MS);
		$t += 9 * $MS + 500 * $US;
	}
	my $s = $g->analyze->{steps};

	is($s->{period}, 11, 'paired batches: eleven GPU calls per step')
		or diag(explain($s));
	ok($s->{count} >= 130, 'paired batches: a step per batch')
		or diag(explain($s));
	ok($s->{mean_ns} > 30 * $MS && $s->{mean_ns} < 42 * $MS,
	   'paired batches: 36 ms per step on average') or diag(explain($s));
}

# ---- launch pattern: a kernel that differs every other step --------------
# Every second batch runs one other kernel (a shape of the batch picks
# it): the calls repeat every two steps, the step is still one batch.
# When the two steps take different times they are two kinds of step
# (a GAN's generator and discriminator): the period stays whole.
sub alternating {
	my (@busy) = @_;
	my $g = GtDiag->new;
	my $t = 0;

	for my $i (0 .. 139) {
		my $b = $busy[$i % 2];

		$g->copy(1, $t, 20 * $US, dir => 'htod', memory => 'pinned');
		$g->launch(1, $t + 100 * $US + $_ * $b / 10, 10 * $US,
			   fn => $_ == 4 && $i % 2 ? 20 : $_ + 1) for 0 .. 9;
		$g->kernel($t + 110 * $US, $t + $b);
		$t += $b + 2 * $MS;
	}
	return $g->analyze->{steps};
}
{
	my $s = alternating(34 * $MS, 34 * $MS);

	is($s->{period}, 11, 'alternating kernel: eleven GPU calls per step')
		or diag(explain($s));
	is($s->{p50_ns}, 36 * $MS, 'alternating kernel: 36 ms steps');
	ok($s->{count} >= 130, 'alternating kernel: a step per batch');
	$s = alternating(10 * $MS, 60 * $MS);
	is($s->{period}, 22, 'two kinds of step: the period stays whole')
		or diag(explain($s));
}

# ---- a deep model: 48 alike blocks a step ----------------------------------
# A step is 48 blocks of the same 13 launches and 2 of its own; after 400
# launches of set-up, the first calls looked at hold one step's blocks,
# which repeat.  Then the same step run eagerly a few times before it is
# captured in a CUDA graph and replayed: the steps are the replays.
sub deep_step {
	my ($g, $t) = @_;

	for my $blk (0 .. 47) {
		$g->launch(1, $t + ($blk * 13 + $_) * 20 * $US, 5 * $US, fn => $_ + 1) for 0 .. 12;
	}
	$g->launch(1, $t + (624 + $_) * 20 * $US, 5 * $US, fn => 20 + $_) for 0 .. 1;
	$g->kernel($t + 30 * $US, $t + 12600 * $US);
	return $t + 20 * $MS;
}
{
	my $g = GtDiag->new;
	my $t = 50 * $MS;

	$g->launch(1, $_ * 100 * $US, 5 * $US, fn => 100 + $_) for 0 .. 399;
	$t = deep_step($g, $t) for 0 .. 29;
	my $s = $g->analyze->{steps};

	is($s->{period}, 626, 'deep model: a step is the 48 blocks and the rest')
		or diag(explain($s));
	is($s->{p50_ns}, 20 * $MS, 'deep model: 20 ms steps');
}
{
	my $g = GtDiag->new;
	my $t = 0;

	$t = deep_step($g, $t) for 0 .. 4;
	for my $i (0 .. 99) {
		$g->graph_launch(1, $t, 10 * $US);
		$g->kernel($t + 20 * $US, $t + 6900 * $US);
		$t += 7 * $MS;
	}
	my $s = $g->analyze->{steps};

	is($s->{period}, 1, 'graph replays: a graph launch a step') or diag(explain($s));
	ok($s->{count} >= 99, 'graph replays: every replay a step');
	is($s->{p50_ns}, 7 * $MS, 'graph replays: 7 ms steps');
}

# ---- the marker GPUTRACE_STEP names wins ---------------------------------
# Two micro-batches of the same four launches a step, a top-level NVTX
# range around each micro-batch: the library marked the steps where the
# user told it to (a range, or a kernel), and those are the steps.
for my $src ([2, 'nvtx', qr/NVTX range GPUTRACE_STEP names/],
	     [3, 'launch_pattern', qr/kernel GPUTRACE_STEP names/]) {
	my $g = GtDiag->new;
	my @b;

	for my $i (0 .. 59) {
		my $t = $i * 2 * $MS;

		push @b, $t unless $i % 2;
		$g->push_range(1, $t, 'micro');
		$g->launch(1, $t + 100 * $US + $_ * 200 * $US, 10 * $US, fn => $_ + 1) for 0 .. 3;
		$g->kernel($t + 110 * $US, $t + 1500 * $US);
		$g->pop_range(1, $t + 1900 * $US);
	}
	$g->library_steps($src->[0], @b);
	my $s = $g->analyze->{steps};

	like($s->{name}, $src->[2], "marker $src->[1]: the steps GPUTRACE_STEP named")
		or diag(explain($s));
	is($s->{source}, $src->[1], "marker $src->[1]: source");
	is($s->{count}, 29, "marker $src->[1]: a step per two micro-batches");
	is($s->{p50_ns}, 4 * $MS, "marker $src->[1]: 4 ms steps");
}
{
	my $g = GtDiag->new;

	for my $i (0 .. 59) {
		$g->launch(1, $i * 2 * $MS + $_ * 200 * $US, 10 * $US, fn => $_ + 1) for 0 .. 3;
	}
	$g->library_steps(1, map { $_ * 4 * $MS } 0 .. 29);
	is($g->analyze->{steps}{p50_ns}, 2 * $MS,
	   'the library\'s own launch pattern is not a marker: the analyzer\'s steps');
}

# Four blocks of the same two launches a step, each block on its own
# buffers (the arguments come back every 4 blocks), and no pause tells
# where the loop turns (every call 250 us after the one before, as a
# loaded machine's scheduler can make them all look alike): the library,
# which wrote a step every 8 calls while the program ran, is the witness
# that the step is the whole cycle of the arguments, not one block.
{
	my $blocks = sub {
		my ($g) = @_;
		$g->{fns}{$_} = 1 for 1 .. 2;  # the two kernels, named
		for my $s (0 .. 119) {
			for my $b (0 .. 3) {
				my $t = ($s * 8 + $b * 2) * 250 * $US;
				$g->ev(1, { op => GtDiag::OP_LAUNCH(), t0 => $t + $_ * 250 * $US,
					    dur => 10 * $US, args => [$_ + 1, $b + 1] }) for 0 .. 1;
			}
		}
		return $g;
	};
	my $alone = $blocks->(GtDiag->new)->analyze->{steps};
	my $g = $blocks->(GtDiag->new);

	$g->library_steps_of(1, 8, map { $_ * 8 * 250 * $US } 0 .. 119);
	my $s = $g->analyze->{steps};

	like($alone->{name} // '', qr/ 2 GPU calls per step/,
	     'identical blocks, no pause: alone, a step per block') or diag(explain($alone));
	like($s->{name} // '', qr/ 8 GPU calls per step/,
	     'identical blocks, no pause: with the library\'s steps, the cycle of 4')
		or diag(explain($s));
	is($s->{p50_ns}, 2 * $MS, 'identical blocks, no pause: 2 ms steps');
}

# ---- graph launches: one token per step -----------------------------------
{
	my $g = GtDiag->new;
	for my $s (0 .. 29) {
		$g->graph_launch(1, $s * $MS, 10 * $US);
		$g->kernel($s * $MS + 20 * $US, $s * $MS + 980 * $US);
		$g->sync(1, $s * $MS + 20 * $US, 965 * $US);
	}
	my $j = $g->analyze;

	is($j->{steps}{count}, 29, 'graphs: a graph launch per step');
	is($j->{verdict}[0]{class}, 'healthy', 'graphs: busy GPU, healthy');
}

# ---- GPU records that make no sense: no crash, no claim --------------------
{
	my $g = GtDiag->new;
	$g->launch(1, 1000, 500);
	$g->kernel(5000, 4000);                         # ends before it starts
	$g->kernel(2000, 3000, device => 4000);         # a device we cannot hold
	$g->kernel(2000, 2**62);                        # far in the future
	$g->kernel(0, 100);                             # start 0: incomplete
	$g->gpu_copy(3000, 3500);
	my $j = eval { $g->analyze };

	ok($j, 'nonsense GPU records: a report') or diag($@);
	ok(defined $j->{diagnosis}{span_ns}, 'nonsense GPU records: a diagnosis');
}

# ---- no CUDA at all ----------------------------------------------------------
{
	my $g = GtDiag->new(no_gpu => 1);
	my $j = $g->analyze;

	is_deeply($j->{verdict}, [], 'empty: no verdict');
	is($j->{steps}{count}, 0, 'empty: no steps');
	like($g->report, qr/^Verdict: none/m, 'empty: the report says so');
}

done_testing();
