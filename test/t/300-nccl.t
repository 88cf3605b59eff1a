#!/usr/bin/perl
# 300-nccl.t - NCCL under the tracer, against the fake libnccl.so.2
# (w_nccl): every call's count and bytes, roots, peers, datatypes and
# reductions, the communicators (rank, size, device, how made, name,
# parent), the profiler plugin's GPU times, algorithms and bandwidths for
# each plugin version the fake can drive, and the plugin turned off.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);
plan skip_all => 'fake NCCL not built (make test)'
	unless -e GtRun::build_dir() . '/test/w_nccl';

my $N = 4;                      # rounds (w_nccl ITERS)
my $G = 50_000;                 # FAKE_NCCL_GPU_NS: one channel's kernel
my $CALL_NS = 200_000;          # FAKE_NCCL_CALL_NS: host time of each call
my $COLL_GPU = $G + 100;        # two channels, the second 100 ns later
my $dir = tempdir(CLEANUP => 1);

# op => [calls, bytes] the tracer must show (w_nccl.c's sizes).
my %host = (
	ncclAllReduce => [$N + 1, $N * 1000 * 4 + 16 * 4],
	ncclBroadcast => [$N, $N * 256 * 4],
	ncclBcast => [1, 77 * 4],
	ncclReduce => [$N, $N * 100 * 8],
	ncclAllGather => [$N, $N * 300 * 2],
	ncclReduceScatter => [$N, $N * 50 * 8],
	ncclSend => [2 * $N, $N * (64 + 10 * 2)],
	ncclRecv => [$N, $N * 96],
	ncclGroupStart => [$N, 0],
	ncclGroupEnd => [$N, 0],
	ncclAlltoAll => [1, 80],
	ncclGather => [1, 32],
	ncclScatter => [1, 32],
	ncclCommInitRank => [1, 0],
	ncclCommInitRankConfig => [1, 0],
	ncclCommSplit => [1, 0],
	ncclCommInitAll => [1, 0],
	ncclCommDestroy => [4, 0],
	ncclCommAbort => [1, 0],
);

# op => [plugin records, GPU ns, algorithm bytes, bus bytes] for v4+.
my %gpu = (
	ncclAllReduce => [$N + 1, ($N + 1) * $COLL_GPU, 4000 * $N + 64,
			  4000 * $N * 1.5 + 64],
	ncclBroadcast => [$N + 1, ($N + 1) * $COLL_GPU, 1024 * $N + 308,
			  1024 * $N + 308],
	ncclReduce => [$N, $N * $COLL_GPU, 800 * $N, 800 * $N],
	ncclAllGather => [$N, $N * $COLL_GPU, 2400 * $N, 1800 * $N],
	ncclReduceScatter => [$N, $N * $COLL_GPU, 800 * $N, 400 * $N],
	ncclSend => [2 * $N, 2 * $N * $G, 84 * $N, 84 * $N],
	ncclRecv => [$N, $N * $G, 96 * $N, 96 * $N],
	ncclAlltoAll => [1, $COLL_GPU, 320, 240],
	ncclGather => [1, $COLL_GPU, 128, 96],
	ncclScatter => [1, $COLL_GPU, 128, 96],
);

sub nccl_run {
	my (%env) = @_;
	my $counts = "$dir/nccl-counts-" . int(rand(1e9)) . '.txt';
	my $r = GtRun::run(['w_nccl', $N], env => {
		FAKE_NCCL_COUNTS => $counts, FAKE_NCCL_GPU_NS => $G,
		FAKE_NCCL_CALL_NS => $CALL_NS, NCCL_PROFILER_PLUGIN => undef,
		%env });

	($r->{nccl_counts}) = GtRun::read_counts($counts);
	return $r;
}

sub op_row {
	my ($j, $op) = @_;
	my @r = grep { $_->{op} eq $op } @{$j->{nccl} || []};

	return @r == 1 ? $r[0] : undef;
}

sub close_to {
	my ($got, $want, $name) = @_;

	ok(defined $got && abs($got - $want) <= 1e-4 * $want + 1e-9, $name)
		or diag('got ' . ($got // 'null') . ", want $want");
}

# Host side: what every call recorded, checked against the fake's counts.
sub check_host {
	my ($r) = @_;
	my $j = $r->{json};
	my $c = $r->{nccl_counts};

	for my $op (sort keys %host) {
		my $row = op_row($j, $op);
		ok($row, "$op row") or next;
		is($row->{calls}, $host{$op}[0], "$op calls");
		is($row->{bytes}, $host{$op}[1], "$op bytes");
	}
	# the fake counts ncclBroadcast inside ncclBcast too: nested, not traced
	is($c->{ncclBroadcast} - $c->{ncclBcast}, $host{ncclBroadcast}[0],
	   'ncclBroadcast inside ncclBcast is not counted twice');
	for my $op (qw(ncclAllReduce ncclReduce ncclSend ncclCommInitRank)) {
		is(op_row($j, $op)->{calls}, $c->{$op}, "$op: the fake's count");
	}
	cmp_ok(op_row($j, 'ncclAllReduce')->{host_ns_total}, '>=',
	       $host{ncclAllReduce}[0] * $CALL_NS, 'ncclAllReduce host time');
	cmp_ok(op_row($j, 'ncclGroupEnd')->{host_ns_total}, '>=', $N * $CALL_NS,
	       'ncclGroupEnd host time');
	is(op_row($j, 'ncclGroupEnd')->{count_total}, 3 * $N,
	   'ncclGroupEnd: the calls its groups held');
	is(GtRun::sync($j, 'cuStreamQuery')->{calls}, 8 * $N + 5,
	   "driver calls made inside NCCL's calls are recorded");
	is(GtRun::json_calls($j) + sum_calls($j), $j->{events},
	   'every event is in a table');
	is($j->{nccl_version}, '2.28.9', 'NCCL version');
}

sub sum_calls {
	my ($j) = @_;
	my $n = 0;

	$n += $_->{calls} for @{$j->{nccl} || []};
	return $n;
}

sub comm_by {
	my ($j, $how, $rank) = @_;
	my @c = grep { $_->{made_by} eq $how &&
		       (!defined $rank || ($_->{rank} // -1) == $rank) }
		@{$j->{nccl_comms} || []};

	return @c == 1 ? $c[0] : undef;
}

sub check_comms {
	my ($r, $plugin) = @_;
	my $j = $r->{json};
	my $w = comm_by($j, 'ncclCommInitRank');
	my $g = comm_by($j, 'ncclCommInitRankConfig');
	my $s = comm_by($j, 'ncclCommSplit');

	ok($w && $g && $s, 'three communicators') or
		return diag(explain($j->{nccl_comms}));
	like($r->{stdout}, qr/truth comm=world rank=1 nranks=4 device=1/, 'truth');
	is_deeply([@$w{qw(rank nranks device)}], [1, 4, 1], 'world: rank 1 of 4, device 1');
	is_deeply([@$g{qw(rank nranks device name)}], [0, 2, 0, 'grads'],
		  'grads: rank 0 of 2, named');
	is_deeply([@$s{qw(rank nranks parent color)}], [1, 2, $w->{id}, 3],
		  'split: rank 1 of 2, parent and color');
	ok($w->{uid_hash} && $g->{uid_hash} && $w->{uid_hash} ne $g->{uid_hash},
	   'unique id hashes');
	is($w->{calls}, 5 * $N + 3, 'world: collective calls');
	is($w->{bytes}, 5784 * $N + 144, 'world: bytes');
	is($g->{calls}, 2 * $N + 1, 'grads: calls');
	is($s->{calls}, $N, 'split: calls');
	my @all = grep { $_->{made_by} eq 'ncclCommInitAll' } @{$j->{nccl_comms}};
	is_deeply([sort map { "$_->{rank}/$_->{nranks}/$_->{device}" } @all],
		  ['0/2/0', '1/2/1'], 'ncclCommInitAll: two communicators');
	my @pl = grep { $_->{made_by} eq 'plugin' } @{$j->{nccl_comms}};
	if ($plugin) {
		is($w->{plugin_version}, $plugin, "world served by plugin v$plugin");
		is(scalar(@pl), 2, "ncclCommInitAll's two, known to the plugin only");
		ok($w->{nccl_hash}, "NCCL's commHash") if $plugin >= 4;
	} else {
		is($w->{plugin_version}, undef, 'no plugin');
		is(scalar(@pl), 0, 'no plugin communicators');
	}
}

sub detail {
	my ($j, %want) = @_;
	my @d = grep { my $x = $_; !grep { ($x->{$_} // 'null') ne $want{$_} } keys %want }
		@{$j->{nccl_calls} || []};

	return @d == 1 ? $d[0] : undef;
}

sub check_details {
	my ($r) = @_;
	my $j = $r->{json};
	my $w = comm_by($j, 'ncclCommInitRank') or return;
	my $g = comm_by($j, 'ncclCommInitRankConfig') or return;
	my @want = (
		[ { op => 'ncclSend', comm => $w->{id}, peer => 0, datatype => 'ncclUint8' },
		  $N, 64 * $N ],
		[ { op => 'ncclRecv', comm => $w->{id}, peer => 2, datatype => 'ncclUint8' },
		  $N, 96 * $N ],
		[ { op => 'ncclSend', comm => $g->{id}, peer => 1, datatype => 'ncclBfloat16' },
		  $N, 20 * $N ],
		[ { op => 'ncclBroadcast', comm => $w->{id}, peer => 2, redop => 'null' },
		  $N, 1024 * $N ],
		[ { op => 'ncclReduce', comm => $g->{id}, peer => 1, redop => 'max',
		    datatype => 'ncclFloat64' }, $N, 800 * $N ],
		[ { op => 'ncclReduceScatter', redop => 'prod', peer => 'null' }, $N, 400 * $N ],
		[ { op => 'ncclAllReduce', comm => $w->{id}, redop => 'sum', peer => 'null',
		    datatype => 'ncclFloat32' }, $N, 4000 * $N ],
		[ { op => 'ncclGather', peer => 3 }, 1, 32 ],
		[ { op => 'ncclBcast', peer => 0, comm => $g->{id} }, 1, 308 ],
	);
	for my $w (@want) {
		my ($key, $calls, $bytes) = @$w;
		my $name = join(' ', map { "$_=$key->{$_}" } sort keys %$key);
		my $d = detail($j, %$key);
		ok($d, "calls of $name") or next;
		is_deeply([$d->{calls}, $d->{bytes}], [$calls, $bytes], "$name: calls, bytes");
	}
}

sub check_gpu {
	my ($r, $timed) = @_;
	my $j = $r->{json};

	for my $op (sort keys %gpu) {
		my ($n, $ns, $alg, $bus) = @{$gpu{$op}};
		my $row = op_row($j, $op);
		ok($row, "$op row") or next;
		is($row->{plugin_calls}, $n, "$op: plugin records");
		is($row->{algorithm}, 'Ring/Simple', "$op: algorithm")
			unless $op =~ /Send|Recv/;
		if (!$timed) {
			is($row->{gpu_ns_total}, undef, "$op: no GPU time from this version");
			next;
		}
		is($row->{gpu_calls}, $n, "$op: GPU-timed");
		is($row->{gpu_ns_total}, $ns, "$op: GPU time");
		close_to($row->{alg_gbps}, $alg / $ns, "$op: algorithm bandwidth");
		close_to($row->{bus_gbps}, $bus / $ns, "$op: bus bandwidth");
	}
	is(op_row($j, 'ncclBcast')->{plugin_calls}, 0,
	   'ncclBcast is a Broadcast to the plugin');
}

subtest 'plugin v5 (NCCL 2.28), the default' => sub {
	my $r = nccl_run();

	is($r->{exit}, 0, 'exits 0') or return diag(GtRun::describe($r));
	ok($r->{json}, 'analyzed') or return diag(GtRun::describe($r));
	is($r->{json}{dropped}, 0, 'nothing dropped');
	check_host($r);
	check_comms($r, 5);
	check_details($r);
	check_gpu($r, 1);
	my $text = qx{'${\ GtRun::analyzer()}' '$r->{dump}'};
	like($text, qr/^NCCL 2\.28\.9 /m, 'text report: NCCL section');
	like($text, qr/^\s+ncclAllReduce\s+5\s/m, 'text report: AllReduce row');
	like($text, qr/Ring\/Simple/, 'text report: algorithm');
	like($text, qr/^NCCL communicators/m, 'text report: communicators');
};

for my $v (6, 4) {
	subtest "plugin v$v" => sub {
		my $r = nccl_run(FAKE_NCCL_PROFILER_MAX => $v);

		ok($r->{json}, 'analyzed') or return diag(GtRun::describe($r));
		check_comms($r, $v);
		check_gpu($r, 1);
	};
}

for my $v (3, 2) {
	subtest "plugin v$v: enqueue times, no GPU times" => sub {
		my $r = nccl_run(FAKE_NCCL_PROFILER_MAX => $v);

		ok($r->{json}, 'analyzed') or return diag(GtRun::describe($r));
		check_comms($r, $v);
		check_gpu($r, 0);
		check_host($r);
	};
}

subtest 'plugin v1: enums decoded' => sub {
	my $r = nccl_run(FAKE_NCCL_PROFILER_MAX => 1);
	my $ar = $r->{json} && op_row($r->{json}, 'ncclAllReduce');

	ok($ar, 'analyzed') or return diag(GtRun::describe($r));
	is($ar->{plugin_calls}, $N + 1, 'AllReduce records');
	is($ar->{algorithm}, 'Ring/Simple', 'algorithm from enums');
	is(op_row($r->{json}, 'ncclSend')->{plugin_calls}, 2 * $N, 'Send records');
};

for my $off ([GPUTRACE_NCCL_PLUGIN => 0], [NCCL_PROFILER_PLUGIN => 'none'],
	     [NCCL_PROFILER_PLUGIN => '/nonexistent/libx.so']) {
	subtest "no plugin: @$off" => sub {
		my $r = nccl_run(@$off);

		is($r->{exit}, 0, 'exits 0') or return diag(GtRun::describe($r));
		check_host($r);
		check_comms($r, 0);
		is(op_row($r->{json}, 'ncclAllReduce')->{plugin_calls}, 0, 'no records');
		is(op_row($r->{json}, 'ncclAllReduce')->{gpu_ns_total}, undef,
		   'gpu_ns_total is null');
	};
}

subtest 'threads at once, a communicator each' => sub {
	my ($T, $K) = (6, 200);
	my $r = GtRun::run(['w_nccl', '--threads', $T, $K],
			   env => { NCCL_PROFILER_PLUGIN => undef, FAKE_NCCL_GPU_NS => $G });
	my $j = $r->{json};

	is($r->{exit}, 0, 'exits 0') or return diag(GtRun::describe($r));
	ok($j, 'analyzed') or return diag(GtRun::describe($r));
	my $ar = op_row($j, 'ncclAllReduce');
	is_deeply([@$ar{qw(calls bytes plugin_calls gpu_calls gpu_ns_total)}],
		  [$T * $K, $T * $K * 512 * 4, $T * $K, $T * $K, $T * $K * $COLL_GPU],
		  'every call, host side and plugin');
	my @c = sort { $a->{rank} <=> $b->{rank} } @{$j->{nccl_comms}};
	is_deeply([map { "$_->{rank}/$_->{nranks}:$_->{calls}" } @c],
		  [map { "$_/8:$K" } 0 .. $T - 1], 'one communicator per thread');
	is($j->{dropped}, 0, 'nothing dropped');
};

subtest 'untraced, the fake NCCL works alone' => sub {
	my $r = GtRun::run(['w_nccl', 2], trace => 0);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	like($r->{stdout}, qr/truth iters=2/, 'ran to the end');
};

subtest 'preloaded by a bare name: the plugin still loads' => sub {
	my $r = nccl_run(LD_PRELOAD => 'libgputrace.so',
			 LD_LIBRARY_PATH => GtRun::build_dir() . ':' . GtRun::fake_dir());

	ok($r->{json}, 'analyzed') or return diag(GtRun::describe($r));
	is(op_row($r->{json}, 'ncclAllReduce')->{gpu_calls}, $N + 1, 'GPU times');
};

subtest 'loaded as the plugin only (LD_PRELOAD dropped): silent' => sub {
	my $r = GtRun::run(['w_nccl', 2], trace => 0,
			   env => { NCCL_PROFILER_PLUGIN => GtRun::lib() });

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	like($r->{stdout}, qr/truth iters=2/, 'ran to the end');
	is(scalar(@{$r->{dumps}}), 0, 'no dump') or diag(explain($r->{dumps}));
	unlike($r->{stderr}, qr/gputrace/, 'nothing said');
};

subtest 'NCCL loaded at run time with RTLD_LOCAL, called through dlsym' => sub {
	my $r = GtRun::run(['w_nccl_dlopen', 3], env => { NCCL_PROFILER_PLUGIN => undef });
	my $j = $r->{json};

	is($r->{exit}, 0, 'exits 0') or return diag(GtRun::describe($r));
	like($r->{stdout}, qr/truth probe_found=0/,
	     'a program probing for NCCL finds none, as without the tracer');
	ok($j, 'analyzed') or return diag(GtRun::describe($r));
	is(op_row($j, 'ncclAllReduce')->{calls}, 3, 'calls through dlsym are traced');
	is(op_row($j, 'ncclAllReduce')->{bytes}, 3 * 128, 'their bytes');
	is(op_row($j, 'ncclCommInitRank')->{calls}, 1, 'ncclCommInitRank');
	is(op_row($j, 'ncclAllReduce')->{gpu_calls}, 3, 'and the plugin works');
};

done_testing();
