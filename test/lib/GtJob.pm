# SPDX-License-Identifier: MIT
#
# GtJob.pm - a synthetic data-parallel job with GPU records: one dump per
# rank (GtDiag).  Every step a rank launches its compute kernels, enters
# its all-reduces, and its GPU runs the compute, then the all-reduces'
# NCCL kernels, with no compute beside them, until every rank is in.
# What each rank does, and so what the job's verdict must say, is known:
#
#   my %o = (ranks => 4, steps => 30,
#            slow => 2, load_ns => 6e6,     # rank 2 loads each batch for 6 ms
#            compute_ns => 3e6,             # compute kernels per step
#            comm_ns => 1e6,                # the all-reduces, all ranks in
#            colls => 1, bytes => 4 << 20); # all-reduces per step, each's size
#   my @paths = GtJob::job(dir => $dir, %o);
#   my $t = GtJob::timing(%o);      # the job's step, and without the slow rank's load
#
# The slow rank loads its batch (host time outside CUDA), launches, enters
# its all-reduces and loads the next batch at once: it never waits, so its
# step is its load and launches, and its GPU idles the rest.  The other
# ranks wait for their all-reduces every step (a result read back) and
# start the next step when it returns: their NCCL kernels run from their
# compute's end until the slow rank's compute is done and comm_ns more.
# Without a slow rank every rank is one of the others.
package GtJob;

use strict;
use warnings;

use GtDiag;

use constant {
	US => 1000, LAUNCHES => 4, LAUNCH_NS => 5000, KERNEL_AT_NS => 50_000,
	COLL_AT_NS => 100_000, SPACING_NS => 10_000, COLL_NS => 10_000,
	WAKE_NS => 10_000, FIRST_NS => 1_000_000,
};

sub host_ns { my (%o) = @_; COLL_AT_NS + ($o{colls} // 1) * SPACING_NS }

# The job's step (ns; every rank's: they keep pace), and the step of the
# same job whose slow rank does not load (a fixed twin).
sub timing {
	my (%o) = @_;
	my $fast = KERNEL_AT_NS + $o{compute_ns} + $o{comm_ns} + WAKE_NS;
	my $slow = ($o{slow} // -1) >= 0 ? $o{load_ns} + host_ns(%o) : 0;

	return { step => $slow > $fast ? $slow : $fast, fast => $fast };
}

# A rank's launches, compute kernels and all-reduces from h (host) on;
# its NCCL kernels from its compute's end to done.
sub step_work {
	my ($g, $h, $done, %o) = @_;
	my $colls = $o{colls} // 1;
	my $k0 = $h + KERNEL_AT_NS;
	my $cend = $k0 + $o{compute_ns};

	for my $i (0 .. LAUNCHES - 1) {
		$g->launch(1, $h + $i * 20 * US, LAUNCH_NS, fn => 1 + $i);
		$g->kernel($k0 + $i * $o{compute_ns} / LAUNCHES,
			   $k0 + ($i + 1) * $o{compute_ns} / LAUNCHES);
	}
	for my $i (0 .. $colls - 1) {
		$g->nccl(1, $h + COLL_AT_NS + $i * SPACING_NS, COLL_NS, comm => 1,
			 bytes => $o{bytes}, async => 1);
		$g->kernel($cend + ($done - $cend) * $i / $colls,
			   $cend + ($done - $cend) * ($i + 1) / $colls,
			   name => 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
	}
	return $h + host_ns(%o);
}

# When each step's all-reduces are done, and when each rank starts it.
sub schedule {
	my (%o) = @_;
	my $slow = $o{slow} // -1;
	my $busy = KERNEL_AT_NS + $o{compute_ns} + $o{comm_ns};
	my (@done, @slow_at, @fast_at);
	my $f = FIRST_NS;

	for my $k (0 .. $o{steps} - 1) {
		if ($slow >= 0) {
			push @slow_at, FIRST_NS + $k * ($o{load_ns} + host_ns(%o));
			$f = $slow_at[-1] + $o{load_ns} if $k == 0;
			push @done, $slow_at[-1] + $o{load_ns} + $busy;
		} else {
			push @done, $f + $busy;
		}
		push @fast_at, $f;
		$f = $done[-1] + WAKE_NS;
	}
	return (\@done, \@slow_at, \@fast_at);
}

sub rank_dump {
	my ($r, $path, %o) = @_;
	my ($done, $slow_at, $fast_at) = schedule(%o);
	my $g = GtDiag->new(pid => 100 + $r, rank => $r, host => 'node0',
			    comm => { id => 1, rank => $r, nranks => $o{ranks},
				      uid => 0xfeed });

	for my $k (0 .. $o{steps} - 1) {
		if ($r == ($o{slow} // -1)) {
			step_work($g, $slow_at->[$k] + $o{load_ns}, $done->[$k], %o);
			next;
		}
		my $last = step_work($g, $fast_at->[$k], $done->[$k], %o);
		$g->sync(1, $last, $done->[$k] + WAKE_NS - $last);
	}
	return $g->dump_path($path);
}

# The dumps of the job in dir (rank$r.bin); returns their paths.
sub job {
	my (%o) = @_;

	return map { rank_dump($_, "$o{dir}/rank$_.bin", %o) } 0 .. $o{ranks} - 1;
}

1;
