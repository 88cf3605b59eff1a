#!/usr/bin/perl
# 903-diagnosis-env.t - the settings the program was started with, on
# synthetic dumps (GtDiag): CUDA_LAUNCH_BLOCKING=1 under a launch-bound or
# a sync-bound timeline (or, without GPU records, the host launching)
# makes the verdict environment & driver, with the change to unset it and
# a gain from the launches' waits; the same dump without it keeps its own
# class; NCCL's transports turned off are evidence when NCCL ran;
# CUDA_MODULE_LOADING=EAGER is a note, not a bottleneck; the settings
# appear in the JSON and the text report.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtDiag;

plan skip_all => 'gputrace-analyze not built'
	unless -x GtDump::analyzer_path();

my $US = 1000;

sub top { return $_[0]{verdict}[0]{class} // 'none' }

sub near {
	my ($got, $want, $name) = @_;

	ok(abs($got - $want) < 0.01, $name) or diag("got $got, want $want");
}

# Every launch waits for its kernel: launch [t, t + k + 10 us), the kernel
# inside it, then `gap` of host work before the next launch.
sub blocked {
	my ($k, $gap, @settings) = @_;
	my $g = GtDiag->new(@settings ? (settings => \@settings) : ());

	for my $i (0 .. 399) {
		my $t = $i * ($k + 10 * $US + $gap);

		$g->launch(1, $t, $k + 10 * $US);
		$g->kernel($t + 5 * $US, $t + 5 * $US + $k);
	}
	return $g;
}

# ---- launch-bound: 50 us kernels, 30 us between launches ---------------
{
	my @set = ('CUDA_LAUNCH_BLOCKING=1', 'NCCL_P2P_DISABLE=1', 'OMP_NUM_THREADS=4');
	my $j = blocked(50 * $US, 30 * $US, @set)->analyze;
	my $v = $j->{verdict}[0];

	is(top($j), 'environment', 'launch blocking: environment & driver');
	is($v->{change}, 'unset CUDA_LAUNCH_BLOCKING', 'launch blocking: the change');
	ok(grep({ /CUDA_LAUNCH_BLOCKING=1: every launch waited/ } @{ $v->{evidence} }),
	   'launch blocking: the evidence names it');
	# each 90 us: 50 us busy, 40 us idle; the launches waited 50 us, so at
	# most the 40 us idle are won back
	near($v->{est_gain_high}, 40 / 90, 'launch blocking: gain at most the idle time');
	near($v->{est_gain_low}, 20 / 90, 'launch blocking: at least half of it');
	ok(!grep({ $_->{class} eq 'kernel_efficiency' } @{ $j->{verdict} }),
	   'launch blocking: the launch gaps are not read as kernel efficiency');
	is_deeply($j->{env}{settings}, { CUDA_LAUNCH_BLOCKING => '1',
		  NCCL_P2P_DISABLE => '1', OMP_NUM_THREADS => '4' },
		  'launch blocking: env.settings in the JSON');
	ok(!grep({ /NCCL_P2P_DISABLE/ } @{ $v->{evidence} }),
	   'launch blocking: NCCL settings are no evidence without NCCL');

	my $text = blocked(50 * $US, 30 * $US, @set)->report;
	like($text, qr/^  settings: CUDA_LAUNCH_BLOCKING=1, NCCL_P2P_DISABLE=1, OMP_NUM_THREADS=4$/m,
	     'launch blocking: the settings line of the text report');
	like($text, qr/^Verdict: environment & driver/m, 'launch blocking: text verdict');
	like($text, qr/unset CUDA_LAUNCH_BLOCKING/, 'launch blocking: text change');

	my $o = blocked(50 * $US, 30 * $US)->analyze;
	is(top($o), 'kernel_efficiency', 'same timeline unset: kernel efficiency');
	ok(!grep({ $_->{class} eq 'environment' } @{ $o->{verdict} }),
	   'same timeline unset: no environment class');
	is($o->{env}{settings}, undef, 'a dump without settings: env.settings null');

	my $z = blocked(50 * $US, 30 * $US, 'CUDA_LAUNCH_BLOCKING=0')->analyze;
	is(top($z), 'kernel_efficiency', 'CUDA_LAUNCH_BLOCKING=0: kernel efficiency');
}

# ---- sync-bound: 400 us kernels, each launch a wait ------------------------
{
	my $j = blocked(400 * $US, 150 * $US, 'CUDA_LAUNCH_BLOCKING=1')->analyze;
	my $o = blocked(400 * $US, 150 * $US)->analyze;

	is(top($o), 'communication', 'long waits unset: communication & sync');
	is(top($j), 'environment', 'long waits, launch blocking: environment & driver');
	is($j->{verdict}[0]{change}, 'unset CUDA_LAUNCH_BLOCKING',
	   'long waits, launch blocking: the change');
	# each 560 us: 400 us busy, 160 us idle, the waits 400 us
	near($j->{verdict}[0]{est_gain_high}, 160 / 560, 'long waits: gain at most the idle time');
}

# ---- host work between launches: its own class first, launch blocking next
{
	my $j = blocked(50 * $US, 150 * $US, 'CUDA_LAUNCH_BLOCKING=1')->analyze;
	my ($env) = grep { $_->{class} eq 'environment' } @{ $j->{verdict} };

	is(top($j), 'data_supply', 'long host work: data supply first');
	ok($env, 'long host work: launch blocking still an environment class') or return;
	is($env->{change}, 'unset CUDA_LAUNCH_BLOCKING', 'long host work: its change');
	# each 210 us: 50 us busy, the launches waited 50 us of 160 idle
	near($env->{est_gain_high}, 50 / 210, 'long host work: gain at most the wait');
}

# ---- no GPU records: the host's launching is the environment's -----------
{
	my $g = GtDiag->new(no_gpu => 1, settings => ['CUDA_LAUNCH_BLOCKING=1']);

	$g->launch(1, $_ * 90 * $US, 60 * $US) for 0 .. 399;
	my $j = $g->analyze;
	my $v = $j->{verdict}[0];

	is(top($j), 'environment', 'host side only, launch blocking: environment');
	is($v->{change}, 'unset CUDA_LAUNCH_BLOCKING', 'host side only: the change');
	# 60 us in each launch, 30 us outside: at most the 30 us overlap
	near($v->{est_gain_high}, 30 / 90, 'host side only: gain at most the time outside launches');
}

# ---- NCCL with its peer-to-peer transport off ------------------------------
{
	my $g = GtDiag->new(settings => ['NCCL_P2P_DISABLE=1', 'NCCL_DEBUG=WARN']);

	for my $i (0 .. 199) {
		my $t = $i * 100 * $US;

		$g->launch(1, $t, 5 * $US);
		$g->kernel($t + 10 * $US, $t + 40 * $US);
		$g->nccl(1, $t + 6 * $US, 5 * $US);
		$g->kernel($t + 40 * $US, $t + 90 * $US,
			   name => 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
	}
	my $j = $g->analyze;
	my ($env) = grep { $_->{class} eq 'environment' } @{ $j->{verdict} };

	ok($env, 'NCCL_P2P_DISABLE with NCCL: an environment class') or return;
	ok(grep({ /NCCL_P2P_DISABLE set while NCCL ran/ } @{ $env->{evidence} }),
	   'NCCL_P2P_DISABLE: the evidence');
	is($env->{change}, 'unset NCCL_P2P_DISABLE', 'NCCL_P2P_DISABLE: the change');
}

# ---- CUDA_MODULE_LOADING=EAGER: a note ------------------------------------
{
	my $g = blocked(50 * $US, 30 * $US, 'CUDA_MODULE_LOADING=EAGER');
	my $j = $g->analyze;

	is(top($j), 'kernel_efficiency', 'EAGER: the verdict is the timeline\'s');
	ok(!grep({ $_->{class} eq 'environment' } @{ $j->{verdict} }),
	   'EAGER: not a bottleneck');
	like($g->report, qr/^  note: CUDA_MODULE_LOADING=EAGER loads every kernel/m,
	     'EAGER: a note in the environment section');
}

# ---- settings read, none set ------------------------------------------------
{
	my $g = blocked(50 * $US, 30 * $US);

	$g->{settings} = [];
	is_deeply($g->analyze->{env}{settings}, {}, 'none set: env.settings is {}');
	like($g->report, qr/^  settings: none of CUDA_\*/m, 'none set: the text says so');
}

# ---- a later item of the same name replaces the earlier; no "=": left out
{
	my $g = blocked(50 * $US, 30 * $US, 'NCCL_DEBUG=INFO', 'NCCL_DEBUG=WARN',
			'NO_EQUALS_SIGN');

	is_deeply($g->analyze->{env}{settings}, { NCCL_DEBUG => 'WARN' },
		  'one value per name, the last; an item without "=" left out');
}

done_testing();
