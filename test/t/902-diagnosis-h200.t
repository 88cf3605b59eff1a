#!/usr/bin/perl
# 902-diagnosis-h200.t - the diagnosis on dumps recorded on an H200 by
# test/gpu/check_diagnosis.py (one GPU timing window each, kept small in
# test/dumps/): examples/diagnose/cuda/pageable.cu (32 MiB cudaMemcpy of
# pageable memory per step) and examples/diagnose/tiny_batch.py (an MLP
# with a batch of 4).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use JSON::PP;
use Test::More;

use GtDump qw(run_analyzer);

plan skip_all => 'gputrace-analyze not built'
	unless -x GtDump::analyzer_path();

my $dumps = "$FindBin::Bin/../dumps";

sub analyze {
	my ($name) = @_;
	my $r = run_analyzer('--json', "$dumps/$name");

	is($r->{exit}, 0, "$name: analyzed") or diag($r->{err});
	return decode_json($r->{out} || '{}');
}

sub share {
	my ($j, $cause) = @_;
	my ($i) = grep { $_->{cause} eq $cause } @{ $j->{idle} };

	return $i ? $i->{share} : 0;
}

my $j = analyze('h200-cuda-pageable.bin');
ok($j->{diagnosis}{gpu_known}, 'pageable: GPU records');
is($j->{verdict}[0]{class}, 'memory_batch', 'pageable: memory & batch configuration');
ok(share($j, 'copies') > 0.9, 'pageable: the GPU waited on copies');
is($j->{steps}{source}, 'launch_pattern', 'pageable: steps from the copy-kernel pattern');
is($j->{steps}{period}, 2, 'pageable: a copy and a kernel per step');
ok(abs($j->{steps}{p50_ns} - 2.56e6) < 0.2e6, 'pageable: 2.56 ms steps (the program said 2.57)');
my $sum = $j->{diagnosis}{busy_ns};
$sum += $_->{ns} for @{ $j->{idle} };
is($sum, $j->{diagnosis}{span_ns}, 'pageable: causes and busy time add up');
my $v = $j->{verdict}[0];
ok($v->{est_gain_low} <= 0.75 && $v->{est_gain_high} >= 0.75,
   'pageable: the pinned twin measured -75%: inside the range');
like($v->{change}, qr/pinned host memory \(cudaHostAlloc\)/, 'pageable: pin the memory (a CUDA C++ program)');

$j = analyze('h200-tiny-batch.bin');
is($j->{verdict}[0]{class}, 'memory_batch', 'tiny batch: memory & batch configuration');
ok($j->{diagnosis}{kernels}{optimizer_share} > 0.2,
   "tiny batch: the optimizer's kernels take a large share");
like($j->{verdict}[0]{change}, qr/larger batch/, 'tiny batch: raise the batch');
ok(share($j, 'launching') > 0.5, 'tiny batch: the GPU idles between short kernels');

done_testing();
