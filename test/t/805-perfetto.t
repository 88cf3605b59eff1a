#!/usr/bin/perl
# 805-perfetto.t - --perfetto, Perfetto's protobuf trace: decoded by protoc
# against the schema kept in analyzer/export/proto/, it holds the events of the
# JSON trace of the same dump (names and counts of slices, instants and
# counters, their times, the flow arrows, the arguments of a launch and a
# kernel), with names interned once per sequence and the tracks described;
# --from/--to cut it; on a launch-heavy dump it is at least 5 times
# smaller than the JSON trace.  A build without protobuf-c says the
# export is missing, with exit status 2.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);
use GtMore;
use GtPerfetto qw(decode events);

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();

use constant { T => 7_000_000_000, GPU_AHEAD => 5_000_000_000 };

my $dir = tempdir(CLEANUP => 1);
my $path = GtMore::gpu_dump("$dir/gpu.bin", T, GPU_AHEAD);

my $res = run_analyzer('--perfetto', "$dir/probe.pftrace", $path);
if ($res->{err} =~ /built without the Perfetto export/) {
	is($res->{exit}, 2, 'built without protobuf-c: exit 2');
	ok(!-e "$dir/probe.pftrace", 'no file written');
	done_testing();
	exit 0;
}
is($res->{exit}, 0, 'exit 0') or diag($res->{err});
plan skip_all => 'protoc not installed'
	if system('sh', '-c', 'command -v protoc >/dev/null') != 0;

sub json_trace {
	my ($out, @args) = @_;
	my $r = run_analyzer('--trace', $out, @args);

	is($r->{exit}, 0, "--trace @args: exit 0") or diag($r->{err});
	return JSON::PP->new->decode(GtDump::slurp($out))->{traceEvents};
}

sub counts {
	my %n;
	$n{$_}++ for @_;
	return \%n;
}

my $json = json_trace("$dir/gpu.json", $path);
my ($ev, $tracks) = events(decode("$dir/probe.pftrace"));

my @starts = grep { $_->{type} =~ /^TYPE_(SLICE_BEGIN|INSTANT)$/ } @$ev;
my @jstarts = grep { $_->{ph} =~ /^[XBbi]$/ } @$json;
is_deeply(counts(map { $_->{name} } @starts), counts(map { $_->{name} } @jstarts),
	  'the slices and instants of the JSON trace, by name');
is(scalar(grep { $_->{type} eq 'TYPE_SLICE_END' } @$ev),
   scalar(grep { $_->{ph} =~ /^[XEe]$/ } @$json), 'and as many ends');
is(scalar(grep { $_->{type} eq 'TYPE_COUNTER' } @$ev),
   scalar(grep { $_->{ph} eq 'C' } @$json), 'as many counter values');
is_deeply(counts(map { $tracks->{ $_->{track} }{name}[0] }
		 grep { $_->{type} eq 'TYPE_COUNTER' } @$ev),
	  counts(map { $_->{name} } grep { $_->{ph} eq 'C' } @$json),
	  'each on the track of its counter');
is(scalar(grep { $_->{flows} } @$ev), scalar(grep { $_->{flow_out} } @$json),
   'flows out');
is(scalar(grep { $_->{ends} } @$ev), scalar(grep { $_->{flow_in} } @$json),
   'flows in');

my ($launch) = grep { ($_->{name} // '') eq 'cuLaunchKernel' } @starts;
my ($jlaunch) = grep { $_->{name} eq 'cuLaunchKernel' } @jstarts;
is($launch->{ts}, $jlaunch->{ts} * 1000, 'launch at the JSON time, in ns');
is($launch->{cat}, 'launch', 'category interned');
is($launch->{args}{kernel}, 'step<<<(64,1,1), (256,1,1), 0>>>',
   'kernel and shape in CUDA syntax');
is($tracks->{ $launch->{track} }{name}[0], 'stream 1', 'on its stream track');
my $thread = $tracks->{ $tracks->{ $launch->{track} }{parent_uuid}[0] };
is($thread->{thread}[0]{tid}[0], 11, 'a child of its thread');
my ($k) = grep { ($_->{cat} // '') eq 'kernel' } @starts;
my ($jk) = grep { ($_->{cat} // '') eq 'kernel' } @jstarts;
is($k->{ts}, $jk->{ts} * 1000, 'kernel on the host clock, as in JSON');
is_deeply([@{ $k->{args} }{qw(grid block)}], [@{ $jk->{args} }{qw(grid block)}],
	  'kernel grid and block');
is($tracks->{ $k->{track} }{name}[0], 'GPU 0 stream 7', 'GPU track named');
my ($proc) = grep { $_->{process} } values %$tracks;
like($proc->{process}[0]{process_name}[0], qr{^/bin/train \(pid 42, n1\)$},
     'process named');

# Interned: each name sent once per sequence.
my (%sent, $twice);
for my $p (@{ decode("$dir/probe.pftrace") }) {
	my $seq = $p->{trusted_packet_sequence_id}[0] // 0;
	for (@{ ($p->{interned_data} // [])->[0]{event_names} // [] }) {
		$twice++ if $sent{"$seq $_->{name}[0]"}++;
	}
}
ok(!$twice, 'names interned: each sent once per sequence');

# --from/--to as for --trace
$res = run_analyzer('--perfetto', "$dir/cut.pftrace", '--from', '0.03',
		    '--to', '0.06', $path);
is($res->{exit}, 0, 'cut: exit 0') or diag($res->{err});
my ($cut) = events(decode("$dir/cut.pftrace"));
my $jcut = json_trace("$dir/cut.json", '--from', '0.03', '--to', '0.06', $path);
is_deeply(counts(map { $_->{name} } grep { $_->{type} =~ /BEGIN|INSTANT/ } @$cut),
	  counts(map { $_->{name} } grep { $_->{ph} =~ /^[XBbi]$/ } @$jcut),
	  'cut: the same window as the JSON trace');

$res = run_analyzer('--perfetto', "$dir/no/such/dir/t.pftrace", $path);
is($res->{exit}, 2, 'unwritable: exit 2');
like($res->{err}, qr/cannot write '.*t\.pftrace'/, 'says so');

# Size, on a launch-heavy dump: at least 5 times smaller than JSON.
my $gen = ($ENV{GT_BUILD} // 'build') . '/test/make_big_dump';
SKIP: {
	skip 'make_big_dump not built', 3 unless -x $gen;
	system($gen, "$dir/big.bin", 200000, 8) == 0 or die "make_big_dump failed\n";
	$res = run_analyzer('--trace', "$dir/big.json", "$dir/big.bin");
	is($res->{exit}, 0, 'big: JSON trace');
	$res = run_analyzer('--perfetto', "$dir/big.pftrace", "$dir/big.bin");
	is($res->{exit}, 0, 'big: Perfetto trace');
	my ($j, $p) = (-s "$dir/big.json", -s "$dir/big.pftrace");
	cmp_ok($j / $p, '>=', 5, sprintf('%.1f times smaller (%d vs %d bytes)',
					 $j / $p, $p, $j));
}

done_testing();
