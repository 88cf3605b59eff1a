# SPDX-License-Identifier: MIT
#
# GtRun.pm - run a test workload (build/test/w_*) under the tracer against
# the fake driver, then read what came out: exit status, stdout, stderr,
# the dump, the analyzer's JSON for it, and the fake driver's own call
# counts (FAKE_CUDA_COUNTS), which are the truth to compare with.
#
#   my $r = GtRun::run(['w_cudart', '--ptsz', 20], env => { RANK => 3 });
#   is($r->{exit}, 0);
#   my $k = GtRun::kernel($r->{json}, '_Z6vecAddPfS_S_i');
#
# run() options:
#   env     => { NAME => value }   added to a cleaned environment
#   trace   => 0                   no LD_PRELOAD (the fake alone)
#   output  => TEMPLATE | undef    GPUTRACE_OUTPUT; default DIR/t-%p.bin,
#                                  undef leaves it unset
#   cwd     => DIR                 where the workload runs (default DIR)
#   timeout => seconds             default 120
#   signal  => [NAME, seconds]     send it that long after the start
# The result: exit, signal, stdout, stderr, pid, dir, dumps (all *.bin in
# DIR and cwd), dump (the one dump, if exactly one), json (decoded, or
# undef), analyze_err, counts ({symbol => calls}) and fake_ns ({symbol =>
# ns spent inside}) from the fake, line ({path, events, dropped} from the
# "gputrace: wrote ..." stderr line).
package GtRun;

use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use JSON::PP;
use POSIX qw(WNOHANG);
use Test::More;

# The sizes the workloads use (test/fake/workload.h): change both together.
use constant {
	K_VECADD => '_Z6vecAddPfS_S_i',
	K_SCALE => '_Z5scalePfif',
	K_REDUCE => '_Z9reduceSumPfi',
	K_WORKER => '_Z6workerPfi',
	HTOD_BYTES => 4096, DTOH_BYTES => 8192, DTOD_BYTES => 2048,
	SET8_BYTES => 1000, SET32_BYTES => 1024, BYTES_2D => 4096,
	BATCH_BYTES => 600,
	SYNC_NS => 2_000_000, COPY_NS => 1_000_000,
};

# What the tracer is to trace: the fake's counts of these are the truth.
my @TRACED = qw(
	cuLaunchKernel cuLaunchKernel_ptsz cuLaunchKernelEx cuLaunchKernelEx_ptsz
	cuLaunchCooperativeKernel cuLaunchCooperativeKernel_ptsz
	cuGraphLaunch cuGraphLaunch_ptsz
	cuMemcpy cuMemcpy_ptds cuMemcpyAsync cuMemcpyAsync_ptsz
	cuMemcpyPeer cuMemcpyPeer_ptds cuMemcpyPeerAsync cuMemcpyPeerAsync_ptsz
	cuMemcpy2D_v2 cuMemcpy2D_v2_ptds
	cuMemcpy2DUnaligned_v2 cuMemcpy2DUnaligned_v2_ptds
	cuMemcpy2DAsync_v2 cuMemcpy2DAsync_v2_ptsz
	cuMemcpy3D_v2 cuMemcpy3D_v2_ptds cuMemcpy3DAsync_v2 cuMemcpy3DAsync_v2_ptsz
	cuMemcpy3DPeer cuMemcpy3DPeer_ptds cuMemcpy3DPeerAsync
	cuMemcpy3DPeerAsync_ptsz
	cuMemcpyBatchAsync cuMemcpyBatchAsync_ptsz
	cuMemcpyBatchAsync_v2 cuMemcpyBatchAsync_v2_ptsz
	cuCtxSynchronize cuCtxSynchronize_v2 cuStreamSynchronize
	cuStreamSynchronize_ptsz cuEventSynchronize cuStreamWaitEvent
	cuStreamWaitEvent_ptsz cuStreamQuery cuStreamQuery_ptsz cuEventQuery
	cuMemHostAlloc cuMemAllocHost_v2 cuMemHostRegister_v2 cuMemHostUnregister
	cuMemFreeHost
);
push @TRACED, map { ("cuMemcpy${_}_v2", "cuMemcpy${_}_v2_ptds") }
	qw(HtoD DtoH DtoD HtoA AtoH DtoA AtoD AtoA);
push @TRACED, map { ("cuMemcpy${_}_v2", "cuMemcpy${_}_v2_ptsz") }
	qw(HtoDAsync DtoHAsync DtoDAsync HtoAAsync AtoHAsync);
push @TRACED, map { ("cuMemset${_}_v2", "cuMemset${_}_v2_ptds",
		     "cuMemset${_}Async", "cuMemset${_}Async_ptsz") }
	qw(D8 D16 D32 D2D8 D2D16 D2D32);
my %TRACED = map { $_ => 1 } @TRACED;

sub traced_symbols { return @TRACED }

# The build folder: $GT_BUILD (make test sets it), else ./build.
sub build_dir {
	return $ENV{GT_BUILD} if $ENV{GT_BUILD};
	return abs_path(dirname(__FILE__) . '/../../build');
}

sub lib { return build_dir() . '/libgputrace.so' }
sub analyzer { return build_dir() . '/gputrace-analyze' }
sub fake_dir { return build_dir() . '/test/fake' }

sub workload {
	my ($name) = @_;

	return $name =~ m{/} ? $name : build_dir() . "/test/$name";
}

# Skip the whole file unless what it needs was built.
sub require_built {
	my (%need) = @_;
	my @missing = grep { !-e $_ } (fake_dir() . '/libcuda.so.1',
		$need{tracer} ? (lib(), analyzer()) : ());

	plan skip_all => "not built: @missing (run make test)" if @missing;
}

sub slurp {
	my ($path) = @_;
	open(my $fh, '<', $path) or return undef;
	local $/;
	my $s = <$fh>;
	close($fh);
	return $s;
}

# The environment a workload sees: ours, less anything that would change
# what the tracer or the fake does, plus opts{env}.
sub child_env {
	my ($r, %opt) = @_;
	my %env = %ENV;

	delete $env{$_} for grep {
		/^(GPUTRACE_|FAKE_CUDA_)/ ||
		/^(LD_PRELOAD|RANK|LOCAL_RANK|OMPI_COMM_WORLD_RANK|PMI_RANK|SLURM_PROCID)$/
	} keys %env;
	$env{LD_LIBRARY_PATH} = fake_dir();
	$env{FAKE_CUDA_COUNTS} = "$r->{dir}/fake-counts.txt";
	if ($opt{trace} // 1) {
		$env{LD_PRELOAD} = lib();
		my $out = exists $opt{output} ? $opt{output} : "$r->{dir}/t-%p.bin";
		$env{GPUTRACE_OUTPUT} = $out if defined $out;
	}
	my $extra = $opt{env} || {};
	# The host side alone unless a test asks for CUPTI (a real libcupti
	# on this machine must not change what host-side tests see).
	$env{GPUTRACE_GPU} = 'off' unless grep { /^GPUTRACE_(GPU|CUPTI)/ } keys %$extra;
	# No host stack samples unless a test asks for them (GPUTRACE_HOST_*):
	# they are events of their own, which tests that count a program's
	# calls exactly would meet wherever a loaded machine lets a thread
	# burn 10 ms outside its calls (test/t/415-* sample on purpose).
	$env{GPUTRACE_HOST_HZ} = 0 unless grep { /^GPUTRACE_HOST_/ } keys %$extra;
	for my $k (keys %$extra) {
		if (defined $extra->{$k}) {
			$env{$k} = $extra->{$k};
		} else {
			delete $env{$k};
		}
	}
	return \%env;
}

sub spawn {
	my ($r, $argv, $env) = @_;
	my $pid = fork();

	die "fork: $!" unless defined $pid;
	if ($pid == 0) {
		# A shell without job control, nohup or a CI runner may start
		# the suite with SIGINT and SIGQUIT ignored: the workloads
		# start as from a terminal, with them at the default.
		$SIG{$_} = 'DEFAULT' for qw(INT QUIT);
		%ENV = %$env;
		chdir($r->{cwd}) or POSIX::_exit(126);
		open(STDOUT, '>', "$r->{dir}/stdout") or POSIX::_exit(126);
		open(STDERR, '>', "$r->{dir}/stderr") or POSIX::_exit(126);
		exec { $argv->[0] } @$argv or POSIX::_exit(127);
	}
	return $pid;
}

sub wait_child {
	my ($pid, $timeout, $signal) = @_;
	my $start = time();
	my $deadline = $start + $timeout;

	while (time() < $deadline) {
		my $got = waitpid($pid, WNOHANG);
		return $? if $got == $pid;
		if ($signal && time() >= $start + $signal->[1]) {
			kill($signal->[0], $pid);
			$signal = undef;
		}
		select(undef, undef, undef, 0.02);
	}
	kill('KILL', $pid);
	waitpid($pid, 0);
	return -1;
}

# FAKE_CUDA_COUNTS lines are "symbol calls ns": ({sym => calls}, {sym => ns}).
sub read_counts {
	my ($path) = @_;
	my (%c, %ns);
	my $s = slurp($path) // return ({}, {});

	for (split /\n/, $s) {
		next unless /^(\S+) (\d+)(?: (\d+))?$/;
		$c{$1} = $2;
		$ns{$1} = $3 // 0;
	}
	return (\%c, \%ns);
}

# Run the analyzer on a dump; returns (decoded JSON or undef, error text).
sub analyze {
	my ($dump) = @_;
	my $out = qx{'${\ analyzer()}' --json '$dump' 2>&1};
	my $json;

	return (undef, "analyzer exit " . ($? >> 8) . ": $out") if $?;
	$json = eval { JSON::PP->new->decode($out) };
	return (undef, "bad JSON: $@\n$out") unless $json;
	return ($json, '');
}

sub run {
	my ($args, %opt) = @_;
	my $dir = tempdir('gt-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{GT_KEEP});
	my $r = { dir => $dir, cwd => $opt{cwd} // $dir };
	my @argv = (workload($args->[0]), @$args[1 .. $#$args]);
	my $status;

	$r->{env} = child_env($r, %opt);
	$r->{pid} = spawn($r, \@argv, $r->{env});
	$status = wait_child($r->{pid}, $opt{timeout} // 120, $opt{signal});
	$r->{timed_out} = $status == -1;
	$r->{exit} = $status == -1 ? -1 : $status >> 8;
	$r->{signal} = $status == -1 ? 0 : $status & 127;
	$r->{stdout} = slurp("$dir/stdout") // '';
	$r->{stderr} = slurp("$dir/stderr") // '';
	($r->{counts}, $r->{fake_ns}) = read_counts("$dir/fake-counts.txt");
	if ($r->{stderr} =~ /^gputrace: wrote (.+) \((\d+) events, (\d+) dropped\)$/m) {
		$r->{line} = { path => $1, events => $2, dropped => $3 };
	}
	my %seen;
	$r->{dumps} = [ grep { !$seen{$_}++ }
			glob("$dir/*.bin"), glob("$r->{cwd}/*.bin") ];
	$r->{dump} = $r->{dumps}[0] if @{$r->{dumps}} == 1;
	($r->{json}, $r->{analyze_err}) = analyze($r->{dump})
		if $r->{dump} && ($opt{trace} // 1);
	return $r;
}

# A one-line account of a run, for diag() when something failed.
# The launcher (build/gputrace) with args, not preloaded itself, the fake
# driver quick; the dumps it lists on stderr come from dump_lines.
sub run_launcher {
	my ($args, %opt) = @_;
	my %fast = (FAKE_CUDA_SYNC_NS => 1000, FAKE_CUDA_COPY_NS => 1000);

	return run([build_dir() . '/gputrace', @$args], trace => 0,
		   env => { %fast, %{ $opt{env} || {} } }, %opt);
}

sub dump_lines { return $_[0]{stderr} =~ /^gputrace: dump (.+)$/mg }

sub describe {
	my ($r) = @_;

	return sprintf("exit %d signal %d, the fake saw %d traced calls, " .
		       "dumps [%s] stderr:\n%s%s", $r->{exit}, $r->{signal},
		       traced_calls($r->{counts}), join(' ', @{$r->{dumps}}),
		       $r->{stderr}, $r->{analyze_err} ? "\n$r->{analyze_err}" : '');
}

# ---- reading the analyzer's JSON ------------------------------------------

sub rows { my ($j, $table) = @_; return @{($j && $j->{$table}) || []} }

sub kernel {
	my ($j, $symbol) = @_;
	my @k = grep { ($_->{symbol} // '') eq $symbol } rows($j, 'kernels');

	return @k == 1 ? $k[0] : undef;
}

# Sum the rows of a table that match; each filter value is a string or a
# list of accepted strings.  Returns {calls, bytes, ns, max, rows}.
sub total {
	my ($j, $table, %want) = @_;
	my $t = { calls => 0, bytes => 0, ns => 0, max => 0, rows => 0 };

	ROW: for my $row (rows($j, $table)) {
		for my $k (keys %want) {
			my $v = $row->{$k};
			$v = $v ? 'true' : 'false' if JSON::PP::is_bool($v);
			my @ok = ref $want{$k} ? @{$want{$k}} : ($want{$k});
			next ROW unless defined $v && grep { $_ eq $v } @ok;
		}
		$t->{rows}++;
		$t->{calls} += $row->{calls} // 0;
		$t->{bytes} += $row->{bytes} // 0;
		$t->{ns} += $row->{host_ns_total} // $row->{wait_ns_total} //
			    $row->{launch_ns_total} // 0;
		my $max = $row->{wait_ns_max} // 0;
		$t->{max} = $max if $max > $t->{max};
	}
	return $t;
}

sub copy {
	my ($j, $api, $dir, $async) = @_;

	return total($j, 'copies', api => $api, direction => $dir,
		     async => $async ? 'true' : 'false');
}

sub set {
	my ($j, $api, $async) = @_;

	return total($j, 'sets', api => $api, async => $async ? 'true' : 'false');
}

sub sync { my ($j, $api) = @_; return total($j, 'syncs', api => $api) }

# The driver name a symbol belongs to: cuMemcpyHtoD_v2_ptds -> cuMemcpyHtoD.
sub base_name {
	my ($sym) = @_;

	$sym =~ s/(?:_v\d+)?(?:_pt(?:sz|ds))?$//;
	return $sym;
}

# Wall time the fake spent inside the traced symbols of the given apis.
sub fake_ns {
	my ($r, @apis) = @_;
	my %want = map { $_ => 1 } @apis;
	my $ns = 0;

	for my $sym (keys %{$r->{fake_ns} || {}}) {
		$ns += $r->{fake_ns}{$sym}
			if $TRACED{$sym} && $want{base_name($sym)};
	}
	return $ns;
}

# Calls the fake saw of the traced symbols: what events + dropped must be.
sub traced_calls {
	my ($counts) = @_;
	my $n = 0;

	$n += $counts->{$_} for grep { $TRACED{$_} } keys %$counts;
	return $n;
}

# Sum of the calls in every table of the JSON.
sub json_calls {
	my ($j) = @_;
	my $n = 0;

	for my $t (qw(kernels graphs copies sets syncs)) {
		$n += $_->{calls} // 0 for rows($j, $t);
	}
	return $n;
}

# ---- expectations shared by tests -----------------------------------------

# What w_cudart/w_direct ITERS CTX_EVERY must show (see workload.h).
sub expect_main {
	my ($n, $every) = @_;

	return {
		kernels => { K_VECADD() => 2 * $n, K_SCALE() => $n,
			     K_REDUCE() => 1 },
		copies => [
			[ 'cuMemcpyHtoD', 'HtoD', 0, $n, $n * HTOD_BYTES ],
			[ 'cuMemcpyDtoHAsync', 'DtoH', 1, $n, $n * DTOH_BYTES ],
			[ 'cuMemcpyDtoD', 'DtoD', 0, $n, $n * DTOD_BYTES ],
			[ 'cuMemcpy2D', [qw(HtoD other)], 0, 1, BYTES_2D ],
			[ 'cuMemcpyBatchAsync', 'other', 1, 1, BATCH_BYTES ],
		],
		sets => [
			[ 'cuMemsetD8', 0, $n, $n * SET8_BYTES ],
			[ 'cuMemsetD32Async', 1, $n, $n * SET32_BYTES ],
		],
		syncs => {
			cuStreamSynchronize => $n,
			cuCtxSynchronize => int($n / $every) + 1,
			cuEventSynchronize => 1,
			cuStreamWaitEvent => 1,
			cuStreamQuery => 1,
			cuEventQuery => 1,
		},
		waits => [qw(cuStreamSynchronize cuCtxSynchronize
			     cuEventSynchronize)],
		graphs => 1,
	};
}

# Check a run of the main op sequence against expect_main.  $sync_ns and
# $copy_ns are the fake's settings for the run.
sub check_main {
	my ($r, $n, $every, $sync_ns, $copy_ns) = @_;
	my $j = $r->{json};
	my $e = expect_main($n, $every);

	is($r->{exit}, 0, 'workload exits 0') or diag(describe($r));
	ok($j, 'the analyzer read the dump') or return diag(describe($r));
	for my $sym (sort keys %{$e->{kernels}}) {
		my $k = kernel($j, $sym);
		ok($k, "kernel $sym is listed") or next;
		is($k->{calls}, $e->{kernels}{$sym}, "kernel $sym calls");
	}
	is(scalar(rows($j, 'kernels')), 3, 'no other kernels');
	for my $c (@{$e->{copies}}) {
		my ($api, $dir, $async, $calls, $bytes) = @$c;
		my $t = copy($j, $api, $dir, $async);
		my $d = ref $dir ? join('|', @$dir) : $dir;
		is($t->{calls}, $calls, "$api $d calls");
		is($t->{bytes}, $bytes, "$api $d bytes");
		next if $async;
		cmp_ok($t->{ns}, '>=', $calls * $copy_ns, "$api host time");
		cmp_ok($t->{ns}, '>=', fake_ns($r, $api),
		       "$api host time >= the fake's time");
	}
	for my $s (@{$e->{sets}}) {
		my ($api, $async, $calls, $bytes) = @$s;
		my $t = set($j, $api, $async);
		is($t->{calls}, $calls, "$api calls");
		is($t->{bytes}, $bytes, "$api bytes");
	}
	for my $api (sort keys %{$e->{syncs}}) {
		is(sync($j, $api)->{calls}, $e->{syncs}{$api}, "$api calls");
	}
	for my $api (@{$e->{waits}}) {
		check_wait($r, $api, $e->{syncs}{$api}, $sync_ns);
	}
	is(total($j, 'graphs')->{calls}, $e->{graphs}, 'graph launches');
	check_totals($r);
}

# wait_ns_total of a host sync: at least what the fake spent inside the
# calls (which is at least calls * ns), at most 30% above that.  The fake's
# own clock, not the nominal time, is the reference above: on a loaded
# machine a busy-wait takes longer than asked for, inside the tracer's
# measurement and the fake's alike.
sub check_wait {
	my ($r, $api, $calls, $ns) = @_;
	my $t = sync($r->{json}, $api);
	my $want = $calls * $ns;
	my $fake = fake_ns($r, $api);
	my $ref = $fake > $want ? $fake : $want;

	cmp_ok($fake, '>=', $want, "$api: the fake spent >= $want ns");
	cmp_ok($t->{ns}, '>=', $fake, "$api wait_ns_total >= the fake's time");
	cmp_ok($t->{ns}, '<=', $ref * 1.3 + 100_000,
	       "$api wait_ns_total within 30% of it");
	cmp_ok($t->{max}, '>=', $ns, "$api wait_ns_max >= $ns") if $calls;
}

# Events, drops, the stderr line and the fake's counts all agree.
sub check_totals {
	my ($r, %opt) = @_;
	my $j = $r->{json};
	my $truth = traced_calls($r->{counts});

	ok($truth > 0, "the fake saw $truth traced calls");
	is($j->{events} + $j->{dropped}, $truth,
	   'events + dropped = the traced calls the fake saw');
	is($j->{dropped}, 0, 'nothing dropped') unless $opt{drops};
	is(json_calls($j), $j->{events}, 'table calls add up to events');
	ok($r->{line}, 'stderr has the gputrace: wrote line')
		or diag($r->{stderr});
	if ($r->{line}) {
		is($r->{line}{path}, $r->{dump}, 'the line names the dump');
		is($r->{line}{events}, $j->{events}, 'the line gives the events');
		is($r->{line}{dropped}, $j->{dropped}, 'the line gives the drops');
	}
}

1;
