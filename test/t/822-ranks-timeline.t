#!/usr/bin/perl
# 822-ranks-timeline.t - the timeline of several ranks (--trace, and
# --perfetto where built) puts them on one time base: each rank's GPU
# records go through its own dump's clock pairs (every GPU's clock is its
# own), and each dump's host clock through its offset (ranks of one host
# share CLOCK_MONOTONIC; another host's is aligned on the collectives).
# A synthetic job of four ranks on two hosts, whose all-reduce kernels run
# at the same moment on every GPU: they must start at the same time in
# the timeline, and each rank's call enter where it entered.
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

use constant { MS => 1_000_000, T => 1_000_000_000 };
use constant {
	STEPS => 12, LATE => 3 * MS, HOST_SHIFT => 1000 * 1_000_000_000, SLOW => 3,
	KERNEL => 'ncclDevKernel_AllReduce_Sum_f32_RING_LL',
};

# Rank r's GPU clock is ahead of its host's by this much.
sub gpu_ahead { return 5_000_000_000 + $_[0] * 7_000_000_123 }

# Step k: every rank enters at 5 ms + k * 10 ms, the slow one LATE after;
# the all-reduce kernel runs on every GPU from the last entry + 20 us, for
# 1 ms.  Times on the job's clock; host h's clock is h * HOST_SHIFT ahead.
sub enter { my ($r, $k) = @_; T + 5 * MS + $k * 10 * MS + ($r == SLOW ? LATE : 0) }
sub kernel_at { my ($k) = @_; enter(SLOW, $k) + 20_000 }

sub rank_dump {
	my ($dir, $r) = @_;
	my $h = $r >= 2 ? 1 : 0;
	my $shift = $h * HOST_SHIFT;
	my $d = GtDump->new(pid => 100 + $r, start_ns => T + $shift,
			    start_realtime_ns => 5e18 - $shift + $h * 50 * MS);
	my (@ev, @k);

	$d->process(pid => 100 + $r, host => "node$h", rank => $r, argv => ['train']);
	GtMore::train_ops($d);
	GtMore::comm($d, id => 1, rank => $r, nranks => 4, uid => 0xfeed, t => T + $shift);
	my $name = $d->string(KERNEL);
	GtMore::clock_pair($d, T + $shift + gpu_ahead($r), T + $shift);
	GtMore::window($d, 1, T + $shift);
	for my $k (0 .. STEPS - 1) {
		push @ev, { op => 4, t0 => enter($r, $k) + $shift, dur => 20_000,
			    args => [1 << 20, 4 << 20, 1, 0, 8, 1, 0] };
		push @k, { start => kernel_at($k) + $shift + gpu_ahead($r), name => $name,
			   end => kernel_at($k) + MS + $shift + gpu_ahead($r) };
	}
	$d->events(tid => 1000 + $r, events => \@ev);
	GtMore::gpu_kernels($d, \@k);
	GtMore::window($d, 1, T + $shift, T + $shift + STEPS * 10 * MS + 20 * MS);
	$d->end(end_ns => T + $shift + (STEPS + 2) * 10 * MS);
	return $d->write("$dir/rank$r.bin");
}

my $dir = tempdir(CLEANUP => 1);
my @p = map { rank_dump($dir, $_) } 0 .. 3;

# The start of every slice named $name, per process (µs in JSON).
sub starts {
	my ($events, $name) = @_;
	my %s;

	for my $e (@$events) {
		push @{ $s{ $e->{pid} } }, $e->{ts} if ($e->{name} // '') eq $name && $e->{ph} =~ /^[XB]$/;
	}
	return \%s;
}

my $res = run_analyzer('--json', @p);
my $j = eval { JSON::PP->new->decode($res->{out}) } // {};
like($j->{clock} // '', qr/^2 hosts: aligned on \d+ collectives/, 'two hosts, aligned on the collectives');
is($j->{verdict} && $j->{verdict}{rank}, SLOW, 'the straggler, across hosts');

$res = run_analyzer('--trace', "$dir/job.json", @p);
is($res->{exit}, 0, '--trace of four ranks: exit 0') or diag($res->{err});
my $t = eval { JSON::PP->new->decode(GtDump::slurp("$dir/job.json")) } // {};
my $ev = $t->{traceEvents} // [];
is(scalar(keys %{ starts($ev, KERNEL) }), 4, 'a GPU track of all-reduce kernels for each rank');
my $base = $t->{otherData}{base_ns};
for my $k (0, STEPS - 1) {
	my $want = (kernel_at($k) - $base) / 1000;
	is_deeply([map { starts($ev, KERNEL)->{$_}[$k] } 100 .. 103], [($want) x 4],
		  "step $k: every GPU's all-reduce kernel at the same time, each through its own clock pair");
	is_deeply([map { starts($ev, 'ncclAllReduce')->{$_}[$k] } 100 .. 103],
		  [map { (enter($_, $k) - $base) / 1000 } 0 .. 3],
		  "step $k: each rank's call where it entered, the other host's clock aligned");
}

SKIP: {
	$res = run_analyzer('--perfetto', "$dir/job.pftrace", @p);
	skip 'built without the Perfetto export', 3
		if $res->{err} =~ /built without the Perfetto export/;
	is($res->{exit}, 0, '--perfetto of four ranks: exit 0') or diag($res->{err});
	skip 'protoc not installed', 2
		if system('sh', '-c', 'command -v protoc >/dev/null') != 0;
	my ($pev, $tracks) = events(decode("$dir/job.pftrace"));
	my @k = sort { $a <=> $b } map { $_->{ts} }
		grep { ($_->{name} // '') eq KERNEL && $_->{type} eq 'TYPE_SLICE_BEGIN' } @$pev;
	my $want = kernel_at(0) - $base;
	is_deeply([@k[0 .. 3]], [($want) x 4], "Perfetto: step 0's kernels at the same time, in ns");
	my @calls = sort { $a <=> $b } map { $_->{ts} }
		grep { ($_->{name} // '') eq 'ncclAllReduce' && $_->{type} eq 'TYPE_SLICE_BEGIN' } @$pev;
	is_deeply([@calls[0 .. 3]], [sort { $a <=> $b } map { enter($_, 0) - $base } 0 .. 3],
		  "Perfetto: step 0's calls where each rank entered");
}

done_testing();
