#!/usr/bin/perl
# 911-diagnosis-framework.t - which framework a program uses, on synthetic
# dumps (GtDiag): told by the objects it loaded (by file name, or by the
# package folder right after site-packages, never a folder above it), by
# the call stacks of its CUDA calls (native frames in those objects,
# Python files), by its command; a native executable with none of them is
# CUDA C/C++; a DataLoader by torch/utils/data in the stacks or by two or
# more busy child processes of a PyTorch program.  The JSON says what was
# seen and from which evidence, the text report says it under its header.
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
my $SP = '/opt/torch/.venv/lib/python3.12/site-packages';

# 20 steps of 1 ms: a launch, a wait with stack 1, 300 us of host work.
sub steps {
	my ($g) = @_;

	for my $s (0 .. 19) {
		my $b = $s * $MS;
		$g->launch(1, $b, 5 * $US);
		$g->sync(1, $b + 10 * $US, 690 * $US, stack => 1);
		$g->kernel($b + 10 * $US, $b + 700 * $US);
	}
	return $g;
}

sub fw { return $_[0]{framework} }

# ---- PyTorch: its object made the call, a DataLoader in the stack ---------
{
	my $g = GtDiag->new;
	$g->module("$SP/torch/lib/libtorch.so", 0x7000_0000, 1 << 20);
	$g->module("$SP/torch/lib/libtorch_cuda.so", 0x7100_0000, 1 << 20);
	$g->stack(1, ["$SP/torch/utils/data/_utils/pin_memory.py", 'pin', 70],
		  ['/home/u/train.py', 'main', 12]);
	$g->native(1, 0x7100_0400);
	my $j = steps($g)->analyze;
	my $f = fw($j);

	is($f->{name}, 'pytorch', 'pytorch: told');
	ok($f->{python}, 'pytorch: a Python program');
	my ($s) = grep { $_->{name} eq 'pytorch' } @{ $f->{seen} };
	is($s->{evidence}, 'module libtorch_cuda.so',
	   'pytorch: the evidence is the CUDA object, the better one by name');
	is($s->{modules}, 2, 'pytorch: both objects counted');
	is($s->{call_stacks}, 1, 'pytorch: its object made the CUDA call');
	ok($f->{dataloader}, 'pytorch: a DataLoader in the stacks');
	is($f->{dataloader_evidence}, 'torch/utils/data/_utils/pin_memory.py',
	   'pytorch: the DataLoader file');
	is($f->{workers}, 0, 'pytorch: no worker processes');
	like(steps($g)->report, qr/^program: PyTorch \(module libtorch_cuda\.so; 1 call stack of CUDA\s+calls through it\); DataLoader/m,
	     'pytorch: the line under the header');
}

# ---- a virtual environment called torch is no PyTorch ----------------------
{
	my $g = GtDiag->new;
	$g->module("$SP/jaxlib/_jax.so", 0x7000_0000, 1 << 20);
	$g->module("$SP/jax_plugins/xla_cuda13/xla_cuda_plugin.so", 0x7100_0000, 1 << 20);
	$g->stack(1, ["$SP/jax/_src/array.py", '_value', 600], ['/home/u/train.py', 'main', 9]);
	for my $t (0, 1 .. 50) {       # compiler processes: busy children
		$g->sample($t * 10 * $MS, proc => $t * 10 * $MS, child => $t * 20 * $MS,
			   children => 7);
	}
	my $j = steps($g)->analyze;
	my $f = fw($j);

	is($f->{name}, 'jax', 'jax: told');
	ok(!grep({ $_->{name} eq 'pytorch' } @{ $f->{seen} }),
	   'jax: the folder /opt/torch above site-packages is not PyTorch');
	ok(!$f->{dataloader}, 'jax: child processes are no DataLoader');
	is($f->{workers}, 0, 'jax: no input workers claimed');
}

# ---- a native program: CUDA C/C++ ------------------------------------------
{
	my $g = GtDiag->new(exe => '/home/u/bin/solver', argv => ['./solver', '-n', '4']);
	my $j = steps($g)->analyze;

	is(fw($j)->{name}, 'cuda', 'native: CUDA C/C++');
	ok(!fw($j)->{python}, 'native: not Python');
	like(steps($g)->report, qr/^program: CUDA C\/C\+\+ \(executable solver, no framework's objects loaded\)$/m,
	     'native: the line under the header');
}

# ---- CuPy, by its package -------------------------------------------------------
{
	my $g = GtDiag->new;
	$g->module("$SP/cupy_backends/cuda/api/runtime.cpython-312-x86_64-linux-gnu.so",
		   0x7000_0000, 1 << 20);
	$g->stack(1, ["$SP/cupy/_core/_routines_math.py", 'sum', 30]);
	is(fw(steps($g)->analyze)->{name}, 'cupy', 'cupy: told');
}

# ---- Python with none of them; a launcher's command ------------------------
{
	my $j = steps(GtDiag->new)->analyze;

	is(fw($j)->{name}, 'unknown', 'plain Python: no framework');
	ok(fw($j)->{python}, 'plain Python: Python');
	like(steps(GtDiag->new)->report, qr/^program: Python, none of PyTorch, JAX, TensorFlow or CuPy seen$/m,
	     'plain Python: said so');

	my $t = steps(GtDiag->new(exe => '/usr/bin/python3',
				  argv => ['/usr/local/bin/torchrun', '--nproc-per-node=8', 'train.py']));
	is(fw($t->analyze)->{name}, 'pytorch', 'torchrun: PyTorch');
}

# ---- busy child processes of PyTorch: its DataLoader's workers ---------------
for my $n (1, 4) {
	my $g = GtDiag->new;
	$g->module("$SP/torch/lib/libtorch_cuda.so", 0x7100_0000, 1 << 20);
	for my $t (0 .. 50) {
		$g->sample($t * 10 * $MS, proc => $t * 10 * $MS, child => $t * 20 * $MS,
			   children => $n);
	}
	my $f = fw(steps($g)->analyze);

	if ($n == 1) {
		ok(!$f->{dataloader}, 'one busy child: not taken for DataLoader workers');
	} else {
		ok($f->{dataloader}, "$n busy children: DataLoader workers, presumably");
		is($f->{workers}, $n, "$n busy children: $n workers");
		like($f->{dataloader_evidence}, qr/^presumably: 4 busy child processes/,
		     "$n busy children: the evidence says it is presumed");
	}
}

done_testing();
