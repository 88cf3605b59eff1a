#!/usr/bin/perl
# 910-diagnosis-advice.t - advice that fits the program, on synthetic dumps
# (GtDiag) and on the recorded ones of test/h200/: in the words of its
# framework (DataLoader workers only where a DataLoader is seen; torch's
# words only for PyTorch; JAX's, CUDA's otherwise); never a fix it already
# has (uploads pinned and asynchronous, the step a CUDA graph; workers as
# many as the CPUs run: how many it would take); a readback is a sync, not
# a copy to make non_blocking; the environment only on evidence that
# something is wrong (not the power limit under full load, not another
# process beside the GPU's heavy user).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use JSON::PP;
use Test::More;

use GtDiag;
use GtDump qw(run_analyzer);

plan skip_all => 'gputrace-analyze not built'
	unless -x GtDump::analyzer_path();

my $US = 1000;
my $MS = 1000 * $US;
my $SP = '/usr/lib/python3/dist-packages';
my $TORCH_WORDS = qr/DataLoader|torch|non_blocking|pin_memory|num_workers|\.item\(\)/;

sub top { return $_[0]{verdict}[0]{class} // 'none' }
sub class_of { my ($j, $c) = @_; return (grep { $_->{class} eq $c } @{ $j->{verdict} })[0] }

# Every change, piece of advice and finding of a report, one per line.
sub advice_text {
	my ($j) = @_;

	return join("\n", map({ ($_->{change}, @{ $_->{advice} }) } @{ $j->{verdict} }),
		    map({ $_->{text} // '' } @{ $j->{findings} // [] }));
}

# ---- data supply, no DataLoader: no DataLoader words ------------------------
{
	my $g = GtDiag->new;
	$g->module("$SP/jax_plugins/xla_cuda13/xla_cuda_plugin.so", 0x7000_0000, 1 << 20);
	my $j = $g->loader_steps->analyze;

	is($j->{framework}{name}, 'jax', 'JAX data supply: JAX');
	is(top($j), 'data_supply', 'JAX data supply: data supply');
	unlike(advice_text($j), $TORCH_WORDS, 'JAX data supply: no PyTorch words');
	like($j->{verdict}[0]{change}, qr/grain|tf\.data/, 'JAX data supply: an input pipeline of its own');

	$j = GtDiag->new(exe => '/opt/app/solver', argv => ['solver'])->loader_steps->analyze;
	is($j->{framework}{name}, 'cuda', 'C++ data supply: CUDA C/C++');
	unlike(advice_text($j), $TORCH_WORDS, 'C++ data supply: no PyTorch words');
	like($j->{verdict}[0]{change}, qr/worker threads/, 'C++ data supply: worker threads');

	$g = GtDiag->new;
	$g->module("$SP/torch/lib/libtorch_cuda.so", 0x7000_0000, 1 << 20);
	$g->copy(1, 10 * $US, 100 * $US, dir => 'htod', memory => 'pageable', bytes => 1 << 20);
	$j = $g->loader_steps->analyze;
	unlike(advice_text($j), qr/DataLoader\(/, 'PyTorch without a DataLoader: no DataLoader settings');
	like(advice_text($j), qr/tensor\.pin_memory\(\)/, 'PyTorch without a DataLoader: pin the tensors');
	unlike($j->{verdict}[0]{change}, qr/more DataLoader workers|raise num_workers/,
	       'PyTorch without a DataLoader: never more DataLoader workers');
	like($j->{verdict}[0]{change}, qr/torch\.utils\.data\.DataLoader/,
	     'PyTorch without a DataLoader: load the data in one');
}

# ---- DataLoader workers: how many it would take ------------------------------
for my $case ([0.05, 'I/O-bound', qr/^raise num_workers from 4 to about \d+/],
	      [4.0, 'CPU-bound on 6 cores', qr/^the 4 DataLoader workers are the bottleneck/]) {
	my ($cores, $what, $want) = @$case;
	my $g = GtDiag->new(affinity => 6);
	$g->module("$SP/torch/lib/libtorch_cuda.so", 0x7000_0000, 1 << 20);
	$g->stack(9, ["$SP/torch/utils/data/dataloader.py", '__next__', 700]);
	$g->copy(1, 100 * $US, 10 * $US, dir => 'htod', memory => 'pinned', stack => 9);
	my $j = $g->loader_steps(proc => 0.02, child => $cores, children => 4)->analyze;

	ok($j->{framework}{dataloader}, "workers $what: a DataLoader");
	my ($d) = class_of($j, 'data_supply');
	ok($d, "workers $what: data supply listed") or next;
	like($d->{change}, $want, "workers $what: $d->{change}");
	unlike($d->{change}, qr/\(now \d+\)/, "workers $what: not 'more workers (now N)'");
}

# ---- a readback waited for is a sync, not a copy to make non_blocking --------
{
	my $g = GtDiag->new;
	$g->module("$SP/torch/lib/libtorch_cuda.so", 0x7000_0000, 1 << 20);
	for my $s (0 .. 19) {
		my $b = $s * $MS;
		$g->launch(1, $b, 5 * $US);
		$g->kernel($b + 10 * $US, $b + 600 * $US);
		$g->copy(1, $b + 20 * $US, 10 * $US, dir => 'dtoh', memory => 'pinned', bytes => 4);
		$g->sync(1, $b + 40 * $US, 560 * $US);
	}
	my $j = $g->analyze;

	is(top($j), 'communication', 'pinned readback: communication & sync');
	ok(!grep({ $_->{id} eq 'sync_pinned_copies' } @{ $j->{findings} }),
	   'pinned readback: not a pinned copy waited for');
	unlike(advice_text($j), qr/non_blocking/, 'pinned readback: no non_blocking advice');
}

# ---- uploads already pinned and asynchronous: not advised again --------------
{
	my $g = GtDiag->new;
	$g->module("$SP/torch/lib/libtorch_cuda.so", 0x7000_0000, 1 << 20);
	for my $s (0 .. 19) {
		my $b = $s * 2 * $MS;
		$g->copy(1, $b, 20 * $US, dir => 'htod', memory => 'pinned', bytes => 64 << 20);
		$g->gpu_copy($b + 30 * $US, $b + 1500 * $US, bytes => 64 << 20, src => 2);
		$g->launch(1, $b + 30 * $US, 10 * $US);
		$g->kernel($b + 1500 * $US, $b + 1900 * $US);
		$g->sync(1, $b + 50 * $US, 1850 * $US);
	}
	my $j = $g->analyze;
	my $m = class_of($j, 'memory_batch');

	ok($m, 'async pinned uploads: copies are the bottleneck') or diag(explain($j->{verdict}));
	unlike(advice_text($j), qr/pin_memory|non_blocking|tensor\.pin_memory/,
	       'async pinned uploads: no pinning or non_blocking advice');
	like(join("\n", @{ $m->{advice} }), qr/already come from pinned memory, asynchronously/,
	     'async pinned uploads: says they already are');
}

# ---- a step already launched as CUDA graphs: no "use CUDA graphs" ------------
{
	my $g = GtDiag->new;
	for my $s (0 .. 199) {
		my $b = $s * 100 * $US;
		$g->graph_launch(1, $b, 5 * $US);
		$g->kernel($b + 10 * $US + $_ * 9 * $US, $b + 13 * $US + $_ * 9 * $US) for 0 .. 9;
	}
	my $j = $g->analyze;
	my $k = class_of($j, 'kernel_efficiency');

	ok($k, 'graphs: kernel efficiency listed') or diag(explain($j->{verdict}));
	unlike(join("\n", $k->{change}, @{ $k->{advice} }), qr/CUDA graphs or|replay the step as a CUDA graph|capture the step/,
	       'graphs: no "use CUDA graphs"');
	like(join("\n", @{ $k->{evidence} }), qr/already runs as CUDA graphs/, 'graphs: says so');
}

# ---- the environment needs evidence -----------------------------------------
# 400 kernels of one function back to back, NVML samples every 10 ms.
sub shared {
	my (%o) = @_;
	my $g = GtDiag->new;
	my $t = 0;

	for my $i (0 .. 399) {
		my $d = $o{slow} && $i % 2 ? 2 * $MS : $MS;
		$g->launch(1, $t, 5 * $US);
		$g->kernel($t + 10 * $US, $t + 10 * $US + $d, name => "gemm");
		$t += $d + 10 * $US;
	}
	for (my $s = 0; $s <= $t; $s += 10 * $MS) {
		$g->gpu_sample($s, other => $o{other}, reasons => $o{reasons} // 0);
	}
	return $g->analyze;
}

{
	my $j = shared(other => 4242);
	is(top($j), 'healthy', 'heavy user beside another process: healthy');
	ok(!class_of($j, 'environment'), 'heavy user: not told another process slows it');

	$j = shared(other => 4242, slow => 1);
	is(top($j), 'environment', 'kernels slowed half the time with another process: environment');
	like(join("\n", @{ $j->{verdict}[0]{evidence} }), qr/took 33% of their time beyond their fast runs .* while another process was on the GPU/,
	     'slowed kernels: the evidence, a third of their time (every other run twice as long)');

	$j = shared(slow => 1);
	ok(!class_of($j, 'environment'), 'slow runs with no other process: not the environment');

	$j = shared(reasons => 1 << 2);
	ok(!class_of($j, 'environment'), 'at the power limit under full load: no environment class');
	unlike(JSON::PP->new->canonical->encode($j->{verdict}), qr/power limit/,
	       'power limit: no evidence of it');

	$j = shared(reasons => 1 << 5);
	my $e = class_of($j, 'environment');
	ok($e, 'thermal slowdown: an environment class');
	like(join("\n", @{ $e->{evidence} // [] }), qr/clocks held down/, 'thermal slowdown: the evidence');
}

# ---- the recorded runs --------------------------------------------------------
my $dir = "$FindBin::Bin/../h200";

sub recorded {
	my ($name) = @_;
	my $r = run_analyzer('--json', "$dir/$name.bin");

	is($r->{exit}, 0, "$name: analyzed") or return {};
	return decode_json($r->{out});
}

{
	my $j = recorded('jax-sync');
	is($j->{framework}{name}, 'jax', 'jax-sync: JAX');
	is(top($j), 'communication', 'jax-sync: communication & sync (float(loss) every step)');
	unlike(advice_text($j), $TORCH_WORDS, 'jax-sync: no PyTorch words');

	for my $name (qw(cuda-pageable cuda-pinned cuda-graph)) {
		$j = recorded($name);
		is($j->{framework}{name}, 'cuda', "$name: CUDA C/C++");
		unlike(advice_text($j), $TORCH_WORDS, "$name: no PyTorch words");
	}
	unlike(advice_text($j), qr/capture the step as a CUDA graph/, 'cuda-graph: graphs not advised');

	$j = recorded('item-sync');
	is(top($j), 'communication', 'item-sync: communication & sync');
	unlike(advice_text($j), qr/non_blocking|DataLoader workers \(now/, 'item-sync: no copy or worker advice');

	$j = recorded('copies-nonblocking');
	unlike(advice_text($j), qr/pin_memory|non_blocking=True/, 'copies-nonblocking: pinning not advised again');

	$j = recorded('big-matmul');
	ok(!class_of($j, 'environment'), 'big-matmul at its power limit: no environment class');

	$j = recorded('shared-gpu');
	is(top($j), 'environment', 'shared-gpu: environment');
	like(join("\n", @{ $j->{verdict}[0]{evidence} }), qr/beyond their fast runs/,
	     'shared-gpu: its kernels were slowed');
}

done_testing();
