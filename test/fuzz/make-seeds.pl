#!/usr/bin/perl
# make-seeds.pl - write the small seeds of the structure-aware fuzzer,
# test/fuzz/seeds/chunk-*.bin: valid dumps of a few hundred bytes, each
# holding the chunk types of one part of the format (launches, copies with
# stacks and modules, GPU records with clock pairs and windows, NVTX, the
# environment and samples, NCCL, redefinitions), so that every chunk type
# is in the corpus from the first run.  Run it again after changing it and
# commit the .bin files with it:
#
#	perl test/fuzz/make-seeds.pl [DIR]   (default: test/fuzz/seeds)
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";

use GtDump qw(:DEFAULT chunk varint KIND_HOSTSAMPLE HOST_RUNNING HOST_WAITING);

my $dir = shift // "$FindBin::Bin/seeds";

use constant {
	CHUNK_STACK => 11, CHUNK_MODULES => 12, CHUNK_GPU => 13,
	CHUNK_NVTX => 14, CHUNK_SAMPLE => 15, CHUNK_ENV => 16,
	CHUNK_NCCL_COMM => 17, CHUNK_WINDOW => 18, CHUNK_CLOCK => 19,
	CHUNK_NCCL_PROF => 20,
	KIND_NVTX => 8, KIND_NCCL => 7, KIND_HOSTALLOC => 6,
	T0 => 1_000_000,
	HOST_ID => 1 << 40,         # buffer 1, event 0
};

# A dump with a process, the ops of every kind and one kernel.
sub base {
	my $d = GtDump->new(start_ns => T0, pid => 42);

	$d->process(host => 'node1', exe => '/bin/train', argv => ['train']);
	$d->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel',
	       flags => OPF_ASYNC);
	$d->op(op => 2, kind => KIND_COPY, api => 'cuMemcpyHtoDAsync',
	       dir => DIR_HTOD, flags => OPF_ASYNC);
	$d->op(op => 3, kind => KIND_SYNC, api => 'cuStreamSynchronize');
	$d->op(op => 4, kind => KIND_NVTX, api => 'nvtxRangePushA', dir => 1,
	       nargs => 4);
	$d->op(op => 5, kind => KIND_NVTX, api => 'nvtxRangePop', dir => 2,
	       nargs => 4);
	$d->op(op => 6, kind => KIND_NCCL, api => 'ncclAllReduce', nargs => 7,
	       flags => OPF_ASYNC);
	$d->op(op => 7, kind => KIND_HOSTALLOC, api => 'cuMemHostAlloc',
	       nargs => 4);
	$d->function(id => 1, name => '_Z6matmulPfS_S_i', handle => 0x7f00);
	$d->shape(id => 1, function => 1, grid => [64, 1, 1],
		  block => [256, 1, 1]);
	$d->stream(id => 1, handle => 0x5000);
	return $d;
}

# n events of op, 10 us apart from t.
sub run_of {
	my ($op, $n, $t, @args) = @_;

	return map { { op => $op, t0 => $t + 10_000 * $_, dur => 2_000,
		       stream => 1, args => [@args] } } 0 .. $n - 1;
}

sub finish {
	my ($d, $name) = @_;

	$d->drops(tid => 1, count => 1);
	$d->note(1, 'a note');
	$d->end(end_ns => T0 + 10_000_000);
	$d->write("$dir/chunk-$name.bin");
}

sub gpu {
	my ($kind, $size, @recs) = @_;

	return chunk(CHUNK_GPU, pack('V4', $kind, scalar @recs, $size, 0)
		     . join('', @recs));
}

sub kernel_rec {
	my ($i, $start) = @_;

	return pack('Q<5 V4 l<6 V2', HOST_ID + $i, $start, $start + 5_000, 0,
		    0, $i + 1, 7, 0, 0, 64, 1, 1, 256, 1, 1, 0, 0);
}

sub info {
	my ($type, $scope, @items) = @_;
	my $body = '';

	for my $it (@items) {
		my ($key, $status, $value, $text) = @$it;
		$text //= '';
		$body .= pack('v v V q<', $key, $status, length $text, $value)
			. $text;
	}
	return chunk($type, pack('Q< V V', T0 + 500, $scope, scalar @items)
		     . $body);
}

my $d = base();
$d->events(tid => 1, events => [run_of(1, 6, T0 + 1000, 1),
				run_of(3, 2, T0 + 70_000, 1, 0)]);
finish($d, 'launch');

$d = base();
my $file = $d->string('train.py');
my $func = $d->string('Trainer.step');
my $lib = $d->string('/usr/lib/libtorch.so');
$d->raw(chunk(CHUNK_MODULES, pack('V V', 1, 0)
	      . pack('Q<3 V C a3 a32', 0x400000, 0x400000, 0x10000, $lib, 20,
		     '', 'b' x 20)));
$d->raw(chunk(CHUNK_STACK, pack('V v v', 1, 2, 1) . pack('Q<2', 0x401000,
	      0x402000) . pack('V4', $file, $func, 12, 0)));
$d->events(tid => 2, events => [run_of(2, 3, T0 + 1000, 4096, 0x10, 0x20, 1,
				       1, 1), run_of(7, 2, T0 + 50_000,
				       1 << 20, 0x9000, 0, 1)]);
finish($d, 'copies-stack');

$d = base();
$d->raw(chunk(CHUNK_CLOCK, pack('Q< Q< V V', 5_000_000, T0 + 100, 40, 0)));
$d->raw(chunk(CHUNK_WINDOW, pack('Q< Q< V V', T0, 0, 1, 0)));
$d->events(tid => 1, events => [run_of(1, 4, T0 + 1000, 1)]);
$d->raw(gpu(1, 88, map { kernel_rec($_, 5_001_000 + 10_000 * $_) } 0 .. 3));
$d->raw(gpu(2, 48, pack('Q<4 V3 C4', HOST_ID, 5_050_000, 5_060_000, 4096,
			9, 7, 0, 1, 1, 3, 1)));
$d->raw(gpu(3, 48, pack('Q<4 V3 C4', 0, 5_070_000, 5_071_000, 512, 10, 7,
			0, 0, 0, 3, 0)));
$d->raw(gpu(4, 40, pack('Q<3 V4', HOST_ID + 3, 5_080_000, 5_090_000, 11, 7,
			0, 3)));
$d->raw(gpu(5, 40, pack('Q<3 V4', 0, 5_091_000, 5_095_000, 12, 7, 0, 1)));
$d->raw(gpu(6, 32, pack('V8', 1, 1, 100, 1000, 0, 12000, 0, 0)));
$d->raw(gpu(7, 32, pack('Q<4', 1, 0, 0, 0)));
$d->raw(chunk(CHUNK_CLOCK, pack('Q< Q< V V', 9_000_000, T0 + 4_000_100, 40,
				0)));
$d->raw(chunk(CHUNK_WINDOW, pack('Q< Q< V V', T0, T0 + 9_000_000, 1, 0)));
finish($d, 'gpu');

$d = base();
my $dom = $d->string('torch');
my $step = $d->string('ProfilerStep#1');
$d->raw(chunk(CHUNK_NVTX, pack('V4', 1, 1, $dom, 0)));
$d->events(tid => 1, events => [
	{ op => 4, t0 => T0 + 1000, args => [$step, 1, 0, 0] },
	run_of(1, 2, T0 + 2000, 1),
	{ op => 5, t0 => T0 + 30_000, args => [0, 1, 0, 0] },
	{ op => 4, t0 => T0 + 31_000, args => [$step, 1, 0, 0] },
	{ op => 5, t0 => T0 + 60_000, args => [0, 1, 0, 0] }]);
finish($d, 'nvtx');

$d = base();
$d->raw(info(CHUNK_ENV, 0xffffffff, [1, 0, 1], [2, 0, 0, '580.95.05'],
	     [6, 0, 16], [7, 0, 16, '0-15'], [8, 1, 0]));
$d->raw(info(CHUNK_ENV, 0, [32, 0, 0, 'NVIDIA H200'], [35, 0, 1 << 37],
	     [36, 0, 90], [43, 0, (1 << 32) | 10]));
$d->raw(info(CHUNK_SAMPLE, 0, [1, 0, 87], [3, 0, 1980], [7, 0, 400_000],
	     [9, 0, 1234], [10, 0, 1 << 30]));
$d->raw(info(CHUNK_SAMPLE, 0xffffffff, [32, 0, 5_000_000],
	     [33, 0, 1_000_000], [37, 0, 80_000_000], [39, 0, 60_000_000]));
$d->events(tid => 1, events => [run_of(1, 2, T0 + 1000, 1)]);
finish($d, 'env-sample');

$d = base();
my $coll = $d->string('AllReduce');
my $dtype = $d->string('ncclFloat32');
my $ring = $d->string('Ring');
$d->raw(chunk(CHUNK_NCCL_COMM, pack('V2 l<4 Q<4 V4', 1, 0, 0, 2, 0, -1,
				    0x6000, 0xabcdef, 0x1234, T0 + 10,
				    22703, 0, 1, 0)));
$d->events(tid => 1, events => [run_of(6, 3, T0 + 1000, 1024, 4096, 1, 0,
				       8, 1, 0)]);
$d->raw(chunk(CHUNK_NCCL_PROF, pack('V V', 1, 80)
	      . pack('Q<6 V l< V4 C3 a5', T0 + 1000, T0 + 2000, 7_000, 9_000,
		     1024, 1, 1, -1, $coll, $dtype, $ring, 0, 1, 2, 2, '')));
finish($d, 'nccl');

$d = base();
$d->events(tid => 1, events => [run_of(1, 2, T0 + 1000, 1)]);
$d->function(id => 1, name => '_Z4gemmv', handle => 0x7f00);
$d->shape(id => 1, function => 1, grid => [1, 1, 1]);
$d->events(tid => 1, events => [run_of(1, 2, T0 + 40_000, 1)]);
$d->raw(chunk(CHUNK_STRING, pack('V', 1) . 'cuLaunchKernelEx'));
$d->function(id => 1, name => '_Z6matmulPfS_S_i', handle => 0x7f00);
$d->events(tid => 1, events => [run_of(1, 2, T0 + 80_000, 1)]);
finish($d, 'redefine');

# Host stack samples: a sampler's op and note, stacks of Python and native
# frames (one in a module), samples running and waiting between launches
# and waits, the process's CPU time.
$d = base();
$d->op(op => 8, kind => KIND_HOSTSAMPLE, api => 'host sample');
$d->note(1, 'host sampler: 100 Hz of each thread\'s CPU time (SIGPROF), 8 native frames');
$lib = $d->string('/usr/lib/libtorch.so');
$d->raw(chunk(CHUNK_MODULES, pack('V V', 1, 0)
	      . pack('Q<3 V C a3 a32', 0x400000, 0x400000, 0x10000, $lib, 20,
		     '', 'b' x 20)));
$d->stack(id => 1, native => [0x401000, 0x402000],
	  python => [['augment', '/w/data.py', 15], ['main', '/w/train.py', 50]]);
$d->stack(id => 2, native => [0x7fff0000]);
$d->cpu_sample(t => T0 + 5_000_000 * $_, proc => 4_000_000 * $_,
	       child => 1_000_000 * $_) for 0 .. 2;
$d->events(tid => 1, events => [run_of(1, 2, T0 + 1000, 1),
	{ op => 3, t0 => T0 + 30_000, dur => 100_000, args => [1, 0] },
	map({ { op => 8, t0 => T0 + 200_000 + 1_000_000 * $_, dur => 1_000_000,
		args => [1 + $_ % 2, $_ == 5 ? HOST_WAITING : HOST_RUNNING, $_ % 2] } } 0 .. 7),
	run_of(1, 2, T0 + 9_000_000, 1)]);
finish($d, 'hostsample');
