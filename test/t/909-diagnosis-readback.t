#!/usr/bin/perl
# 909-diagnosis-readback.t - host work right after a readback, which the
# GPU waits on, is communication & sync, not CPU preprocessing or data
# supply (synthetic dumps, GtDiag): after .item() and a tiny launch
# (adding the value to a total), the host's bookkeeping is still the
# wait's bubble, up to the wait's length; a value read back by another
# thread with no wait in the dump (XLA's runtime for float(loss)) makes
# the host work after it a bubble too, up to the GPU time the host spent
# waiting; a bubble left over does not outlive the host's next wait, and a
# short wait before long CPU work leaves the rest to the CPU.
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

sub top { return $_[0]{verdict}[0]{class} // 'none' }

# The process on one CPU all the time: host work outside CUDA is CPU work.
sub busy_cpu {
	my ($g, $until) = @_;

	for (my $t = 0; $t <= $until; $t += 10 * $MS) {
		$g->sample($t, proc => $t);
	}
	return $g;
}

sub near {
	my ($got, $want, $tol, $name) = @_;

	ok(abs($got - $want) <= $tol, $name) or diag("got $got, want $want +- $tol");
}

# ---- .item(), a tiny launch, then 1.5 ms of bookkeeping ----------------------
# Each 5 ms step: launches, a 3 ms kernel, the readback (a DtoH copy the
# host waits in until the kernel ends), a 2 us kernel adding it to a total,
# then 1.5 ms of host work before the next step.
{
	my $g = GtDiag->new;
	$g->stack(1, ['train.py', 'train_step', 41]);
	for my $s (0 .. 39) {
		my $b = $s * 5 * $MS;
		$g->launch(1, $b, 10 * $US, fn => 1);
		$g->kernel($b + 20 * $US, $b + 3020 * $US);
		$g->copy(1, $b + 100 * $US, 2940 * $US, dir => 'dtoh', bytes => 4, stack => 1);
		$g->launch(1, $b + 3050 * $US, 10 * $US, fn => 2);
		$g->kernel($b + 3070 * $US, $b + 3072 * $US, fn => 2);
	}
	my $j = busy_cpu($g, 200 * $MS)->analyze;
	my $idle = GtDiag::idle_by_cause($j);
	my $steps = $j->{steps}{count} - 1 - $j->{steps}{warmup_steps};

	is(top($j), 'communication', '.item() then host work: communication & sync');
	ok($idle->{sync} > 0.9 * ($idle->{sync} + ($idle->{cpu_preprocessing} // 0)),
	   '.item() then host work: the host work after the tiny launch is the bubble')
		or diag(explain($idle));
	ok(!($idle->{cpu_preprocessing} // 0) || $idle->{cpu_preprocessing} < 0.05 * $j->{diagnosis}{span_ns},
	   '.item() then host work: not CPU preprocessing');
	is($j->{diagnosis}{sync_kinds}{readback}, $idle->{sync}, '.item(): a readback');
	is($j->{diagnosis}{sync_sites}[0]{site}, 'train.py:41 in train_step',
	   '.item(): the bubble at the readback\'s line');
}

# ---- a readback with no wait in the dump (JAX/XLA) ---------------------------
# The main thread launches a 5 ms step and makes no CUDA call until the
# next one, 7 ms later; a helper thread copies 4 bytes back once the GPU
# is done; 1.7 ms of host work follow the copy.
{
	my $g = GtDiag->new;
	for my $s (0 .. 39) {
		my $b = $s * 7 * $MS;
		$g->graph_launch(1, $b, 100 * $US);
		$g->kernel($b + 50 * $US, $b + 5050 * $US);
		$g->copy(2, $b + 5250 * $US, 20 * $US, dir => 'dtoh', memory => 'pinned', bytes => 4);
		$g->gpu_copy($b + 5260 * $US, $b + 5262 * $US, bytes => 4, src => 2);
	}
	my $j = busy_cpu($g, 280 * $MS)->analyze;
	my $idle = GtDiag::idle_by_cause($j);
	my $span = $j->{diagnosis}{span_ns};

	is(top($j), 'communication', 'readback without a wait: communication & sync');
	# each 7 ms: 5 ms busy, 200 us before the copy, 1.73 ms after it
	near($idle->{sync} / $span, 1.73 / 7, 0.02,
	     'readback without a wait: the host work after the copy is the bubble');
	near(($idle->{cpu_preprocessing} // 0) / $span, 0.2 / 7, 0.02,
	     'readback without a wait: the time before the copy stays CPU work');
	is($j->{diagnosis}{sync_kinds}{readback}, $idle->{sync}, 'readback without a wait: a readback');

	# the same copies issued while the GPU still runs: queued, not waited for
	my $q = GtDiag->new;
	for my $s (0 .. 39) {
		my $b = $s * 7 * $MS;
		$q->graph_launch(1, $b, 100 * $US);
		$q->kernel($b + 50 * $US, $b + 5050 * $US);
		$q->copy(2, $b + 200 * $US, 20 * $US, dir => 'dtoh', memory => 'pinned', bytes => 4);
		$q->gpu_copy($b + 5050 * $US, $b + 5052 * $US, bytes => 4, src => 2);
	}
	$j = busy_cpu($q, 280 * $MS)->analyze;
	ok(!GtDiag::idle_by_cause($j)->{sync}, 'a copy queued behind the work: no bubble');
	isnt(top($j), 'communication', 'a copy queued behind the work: not communication');
}

# ---- what is left of a bubble ends at the host's next wait -------------------
# A 1 ms wait drains the queue; 100 us of host work; a 500 us kernel the
# host waits on an event for (300 us, not to the end); then 1 ms of host
# work: that is the CPU's, the event wait took what was left of the bubble.
{
	my $g = GtDiag->new;
	for my $s (0 .. 39) {
		my $b = $s * 4 * $MS;
		$g->launch(1, $b, 10 * $US, fn => 1);
		$g->kernel($b + 20 * $US, $b + 1020 * $US);
		$g->sync(1, $b + 30 * $US, 990 * $US);
		$g->launch(1, $b + 1120 * $US, 10 * $US, fn => 2);
		$g->kernel($b + 1140 * $US, $b + 1640 * $US, fn => 2);
		$g->ev(1, { op => GtDiag::OP_EVENT_SYNC(), t0 => $b + 1200 * $US,
			    dur => 300 * $US, args => [0, 0] });
	}
	my $j = busy_cpu($g, 160 * $MS)->analyze;
	my $idle = GtDiag::idle_by_cause($j);
	my $span = $j->{diagnosis}{span_ns};

	# each 4 ms: 1.5 ms busy, 100 us of bubble, 2.36 ms of CPU work
	near($idle->{sync} / $span, 0.1 / 4, 0.01, 'after another wait: the bubble is the first wait\'s only');
	near($idle->{cpu_preprocessing} / $span, 2.36 / 4, 0.02, 'after another wait: the rest is CPU work');
}

# ---- a short wait, then long CPU work: the bubble is at most the wait ---------
{
	my $g = GtDiag->new;
	for my $s (0 .. 39) {
		my $b = $s * 3 * $MS;
		$g->launch(1, $b, 10 * $US);
		$g->kernel($b + 20 * $US, $b + 520 * $US);
		$g->sync(1, $b + 420 * $US, 100 * $US);
	}
	my $j = busy_cpu($g, 120 * $MS)->analyze;
	my $idle = GtDiag::idle_by_cause($j);
	my $span = $j->{diagnosis}{span_ns};

	# each 3 ms: 500 us busy, 100 us of bubble, 2.4 ms of CPU work
	near($idle->{sync} / $span, 0.1 / 3, 0.01, 'short wait: a bubble of the wait\'s length');
	is(top($j), 'data_supply', 'short wait: the CPU work in the loop is data supply');
}

done_testing();
