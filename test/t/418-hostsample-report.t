#!/usr/bin/perl
# 418-hostsample-report.t - host stack samples in the analyzer's outputs.
#
# A process and its DataLoader worker written here (GtDump), whose answers
# follow from their design: 40 rounds of 10 ms (3 launches, a 1 ms wait,
# then the host outside CUDA); in the first 20 the process burns CPU, 3
# samples in burn_a and 5 in burn_b a round; in the last 20 its CPU time
# is low and its children's two cores, it waits (one waiting sample in
# DataLoader.__next__ a round, 10 ms after its previous one) while the
# worker samples decode 6 times and augment twice.  The worker samples
# decode during the first half too, which counts nowhere, and once names
# a stack its dump does not define.  The text report, --json, --html,
# --folded, --sqlite, --trace and --perfetto say so; the worker given in
# a folder or by name goes with its process, not as a rank.
#
# Then the fake driver and a C program that burns CPU between launches,
# 30% in burn_a and 70% in burn_b, or that waits on a forked worker that
# spends 75% in decode and 25% in augment: the report and --folded name
# each within 10 points of its share.  On a busy machine the kernel
# delivers a CPU-time timer's ticks late and merged for a thread that runs
# in short bursts (the worker: a tenth of the samples asked for, with two
# other busy processes on two cores), so the worker is sampled on the
# wall clock (GPUTRACE_HOST_CLOCK=wall), the burning process on the CPU
# clock with enough rounds for 200 samples or more there.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

use GtDump qw(:DEFAULT run_analyzer KIND_HOSTSAMPLE HOST_RUNNING HOST_WAITING);
use GtMore;
use GtPerfetto qw(decode);
use GtRun;

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();

use constant { T0 => 1_000_000_000, MS => 1_000_000, ROUNDS => 40, HALF => 20 };

my $dir = tempdir(CLEANUP => 1);

my %STACKS = (
	1 => [['DataLoader.__next__', '/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py', 630],
	      ['main', '/w/train.py', 50]],
	2 => [['burn_a', '/w/train.py', 11], ['main', '/w/train.py', 51]],
	3 => [['burn_b', '/w/train.py', 21], ['main', '/w/train.py', 52]],
	4 => [['decode', '/w/dataset.py', 5], ['__getitem__', '/w/dataset.py', 9]],
	5 => [['augment', '/w/dataset.py', 15], ['__getitem__', '/w/dataset.py', 9]],
);

sub prologue {
	my ($pid, $ppid) = @_;
	my $d = GtDump->new(pid => $pid, start_ns => T0 - MS);

	$d->process(pid => $pid, ppid => $ppid, host => 'node',
		    exe => '/usr/bin/python3', argv => ['python3', 'train.py']);
	$d->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel',
	       flags => OPF_ASYNC);
	$d->op(op => 2, kind => KIND_SYNC, api => 'cuStreamSynchronize');
	$d->op(op => 3, kind => KIND_HOSTSAMPLE, api => 'host sample');
	$d->stack(id => $_, python => $STACKS{$_}) for sort keys %STACKS;
	return $d;
}

sub sample {
	my ($t, $stack, $wait) = @_;

	return { op => 3, t0 => $t, dur => $wait ? 0 : MS,
		 args => [$stack, $wait ? HOST_WAITING : HOST_RUNNING, 1] };
}

sub round_events {
	my ($i) = @_;
	my $t = T0 + $i * 10 * MS;
	my @ev = map { { op => 1, t0 => $t + $_ * 10_000, dur => 5000, args => [0] } } 0 .. 2;

	push @ev, { op => 2, t0 => $t + 100_000, dur => MS, args => [0x50, 0] };
	if ($i < HALF) {
		push @ev, sample($t + 2.5 * MS + $_ * MS, $_ < 3 ? 2 : 3) for 0 .. 7;
	} else {
		push @ev, sample($t + 9.5 * MS, 1, 1);
	}
	return \@ev;
}

# With gpu: GPU records too (one clock), each round's kernels running
# from its launches until its wait returns, the GPU idle after.
sub family {
	my ($to, $gpu) = @_;
	my $m = prologue(100, 1);
	my ($proc, $child, @ev) = (0, 0);

	mkdir($to);
	$m->note(1, "host sampler: 100 Hz of each thread's CPU time (SIGPROF), "
		 . '8 native frames; python frames: read directly');
	GtMore::clock_pair($m, T0 - 2 * MS, T0 - 2 * MS) if $gpu;
	GtMore::window($m, 1, T0 - MS) if $gpu;
	for my $i (0 .. ROUNDS - 1) {
		my $t = T0 + $i * 10 * MS;
		$m->cpu_sample(t => $t + 50_000, proc => $proc, child => $child);
		$proc += $i < HALF ? 9 * MS : MS;
		$child += $i < HALF ? 0 : 20 * MS;
		$m->events(tid => 100, base_ns => T0, events => round_events($i));
		GtMore::gpu_kernels($m, [{ start => $t + 20_000, end => $t + 1.1 * MS }])
			if $gpu;
	}
	GtMore::window($m, 1, T0 - MS, T0 + ROUNDS * 10 * MS) if $gpu;
	$m->note(1, 'host sampler: of 180 samples, 0 have no stack');
	$m->end(end_ns => T0 + ROUNDS * 10 * MS + MS);
	$m->write("$to/main.bin");
	my $w = prologue(101, 100);
	for my $i (0 .. ROUNDS - 1) {
		my $t = T0 + $i * 10 * MS;
		push @ev, sample($t + 2.5 * MS + $_ * MS,
				 $_ < 6 || $i < HALF ? 4 : 5) for 0 .. 7;
	}
	push @ev, sample(T0 + ROUNDS * 10 * MS, 99);
	$w->events(tid => 101, base_ns => T0, events => \@ev);
	$w->end(end_ns => T0 + ROUNDS * 10 * MS + MS);
	$w->write("$to/worker.bin");
	return $to;
}

# Rows of a cause's function table in the text report: {name => [self,
# total, samples]}.
sub text_rows {
	my ($text, $cause) = @_;
	my ($part) = $text =~ /^  \Q$cause\E: (.*?)(?=^  outside CUDA|^\S|\z)/ms;
	my %rows;

	for (split /\n/, $part // '') {
		$rows{$1} = [$2, $3, $4] if /^  (\S.*?\)) +([\d.]+)% +([\d.]+)% +(\d+)$/;
	}
	return \%rows;
}

# The lines of a --folded file: [[frames...], count].
sub folded {
	my ($file) = @_;
	my @lines;

	for (split /\n/, GtDump::slurp($file)) {
		return undef unless /^(\S.*) (\d+)$/;
		push @lines, [[split /;/, $1], $2];
	}
	return \@lines;
}

sub near {
	my ($got, $want, $what) = @_;

	ok(defined $got && abs($got - $want) <= 1e-6, "$what: $want")
		or diag('got ' . ($got // 'none'));
}

my $fam = family("$dir/fam");

subtest 'text report: each cause\'s functions' => sub {
	my $r = run_analyzer($fam);
	my $cpu = text_rows($r->{out}, 'outside CUDA: CPU-bound in this process');
	my $wait = text_rows($r->{out}, 'outside CUDA: waiting on worker processes');

	is($r->{exit}, 0, 'exit 0') or diag($r->{err});
	unlike($r->{out}, qr/^Ranks/m, 'one process with its worker, not ranks');
	like($r->{out}, qr/^What the host ran outside CUDA \(host samples: 100 Hz of each thread's CPU time;/m,
	     'the section, with the rate the sampler\'s first note gives');
	like($r->{out}, qr/inside a CUDA\s+call: no\s+sample/, 'says what it cannot see');
	like($r->{out}, qr/^  180 samples in the process, 321 in 1 DataLoader worker;/m,
	     'the samples counted');
	is_deeply($cpu->{'burn_b (train.py:21)'}, ['62.5', '62.5', 95], 'burn_b: 5 of 8')
		or diag($r->{out});
	is($cpu->{'burn_a (train.py:11)'}[0], '37.5', 'burn_a: 3 of 8');
	is_deeply([ @{ $cpu->{'main (train.py:52)'} }[0, 1] ], ['0.0', '100.0'],
		  'main: in every stack, never the innermost, named by its line run most');
	is($wait->{'DataLoader.__next__ (dataloader.py:630)'}[0], '55.6',
	   'waiting: the process, 10 ms of every 18');
	is($wait->{'decode (dataset.py:5)'}[0], '33.3', 'decode in the worker: 6 of 18');
	is($wait->{'augment (dataset.py:15)'}[0], '11.1', 'augment: 2 of 18');
	is($wait->{'__getitem__ (dataset.py:9)'}[1], '44.4', '__getitem__ total: 8 of 18');
	like($r->{out}, qr/^  outside CUDA: waiting on worker processes: \d+ samples, \d+ of them in the workers/m,
	     'the workers\' samples counted');
	my $alone = run_analyzer("$fam/main.bin");
	like($alone->{out}, qr/the workers' dumps were not given/,
	     'the process alone: says where the workers are');
	my $both = run_analyzer("$fam/worker.bin", "$fam/main.bin");
	is($both->{out}, $r->{out}, 'given by name, in any order: the same');
};

subtest '--json: host_samples' => sub {
	my $r = run_analyzer('--json', $fam);
	my $j = eval { JSON::PP->new->decode($r->{out}) } // {};
	my $h = $j->{host_samples};
	my %c = map { $_->{cause} => $_ } @{ $h->{causes} // [] };
	my %f = map { $_->{name} => $_ } @{ $c{cpu_preprocessing}{functions} // [] };

	is($r->{exit}, 0, 'exit 0');
	is($h->{samples}, 180, 'the process\'s samples');
	is($h->{hz}, 100, 'the rate');
	like($h->{note}, qr/^host sampler: 100 Hz/, 'the note on how they were taken');
	is($h->{workers}, 1, 'one worker');
	is($h->{worker_samples}, 321, 'its samples');
	is($h->{incall_ticks}, 180, 'ticks inside CUDA calls');
	is($h->{basis}, 'host_outside_cuda', 'no GPU records: the host\'s time');
	is_deeply([sort keys %c], [qw(cpu_preprocessing dataloader_wait io_wait outside_cuda)],
		  'the four causes outside CUDA, always');
	near($f{'burn_b (train.py:21)'}{self_share}, 0.625, 'burn_b self share');
	is($f{'burn_b (train.py:21)'}{self_ns} * 8, $c{cpu_preprocessing}{sampled_ns} * 5,
	   'self_ns of sampled_ns');
	is($c{dataloader_wait}{waiting_samples},
	   $c{dataloader_wait}{samples} - $c{dataloader_wait}{worker_samples},
	   'the process waited in its samples of that cause');
	is($c{io_wait}{samples}, 0, 'no I/O');
	my $none = run_analyzer('--json', 'examples/sample-pytorch.bin');
	ok(-e 'examples/sample-pytorch.bin' ? $none->{out} =~ /"host_samples": null/ : 1,
	   'a dump without samples: null');
};

subtest 'with GPU records: the GPU\'s idle time outside CUDA' => sub {
	my $r = run_analyzer('--json', family("$dir/gpu", 1));
	my $j = eval { JSON::PP->new->decode($r->{out}) } // {};
	my %c = map { $_->{cause} => $_ } @{ $j->{host_samples}{causes} // [] };
	my %cpu = map { $_->{name} => $_ } @{ $c{cpu_preprocessing}{functions} // [] };
	my %wait = map { $_->{name} => $_ } @{ $c{dataloader_wait}{functions} // [] };
	my %idle = map { $_->{cause} => $_->{ns} } @{ $j->{idle} // [] };

	is($r->{exit}, 0, 'exit 0') or diag($r->{err});
	is($j->{host_samples}{basis}, 'gpu_idle', 'samples in the GPU\'s idle time');
	ok($idle{cpu_preprocessing} && $idle{dataloader_wait}, 'which has both causes')
		or diag(explain($j->{idle}));
	is($c{cpu_preprocessing}{cause_ns}, $idle{cpu_preprocessing}, 'their times');
	near($cpu{'burn_b (train.py:21)'}{self_share}, 0.625, 'burn_b self share');
	near($wait{'decode (dataset.py:5)'}{self_share}, 6 / 18, 'decode self share');
	is($c{cpu_preprocessing}{samples} % 8, 0, 'whole rounds');
	ok($c{cpu_preprocessing}{samples} >= 8 * 5, 'of the steady state');
};

subtest '--folded: collapsed stacks' => sub {
	my $r = run_analyzer('--folded', "$dir/out.folded", $fam);
	my $lines = folded("$dir/out.folded");
	my (%by_leaf, $total, %roots);

	is($r->{exit}, 0, 'exit 0') or diag($r->{err});
	ok($lines && @$lines, 'every line: frames, a space, a count') or return;
	for (@$lines) {
		my ($f, $n) = @$_;
		$by_leaf{ $f->[-1] } += $n;
		$roots{ join(';', @$f[0 .. ($f->[1] =~ /^DataLoader worker/ ? 1 : 0)]) } += $n;
		$total += $n;
	}
	is($total, 180 + 321, 'every sample once');
	is_deeply(\%roots, { 'python3 (pid 100)' => 180,
			     'python3 (pid 100);DataLoader worker (pid 101)' => 321 },
		  'rooted at the process, the worker under it');
	is($by_leaf{'burn_a (train.py:11)'}, 60, 'burn_a: 3 a round of 20');
	is($by_leaf{'decode (dataset.py:5)'}, 280, 'decode: 8 a round, then 6');
	is($by_leaf{'<stack 99 is not in the dump>'}, 1, 'a stack not in the dump, said');
	my ($l) = grep { $_->[0][-1] eq 'burn_b (train.py:21)' } @$lines;
	is_deeply($l->[0], ['python3 (pid 100)', 'main (train.py:52)', 'burn_b (train.py:21)'],
		  'root first, leaf last');
	my $none = run_analyzer('--folded', "$dir/none.folded", 'test/fuzz/seeds/chunk-launch.bin');
	is($none->{exit}, 2, 'no samples: exit 2');
	like($none->{err}, qr/no host samples/, 'and says so');
	ok(!-e "$dir/none.folded", 'and writes nothing');
};

subtest '--html, --sqlite, --trace' => sub {
	my $r = run_analyzer('--html', "$dir/out.html", $fam);
	my $html = GtDump::slurp("$dir/out.html");

	is($r->{exit}, 0, '--html: exit 0');
	like($html, qr/id="host-samples"/, 'a section of host samples');
	like($html, qr/<td>burn_b \(train.py:21\)<\/td><td class="n">62.5%/,
	     'with each cause\'s functions');
	$r = run_analyzer('--trace', "$dir/out.json", $fam);
	my $t = eval { JSON::PP->new->decode(GtDump::slurp("$dir/out.json")) } // {};
	my @s = grep { ($_->{cat} // '') eq 'host_sample' } @{ $t->{traceEvents} // [] };
	is(scalar(@s), 180 + 321, '--trace: an instant per sample');
	my ($b) = grep { $_->{name} eq 'burn_b (train.py:21)' } @s;
	is($b->{args}{stack}, 'main (train.py:52);burn_b (train.py:21)', 'its stack');
	is($b->{tid}, 100, 'on its thread');
	SKIP: {
		skip 'sqlite3 not installed', 2
			if system('sh', '-c', 'command -v sqlite3 >/dev/null') != 0;
		$r = run_analyzer('--sqlite', "$dir/out.db", $fam);
		skip 'built without SQLite', 2 if $r->{err} =~ /without SQLite/;
		my $q = `sqlite3 '$dir/out.db' "SELECT dump, count(*), sum(state = 'waiting') FROM host_samples GROUP BY dump"`;
		is($q, "0|180|20\n1|321|0\n", '--sqlite: host_samples of both dumps');
		$q = `sqlite3 '$dir/out.db' "SELECT f.func, count(*) FROM host_samples h JOIN stack_frames f ON f.dump = h.dump AND f.stack = h.stack AND f.depth = 0 WHERE h.dump = 0 GROUP BY 1 ORDER BY 1"`;
		is($q, "DataLoader.__next__|20\nburn_a|60\nburn_b|100\n", 'their stacks\' frames');
	}
};

subtest '--perfetto: stack samples on their threads' => sub {
	my $r = run_analyzer('--perfetto', "$dir/out.pftrace", $fam);

	plan skip_all => 'built without the Perfetto export'
		if $r->{err} =~ /built without the Perfetto export/;
	plan skip_all => 'protoc not installed'
		if system('sh', '-c', 'command -v protoc >/dev/null') != 0;
	is($r->{exit}, 0, 'exit 0');
	my (%func, %frame, %stack, %leaf, %tid);
	for my $p (@{ decode("$dir/out.pftrace") }) {
		my $in = $p->{interned_data} ? $p->{interned_data}[0] : {};
		$func{ $_->{iid}[0] } = $_->{str}[0] for @{ $in->{function_names} // [] };
		$frame{ $_->{iid}[0] } = $_->{function_name_id}[0] for @{ $in->{frames} // [] };
		$stack{ $_->{iid}[0] } = $_->{frame_ids} for @{ $in->{callstacks} // [] };
		next unless $p->{perf_sample};
		my $s = $p->{perf_sample}[0];
		my $ids = $stack{ $s->{callstack_iid}[0] } // [];
		$leaf{ $func{ $frame{ $ids->[-1] // 0 } // 0 } // '?' }++;
		$tid{ "$s->{pid}[0]/$s->{tid}[0]" }++;
	}
	is_deeply(\%tid, { '100/100' => 180, '101/101' => 321 },
		  'a PerfSample per sample, on its process and thread');
	is($leaf{'burn_b (train.py:21)'}, 100, 'callstacks interned, leaf last');
	is($leaf{'augment (dataset.py:15)'}, 40, 'the worker\'s too');
};

subtest 'bad input: no crash' => sub {
	my $d = prologue(7, 1);
	$d->events(tid => 7, base_ns => T0, events => [
		{ op => 3, t0 => T0, dur => MS, args => [42, 1, 0] },
		{ op => 3, t0 => T0 + MS, dur => MS, args => [0, 9, 0] },
		{ op => 3, t0 => T0 + 2 * MS, dur => ~0, args => [2**40, 2, 2**40] },
		{ op => 1, t0 => T0 + 3 * MS, dur => 5000, args => [0] }]);
	my $bytes = $d->bytes;
	GtDump->new->write("$dir/odd.bin", $bytes);
	for my $args (['--json'], [], ['--folded', "$dir/odd.folded"]) {
		my $r = run_analyzer(@$args, "$dir/odd.bin");
		is($r->{exit}, 0, "@$args: a sample naming no stack, or one not defined, "
		   . 'an unknown state, huge values: exit 0');
		is($r->{signal}, 0, 'no crash');
	}
	like(GtDump::slurp("$dir/odd.folded"), qr/<stack 42 is not in the dump> 1\n/,
	     'the stack not defined, said');
	GtDump->new->write("$dir/cut.bin", substr($bytes, 0, length($bytes) - 7));
	my $r = run_analyzer("$dir/cut.bin");
	is($r->{exit}, 0, 'cut inside its samples: what came before');
	like($r->{err}, qr/ends early/, 'and says it ends early');
	$d = prologue(7, 1);
	$d->raw(GtDump::chunk(11, pack('V v v', 5, 1000, 0)));
	$d->write("$dir/bad.bin");
	$r = run_analyzer("$dir/bad.bin");
	is($r->{exit}, 2, 'a stack longer than its chunk: exit 2');
	is($r->{signal}, 0, 'no crash');
};

# ---- the fake driver and a program that burns CPU ---------------------------

SKIP: {
	my $w = GtRun::workload('w_hostburn');
	skip 'the tracer or w_hostburn not built (make test)', 2
		unless -x $w && -e GtRun::lib() && -e GtRun::fake_dir() . '/libcuda.so.1';
	my %env = (FAKE_CUDA_SYNC_NS => 1000, GPUTRACE_HOST_HZ => 1000);

	subtest 'burn_a 30%, burn_b 70% between launches' => sub {
		my $r = GtRun::run(['w_hostburn', 'burn', 300, 3, 7], env => \%env);
		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		my $a = run_analyzer($r->{dump} // '');
		my $cpu = text_rows($a->{out}, 'outside CUDA: CPU-bound in this process');
		my ($sa) = map { $cpu->{$_}[0] } grep { /^burn_a / } keys %$cpu;
		my ($sb) = map { $cpu->{$_}[0] } grep { /^burn_b / } keys %$cpu;
		ok(defined $sa && abs($sa - 30) <= 10, "report: burn_a within 10 points of 30%")
			or diag($a->{out});
		ok(defined $sb && abs($sb - 70) <= 10, "report: burn_b within 10 points of 70%");
		run_analyzer('--folded', "$dir/burn.folded", $r->{dump} // '');
		my $lines = folded("$dir/burn.folded") // [];
		my %n;
		for (@$lines) {
			my ($fn) = grep { /^burn_[ab] / } @{ $_->[0] };
			$n{ substr($fn, 0, 6) } += $_->[1] if $fn;
		}
		my $all = ($n{burn_a} // 0) + ($n{burn_b} // 0);
		ok($all && abs(100 * $n{burn_a} / $all - 30) <= 10,
		   '--folded: burn_a within 10 points of 30% of the burning samples')
			or diag(explain(\%n));
		# the sampler's own time, measured in its handler at every sample
		my $j = eval { JSON::PP->new->decode(run_analyzer('--json', $r->{dump} // '')->{out}) } // {};
		my $c = $j->{host_sampler_cost} // {};
		ok(($c->{samples} // 0) > 0 && ($c->{measured} // -1) == $c->{samples},
		   'every sample measured its handler\'s time') or diag(explain($c));
		ok(($c->{handler_mean_ns} // 0) > 0, 'the handler\'s mean time is above 0');
		like($a->{out}, qr/host sampler: \d+ samples, .* each in its handler/,
		     'the cost lines say it');
	};

	subtest 'a DataLoader worker: decode 75%, augment 25%' => sub {
		my $r = GtRun::run(['w_hostburn', 'worker', 150, 6, 2],
				   env => { %env, GPUTRACE_HOST_CLOCK => 'wall' });
		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		is(scalar(@{ $r->{dumps} }), 2, 'two dumps: the process, its worker');
		my $a = run_analyzer($r->{dir});
		like($a->{out}, qr/in 1 DataLoader worker/, 'the worker read with its process');
		$a = run_analyzer('--json', $r->{dir});
		my $j = eval { JSON::PP->new->decode($a->{out}) } // {};
		my ($c) = grep { $_->{cause} eq 'dataloader_wait' } @{ $j->{host_samples}{causes} // [] };
		my %f;
		for (@{ $c->{functions} // [] }) {
			$f{$1} = $_->{self_ns} if $_->{name} =~ /^(decode|augment) /;
		}
		my $all = ($f{decode} // 0) + ($f{augment} // 0);
		my $sd = $all ? 100 * $f{decode} / $all : undef;
		ok(defined $sd && abs($sd - 75) <= 10,
		   'decode within 10 points of 75% of the worker\'s functions')
			or diag(explain($c));
		ok(defined $sd && abs((100 - $sd) - 25) <= 10, 'augment within 10 points of 25%');
		my ($pid) = $r->{stdout} =~ /^worker pid=(\d+)$/m;
		run_analyzer('--folded', "$dir/worker.folded", $r->{dir});
		my $lines = folded("$dir/worker.folded") // [];
		ok((grep { ($_->[0][1] // '') eq "DataLoader worker (pid $pid)" } @$lines),
		   '--folded: the worker\'s samples under its process');
	};
}

done_testing();
