#!/usr/bin/perl
# 900-diagnosis.t - the diagnosis on synthetic dumps whose answers are
# known (GtDiag): idle time attributed to sync bubbles with their call
# site, to launching and launch latency, to copies, to NCCL, to CPU work
# and DataLoader workers through the CPU samples; the totals add up to
# the measured time; the verdict's class, its gain range and the text
# report's opening lines.
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

sub adds_up {
	my ($j, $name) = @_;
	my $sum = $j->{diagnosis}{busy_ns};

	$sum += $_->{ns} for @{ $j->{idle} };
	is($sum, $j->{diagnosis}{span_ns}, "$name: idle causes + busy = measured time");
}

# ---- a per-step sync: the wait drains the queue -------------------------
{
	my $g = GtDiag->new->sync_steps;
	my $j = $g->analyze;
	my $idle = GtDiag::idle_by_cause($j);

	is($j->{steps}{count}, 19, 'sync: 19 steps from the launch pattern');
	is($j->{steps}{source}, 'launch_pattern', 'sync: steps from launches');
	is($j->{steps}{mean_ns}, $MS, 'sync: 1 ms per step');
	# region [10 us, 19 ms): 18 gaps of 310 us, the last cut at 19 ms
	is($j->{diagnosis}{span_ns}, 18990 * $US, 'sync: steady span');
	is($j->{diagnosis}{busy_ns}, 19 * 690 * $US, 'sync: busy time');
	is($idle->{sync}, 18 * 310 * $US + 300 * $US, 'sync: all idle time is the sync bubble');
	is(scalar @{ $j->{idle} }, 1, 'sync: no other cause');
	adds_up($j, 'sync');
	is(top($j), 'communication', 'sync: verdict communication & sync');
	is($j->{diagnosis}{sync_sites}[0]{site}, 'train.py:57 in train_step',
	   'sync: the call site of the wait');
	my $v = $j->{verdict}[0];
	ok(abs($v->{est_gain_high} - 5880 / 18990) < 1e-3, 'sync: gain at most the bubbles');
	ok($v->{est_gain_low} > 0 && $v->{est_gain_low} < $v->{est_gain_high},
	   'sync: gain is a range');
	like($v->{change}, qr/train\.py:57/, 'sync: the change names the line');

	my @lines = split /\n/, $g->report;
	like($lines[2], qr/^program: /, 'text: the program under the header');
	like($lines[3], qr/^Verdict: communication & sync/, 'text: the verdict opens the report');
	like($g->report, qr/^  Why: sync bubbles/m, 'text: the evidence');
	like($g->report, qr/^  Change \(estimated: step time -15% to -31%\)/m, 'text: the change and its gain');
	ok(!grep({ length > 100 } @lines), 'text: 100 columns at most');
}

# ---- a readback (.item()): the DtoH copy is the wait --------------------
{
	my $g = GtDiag->new;
	$g->stack(2, ['train.py', 'train_step', 61]);
	for my $s (0 .. 9) {
		my $b = $s * $MS;
		$g->launch(1, $b, 5 * $US);
		$g->copy(1, $b + 10 * $US, 800 * $US, dir => 'dtoh', bytes => 4, stack => 2);
		$g->sync(1, $b + 811 * $US, 2 * $US);
		$g->kernel($b + 10 * $US, $b + 800 * $US);
	}
	my $j = $g->analyze;
	my $k = $j->{diagnosis}{sync_kinds};

	ok($k->{readback} > 0 && $k->{readback} == GtDiag::idle_by_cause($j)->{sync},
	   'readback: the bubble after a DtoH copy is a readback');
	is(top($j), 'communication', 'readback: communication & sync');
	adds_up($j, 'readback');
}

# ---- launch-bound: tiny kernels, the host launching back to back ---------
{
	my $g = GtDiag->new;
	for my $i (0 .. 1999) {
		my $t = $i * 10 * $US;
		$g->launch(1, $t, 4 * $US);
		$g->kernel($t + 7 * $US, $t + 9 * $US, submitted => $t + 4 * $US);
	}
	my $j = $g->analyze;
	my $idle = GtDiag::idle_by_cause($j);
	my $span = $j->{diagnosis}{span_ns};

	ok($idle->{launching} > 0 && $idle->{launch_latency} > 0,
	   'launch-bound: launching and launch latency');
	# each 10 us period: 2 us busy, 3 us latency, 5 us launching
	ok(abs($idle->{launching} / $span - 0.5) < 0.01, 'launch-bound: launching is half');
	ok(abs($idle->{launch_latency} / $span - 0.3) < 0.01, 'launch-bound: latency 30%');
	is(top($j), 'kernel_efficiency', 'launch-bound: kernel efficiency');
	my $v = $j->{verdict}[0];
	ok(abs($v->{est_gain_high} - 0.7) < 0.02 && abs($v->{est_gain_low} - 0.5) < 0.02,
	   'launch-bound: graph replay leaves 1-3 us per kernel: -50% to -70%')
		or diag("$v->{est_gain_low} $v->{est_gain_high}");
	adds_up($j, 'launch-bound');
}

# ---- small grids: the same but kernels fill few SMs ----------------------
{
	my $g = GtDiag->new(sm => 132);
	for my $i (0 .. 999) {
		my $t = $i * 10 * $US;
		$g->launch(1, $t, 4 * $US);
		$g->kernel($t + 5 * $US, $t + 9 * $US, grid => [4]);
	}
	my $j = $g->analyze;

	is(top($j), 'memory_batch', 'small grids: memory & batch configuration');
	ok($j->{diagnosis}{kernels}{lowfill_share} > 0.99, 'small grids: low SM fill');
}

# ---- data loading in the main process (num_workers=0) --------------------
sub loader_run {
	my (%o) = @_;
	my $g = GtDiag->new(affinity => $o{affinity});
	my $sp = '/usr/lib/python3/dist-packages';

	# a PyTorch program whose DataLoader pins its batches
	$g->module("$sp/torch/lib/libtorch_cuda.so", 0x7000_0000, 1 << 20);
	$g->stack(9, ["$sp/torch/utils/data/_utils/pin_memory.py", 'pin_memory', 70]);
	$g->copy(1, 10 * $US, 10 * $US, dir => 'htod', memory => 'pinned', stack => 9);
	return $g->loader_steps(%o)->analyze;
}

{
	my $j = loader_run(proc => 1.0, child => 0, children => 0);
	my $idle = GtDiag::idle_by_cause($j);

	ok($idle->{cpu_preprocessing} > 0.8 * $j->{diagnosis}{span_ns},
	   'num_workers=0: idle while the main process was on the CPU');
	is(top($j), 'data_supply', 'num_workers=0: data supply');
	like(join(' ', @{ $j->{verdict}[0]{advice} }), qr/num_workers=\d+, persistent_workers=True/,
	     'num_workers=0: advice in DataLoader terms');
	adds_up($j, 'num_workers=0');

	$j = loader_run(proc => 0.05, child => 3.0, children => 4);
	$idle = GtDiag::idle_by_cause($j);
	ok($idle->{dataloader_wait} > 0.8 * $j->{diagnosis}{span_ns},
	   'slow workers: idle waiting on DataLoader workers');
	is(top($j), 'data_supply', 'slow workers, idle CPUs: data supply');

	$j = loader_run(proc => 0.05, child => 1.95, children => 4, affinity => 2);
	is(top($j), 'cpu_preprocessing', 'workers on saturated CPUs: CPU preprocessing');
}

# ---- pageable uploads: the host stages, the GPU copies -------------------
{
	my $g = GtDiag->new;
	for my $s (0 .. 9) {
		my $b = $s * 5 * $MS;
		$g->copy(1, $b, 3 * $MS, dir => 'htod', memory => 'pageable', bytes => 64 << 20);
		$g->gpu_copy($b + 500 * $US, $b + 3 * $MS, bytes => 64 << 20);
		$g->launch(1, $b + 3010 * $US, 10 * $US);
		$g->kernel($b + 3100 * $US, $b + 4900 * $US);
	}
	my $j = $g->analyze;
	my $idle = GtDiag::idle_by_cause($j);

	ok($idle->{copies} > 0.5 * $j->{diagnosis}{span_ns}, 'pageable: idle on copies');
	is(top($j), 'memory_batch', 'pageable: memory & batch configuration');
	like($j->{verdict}[0]{change}, qr/^pinned host memory \(cudaHostAlloc\) and cudaMemcpyAsync$/,
	     'pageable, no framework seen: pin and copy asynchronously, in CUDA\'s words');
	adds_up($j, 'pageable');
}

# ---- NCCL kernels running alone -----------------------------------------
{
	my $g = GtDiag->new;
	for my $s (0 .. 9) {
		my $b = $s * 2 * $MS;
		$g->launch(1, $b, 10 * $US);
		$g->nccl(1, $b + 20 * $US, 30 * $US);
		$g->kernel($b + 30 * $US, $b + 600 * $US);
		$g->kernel($b + 600 * $US, $b + 1990 * $US, name => 'ncclDevKernel_AllReduce');
		$g->sync(1, $b + 60 * $US, 1930 * $US);
	}
	my $j = $g->analyze;

	ok(GtDiag::idle_by_cause($j)->{communication} > 0.6 * $j->{diagnosis}{span_ns},
	   'nccl: the GPU waiting on collectives');
	is(top($j), 'communication', 'nccl: communication & sync');
	adds_up($j, 'nccl');
}

# ---- compute-bound: healthy ---------------------------------------------
{
	my $g = GtDiag->new;
	for my $s (0 .. 49) {
		my $b = $s * $MS;
		$g->launch(1, $b, 5 * $US, fn => 1);
		$g->launch(1, $b + 10 * $US, 5 * $US, fn => 2);
		$g->kernel($b + 5 * $US, $b + 990 * $US, fn => 1);
		$g->kernel($b + 990 * $US, $b + $MS + 5 * $US);
	}
	my $j = $g->analyze;

	is(top($j), 'healthy', 'compute-bound: healthy');
	ok($j->{diagnosis}{busy_share} > 0.95, 'compute-bound: busy');
	like(join(' ', @{ $j->{verdict}[0]{advice} }), qr/Nsight Compute/,
	     'healthy: points at kernel-level tools');
}

# ---- no GPU records: the host timeline ----------------------------------
{
	my $g = GtDiag->new(no_gpu => 1);
	for my $s (0 .. 19) {
		my $b = $s * $MS;
		$g->launch(1, $b, 5 * $US);
		$g->sync(1, $b + 10 * $US, 950 * $US);
	}
	my $j = $g->analyze;

	ok(!$j->{diagnosis}{gpu_known}, 'host only: GPU side unknown');
	is_deeply($j->{idle}, [], 'host only: no GPU idle claimed');
	ok($j->{diagnosis}{host}{waiting} > 0.9 * $j->{diagnosis}{host}{span_ns},
	   'host only: time in waits');
	is(top($j), 'healthy', 'host only: waiting on the GPU reads as GPU-bound');
	like($j->{verdict}[0]{evidence}[0], qr/no GPU records/, 'host only: says so');
}

# ---- no GPU records, a per-step readback: the host side's sync bubble ------
{
	my $g = GtDiag->new(no_gpu => 1);
	$g->stack(1, ['train.py', 'train_step', 57], ['train.py', 'main', 80]);
	for my $s (0 .. 19) {
		my $b = $s * $MS;
		$g->launch(1, $b, 5 * $US, fn => 1);
		$g->launch(1, $b + 10 * $US, 5 * $US, fn => 2);
		$g->sync(1, $b + 20 * $US, 580 * $US, stack => 1);   # .item()
		# then 400 us of bookkeeping before the next step's launches
	}
	my $j = $g->analyze;
	my $h = $j->{diagnosis}{host};
	my $steady = $j->{steps}{count} - 1;

	ok(!$j->{diagnosis}{gpu_known}, 'host-only bubble: GPU side unknown');
	# every steady step: 400 us outside CUDA right after the wait
	cmp_ok(abs($h->{outside_after_wait} - $steady * 400 * $US), '<=', 400 * $US,
	       "host-only bubble: $h->{outside_after_wait} ns after the waits, ~$steady x 400 us");
	is($h->{outside_cpu} + $h->{outside_dataloader} + $h->{outside_io} + $h->{outside_other},
	   $h->{outside_cuda} - $h->{outside_after_wait},
	   'host-only bubble: not counted again as outside time');
	is(top($j), 'communication', 'host-only bubble: verdict communication & sync');
	my ($v) = grep { $_->{class} eq 'communication' } @{ $j->{verdict} };
	like(join("\n", @{ $v->{evidence} }), qr/right after waits that emptied the GPU's queue: 40%/,
	     'host-only bubble: the evidence, with its share');
	like(join("\n", @{ $v->{evidence} }), qr/sync bubble at train\.py:57 in train_step/,
	     'host-only bubble: and the call site');
	cmp_ok($v->{est_gain_low}, '>=', 0.19, 'host-only bubble: at least half of it gained');
	cmp_ok($v->{est_gain_high}, '<=', 0.41, 'host-only bubble: at most all of it');
	like(GtDiag::report($g), qr/outside CUDA after a wait emptied the queue \(sync bubble\)/,
	     'host-only bubble: a row of the host table');
}

# ---- no GPU records, launching back to back: small grids or large ---------
for my $case (['small', [4, 1, 1], 'memory_batch'], ['large', [4096, 1, 1], 'kernel_efficiency']) {
	my ($what, $grid, $want) = @$case;
	my $g = GtDiag->new(no_gpu => 1, grids => { 1 => $grid, 2 => $grid });
	for my $s (0 .. 19) {
		my $b = $s * $MS;
		for my $k (0 .. 79) {       # 80 launches of 10 us: the host feeds
			$g->launch(1, $b + $k * 12 * $US, 10 * $US, fn => 1 + $k % 2);
		}
		$g->sync(1, $b + 960 * $US, 30 * $US);
	}
	my $j = $g->analyze;

	is(top($j), $want, "host-only $what grids: $want");
	my ($v) = grep { $_->{class} eq 'memory_batch' } @{ $j->{verdict} };
	if ($want eq 'memory_batch') {
		like(join("\n", @{ $v->{evidence} }),
		     qr/100% of the launches have grids that fill under half of the 132 SMs/,
		     "host-only $what grids: the evidence");
		is($j->{diagnosis}{kernels}{lowfill_launch_share}, 1, "host-only $what grids: share in JSON");
	} else {
		is($j->{diagnosis}{kernels}{lowfill_launch_share}, 0, "host-only $what grids: none small");
	}
}

# A short wait, then long CPU work: the bubble is at most the wait's length.
{
	my $g = GtDiag->new(no_gpu => 1);
	for my $s (0 .. 19) {
		my $b = $s * $MS;
		$g->launch(1, $b, 5 * $US, fn => 1);
		$g->sync(1, $b + 10 * $US, 100 * $US);    # then 890 us on the CPU
	}
	my $j = $g->analyze;
	my $h = $j->{diagnosis}{host};
	my $steady = $j->{steps}{count} - 1;

	cmp_ok(abs($h->{outside_after_wait} - $steady * 100 * $US), '<=', 100 * $US,
	       "short wait: bubble $h->{outside_after_wait} ns, ~$steady x 100 us");
	isnt(top($j), 'communication', 'short wait: the CPU work is not called a sync bubble');
}

# An event wait does not empty the queue: work may be queued after the event.
{
	my $g = GtDiag->new(no_gpu => 1);
	for my $s (0 .. 19) {
		my $b = $s * $MS;
		$g->launch(1, $b, 5 * $US, fn => 1);
		$g->launch(1, $b + 10 * $US, 5 * $US, fn => 2);
		$g->ev(1, { op => GtDiag::OP_EVENT_SYNC(), t0 => $b + 20 * $US, dur => 580 * $US,
			    args => [0, 0] });
	}
	my $j = $g->analyze;

	is($j->{diagnosis}{host}{outside_after_wait}, 0, 'event wait: no bubble claimed');
}

done_testing();
