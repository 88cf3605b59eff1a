# SPDX-License-Identifier: MIT
#
# GtSteps.pm - synthetic dumps of training steps and GPU windows alone
# (GT_CHUNK_STEPS, GT_CHUNK_WINDOW, GT_CHUNK_SWITCH), whose tracing cost
# is known, for the tests of the cost line.
#
#   my $path = GtSteps::dump("$dir/x.bin", [30, 10], [15, 11, 1], [55, 10]);
#
# Each run is [count, ms, in a window?]: count steps of ms each (or ms a
# list of each step's ms); a run in a window gets its window and
# switching span, which cover its steps and no other.  The word 'gap'
# between runs starts a new chunk whose boundaries' numbers jump (the
# library found a new step pattern).  A first argument { source => 2 }
# marks the steps as GPUTRACE_STEP's (an NVTX range): the diagnosis then
# takes them as its steps.  noisy() gives step times with a known spread,
# the same on every run.
package GtSteps;

use strict;
use warnings;

use GtDump;

use constant { MS => 1_000_000, CHUNK_WINDOW => 18, CHUNK_STEPS => 21,
	       CHUNK_SWITCH => 22, STEPS_PATTERN => 1, STEPS_NVTX => 2 };

# n step times of ms each, spread evenly within +-rel of it (a fixed
# sequence from seed: the same dump on every run).
sub noisy {
	my ($n, $ms, $rel, $seed) = @_;
	my $s = $seed // 1;
	my @v;

	for (1 .. $n) {
		$s = ($s * 1103515245 + 12345) % 2**31;
		push @v, $ms * (1 + $rel * (2 * $s / 2**31 - 1));
	}
	return @v;
}

sub window {
	my ($d, $seq, $lo, $hi) = @_;

	$d->add_chunk(CHUNK_WINDOW, pack('Q< Q< V V', $lo + 2 * MS, 0, $seq, 0));
	$d->add_chunk(CHUNK_WINDOW, pack('Q< Q< V V', $lo + 2 * MS, $hi - 2 * MS, $seq, 0));
	$d->add_chunk(CHUNK_SWITCH, pack('V V Q< Q< V V', $seq, 2, $lo + 0.1 * MS,
					 $hi - 0.1 * MS, 10, 0));
}

# One GT_CHUNK_STEPS of boundaries @b, the first numbered seq.
sub steps_chunk {
	my ($d, $source, $seq, @b) = @_;
	my $p = pack('V V Q< Q< V V', scalar @b, $source, $b[0], $seq, 5, 11);

	$p .= GtDump::varint(int($b[$_]) - int($b[$_ - 1])) for 1 .. $#b;
	$d->add_chunk(CHUNK_STEPS, $p);
}

sub dump {
	my ($path, @runs) = @_;
	my $opt = ref $runs[0] eq 'HASH' ? shift @runs : {};
	my $d = GtDump->new(pid => 7, start_ns => 1_000 * MS);
	my @b = (2_000 * MS);
	my ($seq, $win, @chunks) = (1, 0);

	for my $run (@runs) {
		if (!ref $run) {        # 'gap': a new pattern, 100 ms later
			push @chunks, [$seq, @b];
			$seq += @b + 5;
			@b = ($b[-1] + 100 * MS);
			next;
		}
		my ($n, $ms, $in) = @$run;
		my $from = $b[-1];

		push @b, $b[-1] + $_ * MS for ref $ms ? @$ms : ($ms) x $n;
		window($d, ++$win, $from, $b[-1]) if $in;
	}
	push @chunks, [$seq, @b];
	$d->process(host => 'h', exe => '/bin/train', argv => ['train']);
	steps_chunk($d, $opt->{source} // STEPS_PATTERN, @$_) for @chunks;
	$d->end(end_ns => $chunks[-1][-1] + MS);
	return $d->write($path);
}

1;
