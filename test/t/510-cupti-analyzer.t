#!/usr/bin/perl
# 510-cupti-analyzer.t - the analyzer's GPU timeline on a dump written by
# hand (GtDump), whose right answers are known: joins in both orders,
# GPU time and queue delay per kernel through a clock with an offset and
# a drift, bandwidth and CUPTI's memory kind per copy, busy time as the
# union of overlapping intervals, what lies outside the window, records
# without a host event; and broken GPU chunks refused cleanly.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);

plan skip_all => 'not built: ' . GtDump::analyzer_path() . ' (run make test)'
	unless -x GtDump::analyzer_path();

my $dir = tempdir(CLEANUP => 1);

use constant {
	CHUNK_GPU => 13, CHUNK_WINDOW => 18, CHUNK_CLOCK => 19,
	GPU_KERNEL => 1, GPU_MEMCPY => 2, GPU_MEMSET => 3, GPU_STATE => 6,
	GPU_DROPS => 7, MEM_PINNED => 2,
	OFF => 500_000_000_000_000_000, PPM => 100,
	T_OPEN => 2_000_000_000, T_CLOSE => 2_900_000_000, QUEUE => 50_000,
	BUF => 1 << 40,
};

# CUPTI's clock for host time $h: an offset and a drift of PPM.
sub gpu_t { my ($h) = @_; return $h + OFF + int(($h - T_OPEN) * PPM / 1e6) }

sub gpu_chunk {
	my ($kind, $size, @recs) = @_;

	return (CHUNK_GPU, pack('V4', $kind, scalar @recs, $size, 0) . join('', @recs));
}

sub kernel_rec {
	my (%k) = @_;

	return pack('Q< Q< Q< Q< Q< V V V V l3 l3 V V', $k{id}, $k{start}, $k{end},
		    0, 0, $k{corr} // 1, 7, 0, $k{name} // 0, 1, 1, 1, 32, 1, 1, 0, 0);
}

sub copy_rec {
	my (%c) = @_;

	return pack('Q< Q< Q< Q< V V V C C C C', $c{id}, $c{start}, $c{end},
		    $c{bytes}, 1, 7, 0, $c{copy_kind} // 1, $c{src} // 0,
		    $c{dst} // 3, 0);
}

my $d = GtDump->new(pid => 42, start_ns => 1_000_000_000);
$d->process(host => 'h', exe => '/bin/app', argv => ['app']);
$d->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel');
$d->op(op => 2, kind => KIND_COPY, api => 'cuMemcpyHtoDAsync',
       dir => DIR_HTOD, flags => OPF_ASYNC);
$d->op(op => 3, kind => KIND_SET, api => 'cuMemsetD8Async', flags => OPF_ASYNC);
$d->function(id => 1, name => '_Z1av', handle => 0x100);
$d->function(id => 2, name => '_Z1bv', handle => 0x200);
$d->shape(id => 1, function => 1);
$d->shape(id => 2, function => 2);
my $path_str = $d->string('/opt/libcupti.so.13');
$d->add_chunk(gpu_chunk(GPU_STATE, 32, pack('V8', 1, 1, 1000, 5000, 0, 130001,
					   $path_str, 0)));
for my $h (T_OPEN, 2_500_000_000, 3_000_000_000) {
	$d->add_chunk(CHUNK_CLOCK, pack('Q< Q< V V', gpu_t($h), $h, 40, 0));
}
$d->add_chunk(CHUNK_WINDOW, pack('Q< Q< V V', T_OPEN, 0, 1, 0));

# Host events (buffer 1): 10 launches 1 ms apart, a copy, a memset, a
# failed launch, a second copy.
my (@ev, %t1, @gpu, @busy);
for my $i (0 .. 9) {
	my $t0 = 2_100_000_000 + $i * 1_000_000;
	push @ev, { op => 1, t0 => $t0, dur => 5000, args => [$i % 2 ? 2 : 1] };
	$t1{$i} = $t0 + 5000;
}
push @ev, { op => 2, t0 => 2_200_000_000, dur => 3000,
	    args => [1_000_000, 0x10, 0x20, 1, MEM_PINNED, 0] };
push @ev, { op => 3, t0 => 2_201_000_000, dur => 2000, args => [4096, 0x30] };
push @ev, { op => 1, t0 => 2_202_000_000, dur => 1000, result => 1, args => [1] };
push @ev, { op => 2, t0 => 2_203_000_000, dur => 3000,
	    args => [1_000_000, 0x10, 0x20, 1, MEM_PINNED, 0] };
$t1{$_} = $ev[$_]{t0} + $ev[$_]{dur} for 10 .. 13;

my $name_a = $d->string('_Z1av');
my $name_b = $d->string('_Z1bv');
my $name_z = $d->string('_Z1zv');
my $name_u = $d->string('_Z1uv');
my (@kern_first, @kern_later);
for my $i (0 .. 9) {
	my $s = $t1{$i} + QUEUE;
	my $dur = 20_000 + $i * 1000;
	my $name = $i == 3 ? $name_z : $i % 2 ? $name_b : $name_a;
	my $rec = kernel_rec(id => BUF | $i, start => gpu_t($s),
			     end => gpu_t($s) + $dur, name => $name);
	push @busy, [$s, $s + $dur];
	push @{ $i < 5 ? \@kern_first : \@kern_later }, $rec;
}
# Half of the kernel records come before their host events.
$d->add_chunk(gpu_chunk(GPU_KERNEL, 88, @kern_first));
$d->events(tid => 7, buffer => 1, first_seq => 0, events => \@ev);
$d->add_chunk(gpu_chunk(GPU_KERNEL, 88, @kern_later));
# Copies: 1 MB in 100 us (10 GB/s), CUPTI says pinned, then pageable; the
# second overlaps the first on the GPU.  A memset of 2 us.
my $c0 = $t1{10} + 10_000;
my $c1 = $c0 + 50_000;
$d->add_chunk(gpu_chunk(GPU_MEMCPY, 48,
	copy_rec(id => BUF | 10, start => gpu_t($c0), end => gpu_t($c0) + 100_000,
		 bytes => 1_000_000, src => 2),
	copy_rec(id => BUF | 13, start => gpu_t($c1), end => gpu_t($c1) + 100_000,
		 bytes => 1_000_000, src => 1)));
push @busy, [$c0, $c0 + 100_000], [$c1, $c1 + 100_000];
my $m0 = $t1{11} + 10_000;
$d->add_chunk(gpu_chunk(GPU_MEMSET, 48,
	copy_rec(id => BUF | 11, start => gpu_t($m0), end => gpu_t($m0) + 2000,
		 bytes => 4096, copy_kind => 0)));
push @busy, [$m0, $m0 + 2000];
# A kernel CUPTI could not join, and one whose host event never comes.
my $u0 = 2_400_000_000;
$d->add_chunk(gpu_chunk(GPU_KERNEL, 88,
	kernel_rec(id => 0, start => gpu_t($u0), end => gpu_t($u0) + 7000, name => $name_u),
	kernel_rec(id => BUF | 999, start => gpu_t($u0 + 100_000),
		   end => gpu_t($u0 + 100_000) + 3000, name => $name_a)));
push @busy, [$u0, $u0 + 7000], [$u0 + 100_000, $u0 + 103_000];
$d->add_chunk(CHUNK_WINDOW, pack('Q< Q< V V', T_OPEN, T_CLOSE, 1, 0));
# After the window: a launch that is no GPU's business, and one made as
# the window closed, whose record comes after it (an edge, not an orphan).
$d->events(tid => 7, buffer => 2, first_seq => 0,
	   events => [{ op => 1, t0 => 3_500_000_000, dur => 4000, args => [1] },
		      { op => 1, t0 => T_CLOSE + 1000, dur => 4000, args => [1] }]);
my $e0 = T_CLOSE + 50_000;
$d->add_chunk(gpu_chunk(GPU_KERNEL, 88,
	kernel_rec(id => (2 << 40) | 1, start => gpu_t($e0), end => gpu_t($e0) + 1000,
		   name => $name_a)));
push @busy, [$e0, $e0 + 1000];
$d->add_chunk(gpu_chunk(GPU_DROPS, 32, pack('Q< Q< Q< Q<', 3, 0, 0, 0)));
# A kind from the future is skipped.
$d->add_chunk(gpu_chunk(99, 8, pack('Q<', 1)));
$d->end(end_ns => 4_000_000_000);
my $path = $d->write("$dir/gpu.bin");

# The union of the busy intervals, in host time.
sub union_len {
	my @s = sort { $a->[0] <=> $b->[0] } @_;
	my ($len, $cs, $ce) = (0, @{ shift @s });

	for my $x (@s) {
		if ($x->[0] > $ce) {
			$len += $ce - $cs;
			($cs, $ce) = @$x;
		} elsif ($x->[1] > $ce) {
			$ce = $x->[1];
		}
	}
	return $len + $ce - $cs;
}

my $r = run_analyzer('--json', $path);
is($r->{exit}, 0, 'analyzer exits 0') or diag($r->{err});
my $j = eval { decode_json($r->{out}) } or BAIL_OUT("no JSON: $@ $r->{err}");
my $g = $j->{gpu};

is($g->{cupti}, 'on', 'cupti on');
is($j->{env}{cupti}, 'on', 'env.cupti on');
is($g->{mode}, 'windows', 'mode');
is($g->{windows}{count}, 1, 'one window');
is($g->{wall_ns}, T_CLOSE - T_OPEN, 'wall = the window');
is_deeply($g->{windows}{first}, [[T_OPEN - 1e9, T_CLOSE - 1e9]],
	  'window span after the dump start');
is($g->{launches_in_windows}, 10, 'launches in the window: not the failed one, '
   . 'not the one after');
is($g->{launches_joined}, 10, 'all joined, in either order');
is($g->{copies_in_windows}, 3, 'copies and memsets in the window');
is($g->{copies_joined}, 3, 'all joined');
is($g->{records}{kernels}, 13, 'kernel records');
is($g->{records}{window_edge}, 1, 'one of a call just after the window');
is($g->{records}{unjoined}, 1, 'one without host id');
is($g->{records}{orphans}, 1, 'one whose host event never came');
is($g->{records}{name_mismatch}, 1, 'one named otherwise than its launch');
is($g->{dropped}{cupti}, 3, 'CUPTI drops');
cmp_ok(abs($g->{clock}{drift_ppm} - PPM), '<', 0.5, 'drift found');
# (GPU durations are CUPTI's: in host time they are PPM shorter)
cmp_ok(abs($g->{active_ns} - union_len(@busy)), '<=', union_len(@busy) * PPM * 2e-6,
       'active = the union of the intervals (' . union_len(@busy) . ')');

my %k = map { $_->{symbol} => $_ } @{ $j->{kernels} };
is($k{_Z1av}{gpu_calls}, 6, 'a: GPU runs (one at the edge)');
is($k{_Z1av}{gpu_ns_total}, 121_000, 'a: GPU time');
is($k{_Z1bv}{gpu_ns_total}, 125_000, 'b: GPU time');
is($k{_Z1av}{calls}, 8, 'a: host launches (also failed, after the window)');
for my $s (qw(_Z1av _Z1bv)) {
	cmp_ok(abs($k{$s}{queue_ns_p50} - QUEUE), '<=', QUEUE * 0.01,
	       "$s: queue delay p50 is the 50 us put in");
}
my @c = grep { $_->{api} eq 'cuMemcpyHtoDAsync' } @{ $j->{copies} };
is(scalar @c, 1, 'one copy row');
is($c[0]{gpu_calls}, 2, 'copy: GPU runs');
is($c[0]{gpu_bytes}, 2_000_000, 'copy: GPU bytes');
cmp_ok(abs($c[0]{gpu_gbps} - 10), '<', 0.01, 'copy: 10 GB/s');
is($c[0]{cupti_memory_mismatch}, 1, 'CUPTI said pageable once where the host '
   . 'side found pinned');
my ($set) = @{ $j->{sets} };
is($set->{gpu_ns_total}, 2000, 'memset GPU time');
my @only = @{ $g->{kernels_without_launch} };
ok((grep { $_->{symbol} eq '_Z1uv' && !$_->{via_graph} } @only),
   'the unjoined kernel is listed apart');

my $text = run_analyzer($path)->{out};
like($text, qr/^GPU timeline \(CUPTI on, GPUTRACE_GPU=windows: 1\.00 s every 5\.00 s\)$/m,
     'text: the GPU section');
like($text, qr/launches in windows 10, joined 100\.0%/, 'text: joins');
like($text, qr/^Kernels \(GPU time, in windows/m, 'text: kernel GPU table');
like($text, qr/^Copies \(GPU time, in windows\)$/m, 'text: copy GPU table');
like($text, qr/10\.00 GB\/s/, 'text: bandwidth');

# ---- broken GPU chunks --------------------------------------------------

sub broken {
	my ($what, $chunk, $want) = @_;
	my $b = GtDump->new(start_ns => 1);
	$b->add_chunk(@$chunk);
	$b->end(end_ns => 2);
	my $res = run_analyzer('--json', $b->write("$dir/broken.bin"));

	if ($want) {
		is($res->{exit}, 2, "$what: exit 2");
		like($res->{err}, qr/^gputrace-analyze: .*corrupt.*$want/m,
		     "$what: says why") or diag($res->{err});
	} else {
		is($res->{exit}, 0, "$what: read") or diag($res->{err});
	}
	is($res->{signal}, 0, "$what: no crash");
}

broken('count does not fill the chunk',
       [CHUNK_GPU, pack('V4', GPU_KERNEL, 1, 88, 0) .
		   kernel_rec(id => 1, start => 1, end => 2) . 'x'], 'claims');
broken('records shorter than the kind',
       [CHUNK_GPU, pack('V4', GPU_KERNEL, 1, 40, 0) . ("\0" x 40)], 'are 40 bytes');
broken('short header', [CHUNK_GPU, pack('V2', 1, 1)], 'too short');
broken('window ends before it starts',
       [CHUNK_WINDOW, pack('Q< Q< V V', 100, 50, 1, 0)], 'ends before');
broken('clock pair short', [CHUNK_CLOCK, pack('Q<', 5)], 'too short');
broken('unknown kind skipped', [gpu_chunk(77, 4, pack('V', 1))], undef);
broken('longer records than ours',
       [gpu_chunk(GPU_KERNEL, 96, kernel_rec(id => 0, start => 10, end => 20) .
		  pack('Q<', 0))], undef);

done_testing();
