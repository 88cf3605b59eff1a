# SPDX-License-Identifier: MIT
#
# GtMore.pm - more chunks for synthetic dumps (GtDump.pm), as format.h
# lays them out: NCCL communicators, GPU records (kernels, copies), clock
# pairs, GPU timing windows, samples and NVTX domains; and a synthetic
# training job: one dump per rank, with known skew.
#
#   my $d = GtDump->new(...);
#   GtMore::comm($d, id => 1, rank => 0, nranks => 4, uid => 0xfeed);
#   GtMore::gpu_kernels($d, [{ host_id => ..., start => ..., end => ...,
#                             name => $d->string('_Z3fooi') }]);
#   GtMore::job(dir => $dir, ranks => 4, slow => 2, late_ns => 3e6);
package GtMore;

use strict;
use warnings;

use GtDump qw(:DEFAULT);

use constant {
	KIND_HOSTALLOC => 6, KIND_NCCL => 7, KIND_NVTX => 8, NCCL_NARGS => 7,
	CHUNK_GPU => 13, CHUNK_NVTX => 14, CHUNK_SAMPLE => 15,
	CHUNK_NCCL_COMM => 17, CHUNK_WINDOW => 18, CHUNK_CLOCK => 19,
	GPU_KERNEL => 1, GPU_MEMCPY => 2,
	NVTX_PUSH => 1, NVTX_POP => 2, NVTX_MARK => 5,
	SAMPLE_UTIL_GPU => 1, SAMPLE_CLOCK_SM => 3,
	MS => 1_000_000,
};

# struct gt_nccl_comm
sub comm {
	my ($d, %c) = @_;

	return $d->add_chunk(CHUNK_NCCL_COMM, pack('V V l< l< l< l< Q< Q< Q< Q< V V V V',
		$c{id}, 0, $c{rank} // -1, $c{nranks} // 0, $c{device} // -1, -1,
		$c{handle} // 0, $c{uid} // 0, $c{hash} // 0, $c{t} // 0,
		$c{version} // 0, 0, $c{how} // 1, 0));
}

# GT_CHUNK_GPU of kernels: [{host_id, start, end, name, stream, device, grid, block}]
sub gpu_kernels {
	my ($d, $recs) = @_;
	my $body = join('', map {
		pack('Q< Q< Q< Q< Q< V V V V l<3 l<3 V V', $_->{host_id} // 0,
		     $_->{start}, $_->{end}, 0, 0, $_->{corr} // 1,
		     $_->{stream} // 7, $_->{device} // 0, $_->{name} // 0,
		     @{ $_->{grid} // [1, 1, 1] }, @{ $_->{block} // [32, 1, 1] }, 0, 0)
	} @$recs);

	return $d->add_chunk(CHUNK_GPU, pack('V4', GPU_KERNEL, scalar(@$recs), 88, 0) . $body);
}

# GT_CHUNK_GPU of copies: [{host_id, start, end, bytes, kind}]
sub gpu_copies {
	my ($d, $recs) = @_;
	my $body = join('', map {
		pack('Q< Q< Q< Q< V V V C C C C', $_->{host_id} // 0, $_->{start},
		     $_->{end}, $_->{bytes} // 0, $_->{corr} // 1, $_->{stream} // 7,
		     $_->{device} // 0, $_->{kind} // 1, 1, 3, 0)
	} @$recs);

	return $d->add_chunk(CHUNK_GPU, pack('V4', GPU_MEMCPY, scalar(@$recs), 48, 0) . $body);
}

sub clock_pair {
	my ($d, $gpu, $host) = @_;

	return $d->add_chunk(CHUNK_CLOCK, pack('Q< Q< V V', $gpu, $host, 100, 0));
}

sub window {
	my ($d, $seq, $start, $end) = @_;

	return $d->add_chunk(CHUNK_WINDOW, pack('Q< Q< V V', $start, $end // 0, $seq, 0));
}

# A sample of scope (NVML index, or 0xffffffff the host): [[key, value], ...]
sub sample {
	my ($d, $t, $scope, $items) = @_;

	return $d->add_chunk(CHUNK_SAMPLE, pack('Q< V V', $t, $scope, scalar(@$items)) .
		join('', map { pack('v v V q<', $_->[0], 0, 0, $_->[1]) } @$items));
}

sub nvtx_domain {
	my ($d, $id, $name) = @_;

	return $d->add_chunk(CHUNK_NVTX, pack('V4', 1, $id, $d->string($name), 0));
}

# The ops of a training step: 1 launch, 2 sync, 3 copy HtoD, 4 allreduce.
sub train_ops {
	my ($d) = @_;

	$d->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel', flags => OPF_ASYNC);
	$d->op(op => 2, kind => KIND_SYNC, api => 'cuStreamSynchronize');
	$d->op(op => 3, kind => KIND_COPY, api => 'cuMemcpyHtoD', dir => DIR_HTOD);
	$d->op(op => 4, kind => KIND_NCCL, api => 'ncclAllReduce', flags => OPF_ASYNC,
	       nargs => NCCL_NARGS);
	$d->function(id => 1, name => '_Z4stepPf', handle => 0xf00);
	$d->shape(id => 1, function => 1, grid => [64, 1, 1], block => [256, 1, 1]);
}

# One rank's dump: $steps steps of 10 ms; each launches, (the slow rank:
# copies pageable memory for late_ns first), all-reduces, then waits
# until the all-reduce is done everywhere.  Times on this host's clock:
# shift is added to every time (another host's CLOCK_MONOTONIC).
sub rank_dump {
	my (%o) = @_;
	my ($r, $shift) = ($o{rank}, $o{shift} // 0);
	my $T = 1_000_000_000 + $shift;
	my $d = GtDump->new(pid => 100 + $r, start_ns => $T,
			    $o{realtime} ? (start_realtime_ns => $o{realtime}) : ());
	my $late = $r == $o{slow} ? $o{late_ns} : 0;
	my @ev;

	$d->process(pid => 100 + $r, host => $o{host} // 'node1', rank => $r,
		    exe => '/usr/bin/python3', argv => ['python3', 'train.py']);
	train_ops($d);
	comm($d, id => 1, rank => $r, nranks => $o{nranks}, uid => 0xfeed, t => $T);
	for my $k (0 .. $o{steps} - 1) {
		my $s = $T + 5 * MS + $k * 10 * MS;
		my $enter = $s + 1 * MS + $late;
		my $done = $s + 1 * MS + $o{late_ns} + 500_000;

		push @ev, { op => 1, t0 => $s, dur => 5000, args => [1] };
		push @ev, { op => 3, t0 => $s + 1 * MS, dur => $late,
			    args => [1 << 20, 0x1000, 0x2000, 0, 1, 0] } if $late;
		push @ev, { op => 4, t0 => $enter, dur => 20_000,
			    args => [1 << 20, 4 << 20, 1, 0, 8, 1, 0] };
		push @ev, { op => 2, t0 => $enter + 20_000, dur => $done - $enter - 20_000,
			    args => [0, 0] };
	}
	$d->events(tid => 1000 + $r, events => \@ev);
	$d->end(end_ns => $T + 10 * MS * ($o{steps} + 1));
	return $d;
}

# A job: ranks dumps in dir (hosts: ranks split evenly over them, the
# later hosts' clocks shifted by host_shift each); returns the paths.
sub job {
	my (%o) = @_;
	my $hosts = $o{hosts} // 1;
	my @paths;

	for my $r (0 .. $o{ranks} - 1) {
		my $h = int($r * $hosts / $o{ranks});
		my $d = rank_dump(%o, rank => $r, nranks => $o{ranks},
				  host => "node$h", shift => $h * ($o{host_shift} // 0),
				  realtime => $o{realtime} ? $o{realtime}->($h) : undef);

		push @paths, $d->write("$o{dir}/rank$r.bin");
	}
	return @paths;
}

# A small dump of one thread with GPU records (a kernel joined to its
# launch), NVTX ranges, samples and a GPU timing window from $T + 1 ms to
# $T + 100 ms; the GPU clock is gpu_ahead ahead of the host's.
sub gpu_dump {
	my ($path, $T, $gpu_ahead) = @_;
	my $d = GtDump->new(pid => 42, start_ns => $T, start_realtime_ns => 1);

	$d->process(pid => 42, host => 'n1', exe => '/bin/train', argv => ['train']);
	train_ops($d);
	$d->op(op => 5, kind => KIND_NVTX, api => 'nvtxRangePushA',
	       dir => NVTX_PUSH, nargs => 4);
	$d->op(op => 6, kind => KIND_NVTX, api => 'nvtxRangePop',
	       dir => NVTX_POP, nargs => 4);
	$d->op(op => 7, kind => KIND_NVTX, api => 'nvtxMarkA',
	       dir => NVTX_MARK, nargs => 4);
	my $msg = $d->string('train_step');
	my $mark = $d->string('checkpoint');
	my $kname = $d->string('_Z4stepPf');
	clock_pair($d, $T + $gpu_ahead, $T);
	window($d, 1, $T + 1 * MS);
	$d->events(tid => 11, buffer => 1, events => [
		{ op => 5, t0 => $T + 5 * MS, args => [$msg, 0, 0, 0] },
		{ op => 1, t0 => $T + 10 * MS, dur => 4000, stream => 1, args => [1] },
		{ op => 3, t0 => $T + 12 * MS, dur => 2 * MS, args => [4096, 1, 2, 0, 1, 0] },
		{ op => 2, t0 => $T + 20 * MS, dur => 3 * MS, args => [0, 0] },
		{ op => 7, t0 => $T + 40 * MS, args => [$mark, 0, 0, 0] },
		{ op => 6, t0 => $T + 50 * MS, args => [0, 0, 0, 0] },
	]);
	gpu_kernels($d, [{ host_id => (1 << 40) | 1, name => $kname,
		start => $T + $gpu_ahead + 10 * MS + 20_000,
		end => $T + $gpu_ahead + 11 * MS + 20_000, grid => [64, 1, 1],
		block => [256, 1, 1] }]);
	window($d, 1, $T + 1 * MS, $T + 100 * MS);
	$d->events(tid => 11, buffer => 1, first_seq => 6, events => [
		{ op => 1, t0 => $T + 200 * MS, dur => 4000, stream => 1, args => [1] },
	]);
	sample($d, $T + 30 * MS, 0, [[SAMPLE_UTIL_GPU, 42],
					      [SAMPLE_CLOCK_SM, 1980]]);
	sample($d, $T + 30 * MS, 0xffffffff, [[32, 0]]);
	sample($d, $T + 130 * MS, 0xffffffff, [[32, 150 * MS]]);
	$d->end(end_ns => $T + 300 * MS);
	return $d->write($path);
}

1;
