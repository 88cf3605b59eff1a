#!/usr/bin/perl
# 310-nccl-analyzer.t - gputrace-analyze on synthetic dumps with NCCL
# events, communicator and profiler plugin chunks whose answers are known:
# bus bandwidth by nccl-tests' formulas, communicator chunks merged,
# records longer than we know, and bad chunks rejected with exit 2.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

use GtDump qw(:DEFAULT run_analyzer chunk);

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();

use constant { KIND_NCCL => 7, CHUNK_NCCL_COMM => 17, CHUNK_NCCL_PROF => 20,
	       NCCL_NARGS => 7, PROF_COLL => 1, PROF_P2P => 2 };

my $dir = tempdir(CLEANUP => 1);
my $T = 5_000_000_000;

# struct gt_nccl_comm (format.h)
sub comm_bytes {
	my (%c) = @_;

	return pack('V V l< l< l< l< Q< Q< Q< Q< V V V V', $c{id}, $c{parent} // 0,
		    $c{rank} // -1, $c{nranks} // 0, $c{device} // -1,
		    $c{color} // -1, $c{handle} // 0, $c{uid} // 0,
		    $c{hash} // 0, $c{t} // 0, $c{version} // 0, $c{name} // 0,
		    $c{how} // 0, $c{plugin} // 0);
}

# struct gt_nccl_prof; $pad extra bytes as a newer writer would append.
sub prof_bytes {
	my ($p, $pad) = @_;

	return pack('Q< Q< Q< Q< Q< Q< V l< V V V V C C C a5', $p->{start} // 0,
		    $p->{stop} // 0, $p->{gs} // 0, $p->{ge} // 0, $p->{count},
		    $p->{seq} // 0, $p->{comm}, $p->{peer} // -1, $p->{func},
		    $p->{dtype}, $p->{algo} // 0, $p->{proto} // 0,
		    $p->{type} // PROF_COLL, $p->{ch} // 2, $p->{timed} // 2, '') .
		("\0" x ($pad // 0));
}

sub prof_chunk {
	my ($d, $recs, %o) = @_;
	my $size = 80 + ($o{pad} // 0);

	$d->add_chunk(CHUNK_NCCL_PROF, pack('V V', $o{count} // scalar(@$recs),
		$o{size} // $size) . join('', map { prof_bytes($_, $o{pad}) } @$recs));
}

sub base_dump {
	my $d = GtDump->new(pid => 7, start_ns => $T);

	$d->process(pid => 7, host => 'n1', exe => '/bin/train', argv => ['train']);
	$d->op(op => 1, kind => KIND_NCCL, api => 'ncclAllReduce',
	       flags => OPF_ASYNC, nargs => NCCL_NARGS);
	$d->op(op => 2, kind => KIND_NCCL, api => 'ncclSend', flags => OPF_ASYNC,
	       nargs => NCCL_NARGS);
	$d->op(op => 3, kind => KIND_NCCL, api => 'ncclCommInitRank',
	       nargs => NCCL_NARGS);
	return $d;
}

sub analyze {
	my ($d, $name, @args) = @_;
	my $path = $d->write("$dir/$name.bin");

	return run_analyzer(@args, $path);
}

sub json_of {
	my ($res) = @_;

	return eval { JSON::PP->new->decode($res->{out}) };
}

sub row { my ($j, $op) = @_; (grep { $_->{op} eq $op } @{$j->{nccl}})[0] }

subtest 'bus bandwidth, as nccl-tests computes it' => sub {
	my $d = base_dump();
	my $name = $d->string('world');

	$d->add_chunk(CHUNK_NCCL_COMM, comm_bytes(id => 1, rank => 3, nranks => 8,
		device => 3, uid => 0xabc, how => 1, version => 22809, name => $name));
	$d->add_chunk(CHUNK_NCCL_COMM, comm_bytes(id => 1, hash => 0xdef, plugin => 5));
	$d->events(tid => 9, events => [
		{ op => 3, t0 => $T + 10, dur => 900, args => [8, 0, 1, 4, 0, 0, 0] },
		map({ { op => 1, t0 => $T + 1000 * $_, dur => 300,
			args => [1 << 20, 4 << 20, 1, 0, 8, 1, 0] } } 1 .. 3),
		{ op => 2, t0 => $T + 9000, dur => 50, args => [10, 20, 1, 6, 10, 0, 0] },
		{ op => 2, t0 => $T + 9500, dur => 50, args => [10, 20, 99, 6, 10, 0, 0] },
	]);
	my @s = map { $d->string($_) } qw(AllReduce ncclFloat32 Ring LL AllGather Tree Send);
	prof_chunk($d, [
		{ count => 1 << 20, comm => 1, func => $s[0], dtype => $s[1],
		  algo => $s[2], proto => $s[3], gs => 10_000, ge => 1_010_000 },
		{ count => 1 << 20, comm => 1, func => $s[0], dtype => $s[1],
		  algo => $s[2], proto => $s[3], gs => 50_000, ge => 1_050_000 },
		{ count => 1 << 20, comm => 1, func => $s[0], dtype => $s[1],
		  algo => $s[5], proto => $s[3] },      # not timed
		{ count => 1000, comm => 1, func => $s[4], dtype => $s[1],
		  algo => $s[2], proto => $s[3], gs => 1, ge => 1001 },
		{ count => 10, comm => 1, func => $s[6], dtype => $s[1], peer => 5,
		  type => PROF_P2P, gs => 100, ge => 140 },
	], pad => 16);
	$d->end(end_ns => $T + 100_000);
	my $res = analyze($d, 'bw', '--json');
	my $j = json_of($res);

	is($res->{exit}, 0, 'exit 0') or diag($res->{err});
	ok($j, 'JSON') or return;
	my $ar = row($j, 'ncclAllReduce');
	is_deeply([@$ar{qw(calls bytes count_total host_ns_total host_ns_max)}],
		  [3, 3 * (4 << 20), 3 << 20, 900, 300], 'AllReduce host side');
	is_deeply([@$ar{qw(plugin_calls gpu_calls gpu_ns_total algorithm)}],
		  [3, 2, 2_000_000, 'Ring/LL'], 'AllReduce GPU side');
	my $alg = 2 * 4 * (1 << 20) / 2_000_000;
	ok(abs($ar->{alg_gbps} - $alg) < 1e-4, "algorithm bandwidth $alg");
	ok(abs($ar->{bus_gbps} - $alg * 2 * 7 / 8) < 1e-4, 'bus = alg x 2(n-1)/n');
	my $ag = row($j, 'ncclAllGather');
	is($ag->{calls}, 0, 'AllGather: seen by the plugin only');
	ok(abs($ag->{alg_gbps} - 4000 * 8 / 1000) < 1e-4, 'AllGather: size x ranks');
	ok(abs($ag->{bus_gbps} - 32 * 7 / 8) < 1e-4, 'AllGather: bus = alg x (n-1)/n');
	my $send = row($j, 'ncclSend');
	is($send->{gpu_ns_total}, 40, 'Send GPU time');
	ok(abs($send->{bus_gbps} - 1) < 1e-6, 'Send: bus = alg');
	is(row($j, 'ncclCommInitRank')->{gpu_ns_total}, undef, 'set-up: no GPU time');
	my ($c) = @{$j->{nccl_comms}};
	is(scalar(@{$j->{nccl_comms}}), 1, 'one communicator (99 has no chunk)');
	is_deeply([@$c{qw(id rank nranks device made_by name plugin_version calls)}],
		  [1, 3, 8, 3, 'ncclCommInitRank', 'world', 5, 4],
		  'communicator, two chunks merged');
	is($c->{uid_hash}, sprintf('%016x', 0xabc), 'uid hash');
	is($c->{nccl_hash}, sprintf('%016x', 0xdef), 'NCCL hash from the later chunk');
	is($j->{nccl_version}, '2.28.9', 'version');
	my ($s) = grep { $_->{op} eq 'ncclSend' && ($_->{comm} // 0) == 1 } @{$j->{nccl_calls}};
	is_deeply([@$s{qw(peer datatype calls bytes)}], [5, 'ncclBfloat16', 1, 20],
		  'send: peer and datatype');
	my $text = analyze($d, 'bw-text')->{out};
	like($text, qr/^  ncclAllReduce .*Ring\/LL.*[GM]B\/s/m, 'text row');
	like($text, qr/^  1 world\s+3 of 8\s+3\s+ncclCommInitRank/m, 'text communicator');
};

subtest 'a dump without NCCL has an empty nccl table' => sub {
	my $d = GtDump->new(pid => 1, start_ns => $T);

	$d->end(end_ns => $T + 10);
	my $j = json_of(analyze($d, 'none', '--json'));
	is_deeply([$j->{nccl}, $j->{nccl_comms}, $j->{nccl_version}], [[], [], undef],
		  'empty, null version');
	unlike(analyze($d, 'none-text')->{out}, qr/^NCCL/m, 'no NCCL section');
};

my @bad = (
	[ 'short communicator', sub { $_[0]->add_chunk(CHUNK_NCCL_COMM, 'x' x 10) },
	  qr/nccl communicator record of 10 bytes is too short/ ],
	[ 'communicator id 0', sub { $_[0]->add_chunk(CHUNK_NCCL_COMM, comm_bytes(id => 0)) },
	  qr/nccl communicator id 0 is reserved/ ],
	[ 'communicator name undefined',
	  sub { $_[0]->add_chunk(CHUNK_NCCL_COMM, comm_bytes(id => 1, name => 77)) },
	  qr/names string 77, which is not defined/ ],
	[ 'records past the end', sub { prof_chunk($_[0], [], count => 3) },
	  qr/3 records of 80 bytes in 0 bytes/ ],
	[ 'records too small', sub { prof_chunk($_[0], [], size => 40) },
	  qr/records of 40 bytes/ ],
	[ 'huge count', sub { prof_chunk($_[0], [], count => 0xffffffff) },
	  qr/4294967295 records/ ],
	[ 'record string undefined',
	  sub { prof_chunk($_[0], [{ count => 1, comm => 1, func => 55, dtype => 0 }]) },
	  qr/names string 55, which is not defined/ ],
	[ 'header cut', sub { $_[0]->add_chunk(CHUNK_NCCL_PROF, 'abc') },
	  qr/nccl profiler record of 3 bytes is too short/ ],
);
for my $b (@bad) {
	my ($name, $make, $msg) = @$b;
	my $d = base_dump();

	$make->($d);
	$d->end(end_ns => $T + 10);
	my $res = analyze($d, 'bad', '--json');
	is($res->{exit}, 2, "$name: exit 2");
	like($res->{err}, $msg, "$name: says why");
	is($res->{signal}, 0, "$name: no crash");
}

done_testing();
