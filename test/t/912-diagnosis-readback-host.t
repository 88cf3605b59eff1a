#!/usr/bin/perl
# 912-diagnosis-readback-host.t - host work behind a readback is the
# readback's cost (synthetic dumps, GtDiag): each 5 ms step launches a
# 1 ms kernel, reads a value back (the host waits 0.92 ms in the copy)
# and then runs 3.98 ms of Python outside CUDA before the next launch.
# With the host samples in a user function there (bookkeeping), that
# time is a sync bubble after a readback, far past the wait's own length,
# and the verdict is communication & sync, naming the function; the same
# host work before the launches with no readback is not; host work there
# in the DataLoader's __next__ is data supply; with no host samples the
# timing alone decides (the readback's).
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
my $STEPS = 40;
my $SP = '/usr/lib/python3/dist-packages';

sub top { return $_[0]{verdict}[0]{class} // 'none' }

sub near {
	my ($got, $want, $tol, $name) = @_;

	ok(abs($got - $want) <= $tol, $name) or diag("got $got, want $want +- $tol");
}

# The stacks: the readback's line, the bookkeeping, the DataLoader.
sub stacks {
	my ($g) = @_;

	$g->stack(1, ['train.py', 'train_step', 41], ['train.py', 'main', 80]);
	$g->stack(2, ['train.py', 'bookkeeping', 60], ['train.py', 'main', 82]);
	$g->stack(3, ["$SP/torch/utils/data/dataloader.py", '_BaseDataLoaderIter.__next__', 630],
		  ['train.py', 'main', 78]);
	for (my $t = 0; $t <= $STEPS * 5 * $MS; $t += 10 * $MS) {
		$g->sample($t, proc => $t);     # the process on a CPU throughout
	}
	return $g;
}

# A readback each step, then host work in stack `host` (0: no samples).
sub readback_loop {
	my ($host) = @_;
	my $g = stacks(GtDiag->new);

	for my $s (0 .. $STEPS - 1) {
		my $b = $s * 5 * $MS;

		$g->launch(1, $b, 10 * $US);
		$g->kernel($b + 20 * $US, $b + 1020 * $US);
		$g->copy(1, $b + 100 * $US, 920 * $US, dir => 'dtoh', bytes => 4, stack => 1);
		$g->host_sample(1, $b + 2500 * $US, stack => $host) if $host;
	}
	return $g;
}

# ---- readback, then bookkeeping ---------------------------------------------
{
	my $g = readback_loop(2);
	my $j = $g->analyze;
	my $idle = GtDiag::idle_by_cause($j);
	my $span = $j->{diagnosis}{span_ns};
	my ($comm) = grep { $_->{class} eq 'communication' } @{ $j->{verdict} };

	is(top($j), 'communication', 'readback then bookkeeping: communication & sync')
		or diag(explain($idle));
	# each 5 ms: 1 ms busy, 4 ms idle after the readback returned
	near($idle->{sync} / $span, 4 / 5, 0.03, 'readback then bookkeeping: its idle time is sync');
	# the 10 us between a launch and its kernel's start only
	ok(($idle->{cpu_preprocessing} // 0) < 0.01 * $span,
	   'readback then bookkeeping: next to none of it CPU work')
		or diag(explain($idle));
	is($j->{diagnosis}{sync_kinds}{readback}, $idle->{sync}, 'readback then bookkeeping: a readback');
	like(join("\n", @{ $comm->{evidence} // [] }),
	     qr/host work behind a readback .*bookkeeping \(train\.py:60\) 100%/s,
	     'the evidence names the function sampled there')
		or diag(explain($comm));
	is($j->{diagnosis}{sync_sites}[0]{site}, 'train.py:41 in train_step',
	   'the bubble at the readback\'s line');
}

# ---- the same host work before the launches, no readback ---------------------
{
	my $g = stacks(GtDiag->new);

	for my $s (0 .. $STEPS - 1) {
		my $b = $s * 5 * $MS;

		$g->host_sample(1, $b + 2 * $MS, stack => 2);
		$g->launch(1, $b + 3980 * $US, 10 * $US);
		$g->kernel($b + 4000 * $US, $b + 5000 * $US);
	}
	my $j = $g->analyze;
	my $idle = GtDiag::idle_by_cause($j);

	isnt(top($j), 'communication', 'no readback: not communication');
	ok(!($idle->{sync} // 0), 'no readback: no sync') or diag(explain($idle));
	ok(($idle->{cpu_preprocessing} // 0) > 0.7 * $j->{diagnosis}{span_ns},
	   'no readback: the host work is CPU work') or diag(explain($idle));
}

# ---- readback, then the DataLoader's __next__ ---------------------------------
{
	my $j = readback_loop(3)->analyze;
	my $idle = GtDiag::idle_by_cause($j);
	my $span = $j->{diagnosis}{span_ns};

	is(top($j), 'data_supply', 'readback then the DataLoader: data supply');
	# the wait's own bubble only: 0.92 ms of each 5 ms
	near(($idle->{sync} // 0) / $span, 0.92 / 5, 0.02,
	     'readback then the DataLoader: a bubble of the wait\'s length only');
}

# ---- no host samples: the timing alone ---------------------------------------
{
	my $j = readback_loop(0)->analyze;
	my $idle = GtDiag::idle_by_cause($j);
	my ($comm) = grep { $_->{class} eq 'communication' } @{ $j->{verdict} };

	is(top($j), 'communication', 'no samples, readback then host work: communication');
	near($idle->{sync} / $j->{diagnosis}{span_ns}, 4 / 5, 0.03, 'no samples: its idle time is sync');
	like(join("\n", @{ $comm->{evidence} // [] }), qr/by the timing alone/,
	     'no samples: says the timing alone decided');
}

done_testing();
