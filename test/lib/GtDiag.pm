# SPDX-License-Identifier: MIT
#
# GtDiag.pm - synthetic dumps for the diagnosis tests: host events of
# several threads, GPU records (kernels, copies, graphs), windows, clock
# pairs, call stacks with Python frames, environment and CPU samples, all
# on one timeline in nanoseconds, written through GtDump so that the
# right answers (idle time by cause, steps, the verdict) are known.
#
#   my $g = GtDiag->new(sm => 132, cores => 16,
#                       settings => ['CUDA_LAUNCH_BLOCKING=1']);
#   $g->launch(1, 1000, 5000);                  # tid, t0, dur (fn => 1)
#   $g->kernel(7000, 9000, grid => [1024]);     # start, end on the GPU
#   $g->sync(1, 10000, 50000, stack => 1);
#   $g->stack(1, ['train.py', 'train_step', 57]);
#   $g->native(1, 0x7000_1000);                 # its return addresses
#   $g->module('/x/site-packages/torch/lib/libtorch_cuda.so', 0x7000_0000, 1 << 20);
#   $g->sample(0, proc => 0, child => 0);       # cumulative CPU ns
#   my $j = $g->analyze;                        # the --json output, decoded
#
# One rank of a job: pid, host, rank and its communicator (GtMore::comm's
# fields), its NCCL calls on it; written where told:
#
#   my $g = GtDiag->new(pid => 101, rank => 1,
#                       comm => { id => 1, rank => 1, nranks => 4, uid => 0xfeed });
#   $g->nccl(1, $t0, 20_000, comm => 1, bytes => 4 << 20);
#   $g->dump_path("$dir/rank1.bin");
#
# Times are host clock; the clock pair maps the GPU clock one to one.
package GtDiag;

use strict;
use warnings;
use File::Temp qw(tempdir);
use JSON::PP;

use GtDump qw(:DEFAULT run_analyzer KIND_HOSTSAMPLE HOST_RUNNING HOST_WAITING);
use GtMore;

use constant {
	KIND_HOSTALLOC => 6, KIND_NCCL => 7, KIND_NVTX => 8,
	CHUNK_STACK => 11, CHUNK_MODULES => 12, CHUNK_GPU => 13, CHUNK_SAMPLE => 15,
	CHUNK_ENV => 16, CHUNK_WINDOW => 18, CHUNK_CLOCK => 19, CHUNK_STEPS => 21,
	GPU_KERNEL => 1, GPU_MEMCPY => 2, GPU_GRAPH => 5, GPU_STATE => 6,
	SCOPE_HOST => 0xffffffff, SCOPE_CUDA => 0x40000000,
	MEM_PAGEABLE => 1, MEM_PINNED => 2, COPYF_STAGED => 16,
	# op ids
	OP_LAUNCH => 1, OP_HTOD_ASYNC => 2, OP_DTOH_ASYNC => 3, OP_SYNC => 4,
	OP_NCCL => 5, OP_PUSH => 6, OP_POP => 7, OP_HTOD => 8, OP_GRAPH => 9,
	OP_QUERY => 10, OP_EVENT_SYNC => 11, OP_NCCL_ASYNC => 12, OP_HOSTSAMPLE => 13,
};

my $dir = tempdir(CLEANUP => 1);
my $serial = 0;

sub new {
	my ($class, %o) = @_;

	return bless { sm => $o{sm} // 132, cores => $o{cores} // 16,
		       affinity => $o{affinity}, gpu_mem => $o{gpu_mem} // (80 << 30),
		       events => {}, kernels => [], copies => [], graphs => [],
		       samples => [], stacks => {}, fns => { 1 => 1 },
		       window => $o{window}, no_gpu => $o{no_gpu},
		       grids => $o{grids} // {},      # fn => [x, y, z]
		       cupti => $o{cupti} // 1,
		       join => $o{join},              # kernels name their launches
		       nvml => $o{nvml},              # NVML device 0's facts:
						      # [[key, value, text]...]

		       settings => $o{settings},      # ["NAME=value"...]
		       exe => $o{exe} // '/usr/bin/python3',
		       argv => $o{argv} // ['python3', 'train.py'],
		       modules => [], natives => {},
		       pid => $o{pid} // 42, host => $o{host} // 'node1',
		       rank => $o{rank}, comm => $o{comm} }, $class;
}

sub ev {
	my ($self, $tid, $e) = @_;

	push @{ $self->{events}{$tid} }, $e;
	return $self;
}

# A host stack sample of thread tid at t (the sampler's tick): stack =>
# its stack id (stack()), 1 ms of CPU time; waiting => 1: a thread found
# waiting (the wall clock's).
sub host_sample {
	my ($self, $tid, $t, %o) = @_;

	return $self->ev($tid, { op => OP_HOSTSAMPLE, t0 => $t,
				 dur => $o{waiting} ? 0 : 1000 * 1000,
				 args => [$o{stack} // 0, $o{waiting} ? HOST_WAITING : HOST_RUNNING, 1] });
}

# Host calls: tid, t0, dur, options.
sub launch {
	my ($self, $tid, $t0, $dur, %o) = @_;
	my $fn = $o{fn} // 1;

	$self->{fns}{$fn} = 1;
	return $self->ev($tid, { op => OP_LAUNCH, t0 => $t0, dur => $dur, args => [$fn] });
}

sub graph_launch {
	my ($self, $tid, $t0, $dur) = @_;

	return $self->ev($tid, { op => OP_GRAPH, t0 => $t0, dur => $dur, args => [0xabc0] });
}

sub sync {
	my ($self, $tid, $t0, $dur, %o) = @_;

	return $self->ev($tid, { op => OP_SYNC, t0 => $t0, dur => $dur,
				 args => [0, $o{stack} // 0] });
}

sub query {
	my ($self, $tid, $t0, $dur) = @_;

	return $self->ev($tid, { op => OP_QUERY, t0 => $t0, dur => $dur, args => [0, 0] });
}

# A copy: htod (async unless sync => 1), dtoh; memory => pageable|pinned.
sub copy {
	my ($self, $tid, $t0, $dur, %o) = @_;
	my $op = $o{dir} eq 'dtoh' ? OP_DTOH_ASYNC : $o{sync} ? OP_HTOD : OP_HTOD_ASYNC;
	my $mem = ($o{memory} // 'pageable') eq 'pinned' ? MEM_PINNED : MEM_PAGEABLE;

	$mem |= COPYF_STAGED if $mem == MEM_PAGEABLE && !$o{sync};
	return $self->ev($tid, { op => $op, t0 => $t0, dur => $dur,
				 args => [$o{bytes} // 4096, 0x1000, 0x2000, 1, $mem,
					  $o{stack} // 0] });
}

# An ncclAllReduce; options: bytes, comm (its communicator's id), async
# (enqueued, as NCCL does: the call of a rank's collective).
sub nccl {
	my ($self, $tid, $t0, $dur, %o) = @_;
	my $bytes = $o{bytes} // 4096;

	return $self->ev($tid, { op => $o{async} ? OP_NCCL_ASYNC : OP_NCCL,
				 t0 => $t0, dur => $dur,
				 args => [$bytes / 4, $bytes, $o{comm} // 0, 0, 8, 1, 0] });
}

sub push_range {
	my ($self, $tid, $t0, $name) = @_;

	$self->{names}{$name} = 1;
	return $self->ev($tid, { op => OP_PUSH, t0 => $t0, name => $name });
}

sub pop_range {
	my ($self, $tid, $t0) = @_;

	return $self->ev($tid, { op => OP_POP, t0 => $t0 });
}

# GPU records: start, end (host clock), options (a copy's host_id: its
# call's id, buffer << 40 | its place in the buffer, joins it).
# 20 steps of 1 ms: three launches, a stream sync of 675 us at
# train.py:57 (stack 1), three kernels of 690 us in all.
sub sync_steps {
	my ($self) = @_;
	my $us = 1000;

	$self->stack(1, ['train.py', 'train_step', 57], ['train.py', 'main', 80]);
	for my $s (0 .. 19) {
		my $b = $s * 1000 * $us;

		$self->launch(1, $b, 5 * $us, fn => 1);
		$self->launch(1, $b + 10 * $us, 5 * $us, fn => 2);
		$self->launch(1, $b + 20 * $us, 5 * $us, fn => 3);
		$self->sync(1, $b + 30 * $us, 675 * $us, stack => 1);
		$self->kernel($b + 10 * $us, $b + 300 * $us);
		$self->kernel($b + 300 * $us, $b + 500 * $us);
		$self->kernel($b + 500 * $us, $b + 700 * $us);
	}
	return $self;
}

sub kernel {
	my ($self, $s, $e, %o) = @_;

	push @{ $self->{kernels} }, { start => $s, end => $e, %o };
	return $self;
}

sub gpu_copy {
	my ($self, $s, $e, %o) = @_;

	push @{ $self->{copies} }, { start => $s, end => $e, %o };
	return $self;
}

# A call stack: id, then Python frames [file, function, line], innermost first.
sub stack {
	my ($self, $id, @frames) = @_;

	$self->{stacks}{$id} = \@frames;
	return $self;
}

# A host sample: t, proc (CPU ns of this process, cumulative), child,
# iowait, total (the machine's), children.
# 10 steps of 50 ms: 45 ms of host work outside CUDA, then 5 launches and
# a 4 ms kernel; CPU samples every 10 ms with the process using `proc`
# cores, its `children` child processes `child` cores.
sub loader_steps {
	my ($self, %o) = @_;
	my ($us, $ms) = (1000, 1000 * 1000);

	for my $s (0 .. 9) {
		my $b = $s * 50 * $ms;
		$self->launch(1, $b + 45 * $ms + $_ * 20 * $us, 10 * $us) for 0 .. 4;
		$self->kernel($b + 45 * $ms + 20 * $us, $b + 49 * $ms);
	}
	for my $i (0 .. 50) {
		my $t = $i * 10 * $ms;
		$self->sample($t, proc => $t * ($o{proc} // 1), child => $t * ($o{child} // 0),
			      children => $o{children} // 0);
	}
	return $self;
}

# Native return addresses of stack id, innermost first.
sub native {
	my ($self, $id, @pcs) = @_;

	$self->{natives}{$id} = \@pcs;
	return $self;
}

# An object loaded in the process: path, its lowest address, its size.
sub module {
	my ($self, $path, $start, $size) = @_;

	push @{ $self->{modules} }, [$path, $start, $size];
	return $self;
}

sub sample {
	my ($self, $t, %o) = @_;

	push @{ $self->{samples} }, { t => $t, %o };
	return $self;
}

# An NVML sample of device 0: t, util (%), reasons (clock reason bits),
# other (another process's pid), other_mem, self_mem (bytes).
sub gpu_sample {
	my ($self, $t, %o) = @_;

	push @{ $self->{gpu_samples} }, { t => $t, %o };
	return $self;
}

sub info_chunk {
	my ($t, $scope, @items) = @_;
	my $p = pack('Q< V V', $t, $scope, scalar @items);

	for my $i (@items) {
		my $text = $i->[2] // '';
		$p .= pack('v v V q<', $i->[0], 0, length($text), $i->[1]) . $text;
	}
	return $p;
}

sub write_ops {
	my ($self, $d) = @_;
	my @ops = (
		[OP_LAUNCH, KIND_LAUNCH, 0, 1, 'cuLaunchKernel', 2],
		[OP_HTOD_ASYNC, KIND_COPY, DIR_HTOD, 1, 'cuMemcpyHtoDAsync', 6],
		[OP_DTOH_ASYNC, KIND_COPY, DIR_DTOH, 1, 'cuMemcpyDtoHAsync', 6],
		[OP_SYNC, KIND_SYNC, 0, 0, 'cuStreamSynchronize', 2],
		[OP_NCCL, KIND_NCCL, 0, 0, 'ncclAllReduce', 7],
		[OP_PUSH, KIND_NVTX, 1, 0, 'nvtxRangePushA', 4],
		[OP_POP, KIND_NVTX, 2, 0, 'nvtxRangePop', 4],
		[OP_HTOD, KIND_COPY, DIR_HTOD, 0, 'cuMemcpyHtoD', 6],
		[OP_GRAPH, KIND_GRAPH, 0, 1, 'cuGraphLaunch', 1],
		[OP_QUERY, KIND_SYNC, 0, 0, 'cuStreamQuery', 2],
		[OP_EVENT_SYNC, KIND_SYNC, 0, 0, 'cuEventSynchronize', 2],
		[OP_NCCL_ASYNC, KIND_NCCL, 0, 1, 'ncclAllReduce', 7],
		[OP_HOSTSAMPLE, KIND_HOSTSAMPLE, 0, 0, 'host sample', 3],
	);
	$d->op(op => $_->[0], kind => $_->[1], dir => $_->[2], flags => $_->[3],
	       api => $_->[4], nargs => $_->[5]) for @ops;
	for my $fn (sort { $a <=> $b } keys %{ $self->{fns} }) {
		$d->function(id => $fn, name => "_Z7kernel${fn}v", handle => 0x100 + $fn);
		$d->shape(id => $fn, function => $fn,
			  grid => $self->{grids}{$fn} // [1024, 1, 1]);
	}
}

sub write_env {
	my ($self, $d) = @_;
	my @host = ([6, $self->{cores}]);

	push @host, [7, $self->{affinity}, "0-" . ($self->{affinity} - 1)]
		if $self->{affinity};
	push @host, [12, scalar @{ $self->{settings} }], map { [13, 0, $_] }
		@{ $self->{settings} } if $self->{settings};
	$d->add_chunk(CHUNK_ENV, info_chunk(0, SCOPE_HOST, @host));
	$d->add_chunk(CHUNK_ENV, info_chunk(0, SCOPE_CUDA, [37, $self->{sm}],
					     [35, $self->{gpu_mem}], [32, 0, 'H200']));
	$d->add_chunk(CHUNK_ENV, info_chunk(0, 0, @{ $self->{nvml} })) if $self->{nvml};
}

sub write_stacks {
	my ($self, $d) = @_;

	my @m = @{ $self->{modules} };

	$d->add_chunk(CHUNK_MODULES, pack('V V', scalar @m, 0) .
		      join('', map { pack('Q< Q< Q< V C a3 a32', $_->[1], $_->[1], $_->[2],
					  $d->string($_->[0]), 0, '', '') } @m)) if @m;
	for my $id (sort { $a <=> $b } keys %{ $self->{stacks} }) {
		my @f = @{ $self->{stacks}{$id} };
		my @pc = @{ $self->{natives}{$id} // [] };
		my $p = pack('V v v', $id, scalar @pc, scalar @f) . pack('Q<*', @pc);

		$p .= pack('V V V V', $d->string($_->[0]), $d->string($_->[1]), $_->[2], 0)
			for @f;
		$d->add_chunk(CHUNK_STACK, $p);
	}
}

sub write_events {
	my ($self, $d) = @_;

	for my $tid (sort { $a <=> $b } keys %{ $self->{events} }) {
		my @ev = sort { $a->{t0} <=> $b->{t0} } @{ $self->{events}{$tid} };

		for my $e (@ev) {
			next unless $e->{op} == OP_PUSH || $e->{op} == OP_POP;
			$e->{args} = [$e->{name} ? $d->string($e->{name}) : 0, 0, 0, 0];
			$e->{result} = 0;
		}
		$d->events(tid => $tid, buffer => $tid, events => \@ev);
	}
}

sub kernel_rec {
	my ($k) = @_;
	my @grid = (@{ $k->{grid} // [1024] }, 1, 1);

	return pack('Q< Q< Q< Q< Q< V V V V l< l< l< l< l< l< V V', $k->{host_id} // 0,
		    $k->{start},
		    $k->{end}, 0, $k->{submitted} // 0, 0, 7, $k->{device} // 0,
		    $k->{name_str} // 0, @grid[0 .. 2], 256, 1, 1, 0, 0);
}

# With join: the n-th kernel (by start) ran the n-th launch of thread 1;
# an event's id is its buffer (the thread) << 40 | its place in it.
sub join_launches {
	my ($self) = @_;
	my @ev = sort { $a->{t0} <=> $b->{t0} } @{ $self->{events}{1} // [] };
	my @ids = map { $ev[$_]{op} == OP_LAUNCH ? (1 << 40 | $_) : () } 0 .. $#ev;
	my @k = sort { $a->{start} <=> $b->{start} } @{ $self->{kernels} };

	$k[$_]{host_id} = $ids[$_] for 0 .. ($#k < $#ids ? $#k : $#ids);
}

sub write_gpu {
	my ($self, $d) = @_;
	my @k = @{ $self->{kernels} };
	my @c = @{ $self->{copies} };

	return if $self->{no_gpu};
	$self->join_launches if $self->{join};
	$d->add_chunk(CHUNK_CLOCK, pack('Q< Q< V V', 1000, 1000, 10, 0));
	$d->add_chunk(CHUNK_WINDOW, pack('Q< Q< V V', @{ $self->{window} }, 1, 0))
		if $self->{window};
	$d->add_chunk(CHUNK_GPU, pack('V4', GPU_STATE, 1, 32, 0) .
		      pack('V8', $self->{cupti}, 2, 0, 0, 0, 0, 0, 0));
	for my $k (@k) {
		$k->{name_str} = $d->string($k->{name}) if $k->{name};
	}
	$d->add_chunk(CHUNK_GPU, pack('V4', GPU_KERNEL, scalar @k, 88, 0) .
		      join('', map { kernel_rec($_) } @k)) if @k;
	$d->add_chunk(CHUNK_GPU, pack('V4', GPU_MEMCPY, scalar @c, 48, 0) .
		      join('', map { pack('Q< Q< Q< Q< V V V C C C C', $_->{host_id} // 0,
					  $_->{start},
					  $_->{end}, $_->{bytes} // (1 << 20), 0, 7, 0,
					  1, $_->{src} // 1, 3, 0) } @c)) if @c;
}

sub write_samples {
	my ($self, $d) = @_;

	for my $s (@{ $self->{samples} }) {
		my @items = ([32, $s->{proc} // 0], [33, 0], [34, $s->{child} // 0],
			     [35, 0], [36, $s->{children} // 0],
			     [37, $s->{total} // $s->{t} * $self->{cores}],
			     [38, $s->{iowait} // 0]);
		$d->add_chunk(CHUNK_SAMPLE, info_chunk($s->{t}, SCOPE_HOST, @items));
	}
	for my $s (@{ $self->{gpu_samples} // [] }) {
		my @items = ([1, $s->{util} // 100], [5, $s->{reasons} // 0],
			     [11, $s->{self_mem} // (1 << 30)]);

		push @items, [9, $s->{other}], [10, $s->{other_mem} // (1 << 30)]
			if $s->{other};
		$d->add_chunk(CHUNK_SAMPLE, info_chunk($s->{t}, 0, @items));
	}
}

# Step boundaries the library wrote (GT_CHUNK_STEPS): source 1 the launch
# pattern, 2 GPUTRACE_STEP=nvtx:NAME, 3 GPUTRACE_STEP=kernel:TEXT.
sub library_steps {
	my ($self, $source, @b) = @_;

	return $self->library_steps_of($source, 0, @b);
}

# The same with the GPU calls a step held (the header's period).
sub library_steps_of {
	my ($self, $source, $period, @b) = @_;
	my $p = pack('V V Q< Q< V V', scalar @b, $source, $b[0], 1, $period, 1);

	$p .= GtDump::varint($b[$_] - $b[$_ - 1]) for 1 .. $#b;
	$self->{steps_chunk} = $p;
	return $self;
}

# Written to path, or a file of its own in a temporary folder.
sub dump_path {
	my ($self, $path) = @_;
	my $d = GtDump->new(pid => $self->{pid}, start_ns => 0);
	my $last = 0;

	$d->process(host => $self->{host}, rank => $self->{rank},
		    exe => $self->{exe}, argv => $self->{argv});
	GtMore::comm($d, %{ $self->{comm} }) if $self->{comm};
	$self->write_ops($d);
	$self->write_env($d);
	$self->write_stacks($d);
	$self->write_events($d);
	$self->write_gpu($d);
	$self->write_samples($d);
	$d->add_chunk(CHUNK_STEPS, $self->{steps_chunk}) if $self->{steps_chunk};
	for my $l (values %{ $self->{events} }) {
		$last = $_->{t0} + ($_->{dur} // 0) > $last ? $_->{t0} + ($_->{dur} // 0) : $last
			for @$l;
	}
	$d->end(end_ns => $last + 1000);
	return $d->write($path // sprintf('%s/diag-%d.gtd', $dir, ++$serial));
}

# The analyzer's JSON for this dump (dies with its message on failure).
sub analyze {
	my ($self, @opt) = @_;
	my $path = $self->dump_path;
	my $r = run_analyzer('--json', @opt, $path);

	die "analyzer failed ($r->{exit}): $r->{err}" if $r->{exit} || $r->{signal};
	return decode_json($r->{out});
}

# The text report.
sub report {
	my ($self) = @_;
	my $r = run_analyzer($self->dump_path);

	die "analyzer failed ($r->{exit}): $r->{err}" if $r->{exit} || $r->{signal};
	return $r->{out};
}

# Sum of the idle causes, by name, of a JSON report.
sub idle_by_cause {
	my ($j) = @_;

	return { map { ($_->{cause} => $_->{ns}) } @{ $j->{idle} } };
}

1;
