#!/usr/bin/perl
# 800-trace.t - --trace on a synthetic dump whose content is known: the
# Chrome trace event file has a track per host thread with the calls and
# their arguments, a track per GPU stream with the kernels CUPTI saw (on
# the host clock, through the clock pair), flow arrows joining a launch to
# its kernel, NVTX ranges and marks, sample counters, and the GPU timing
# window; --from/--to cut it; bad requests exit 2.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);
use GtMore;

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();

use constant { T => 7_000_000_000, MS => 1_000_000, GPU_AHEAD => 5_000_000_000 };

my $dir = tempdir(CLEANUP => 1);

my $path = GtMore::gpu_dump("$dir/gpu.bin", T, GPU_AHEAD);

sub trace {
	my ($name, @args) = @_;
	my $out = "$dir/$name.json";
	my $res = run_analyzer('--trace', $out, @args, $path);
	my $j;

	is($res->{exit}, 0, "$name: exit 0") or diag($res->{err});
	$j = eval { JSON::PP->new->decode(GtDump::slurp($out)) };
	ok($j, "$name: valid JSON") or diag($@);
	return $j;
}

sub find_ev { my ($j, $f) = @_; grep { local $_ = $_; $_->{name} //= ''; $f->($_) } @{ $j->{traceEvents} } }

my $j = trace('all');
SKIP: {
	skip 'no trace', 1 unless $j;
	is($j->{displayTimeUnit}, 'ns', 'display unit');
	is($j->{otherData}{dumps}[0]{path}, $path, 'the dump named');
	my ($launch, $late) = find_ev($j, sub { $_[0]{name} eq 'cuLaunchKernel' });
	ok($launch, 'the launch') or return;
	is($launch->{ph}, 'X', 'a complete slice');
	is($launch->{tid}, 11, 'on its thread');
	is($launch->{ts}, 10_000, 'at 10 ms (us from the start)');
	is($launch->{dur}, 4, '4 us long');
	is_deeply([@{ $launch->{args} }{qw(kernel grid block stream)}],
		  ['step', '64,1,1', '256,1,1', 1], 'kernel, grid, block, stream');
	ok($launch->{flow_out}, 'arrow out of the launch');
	ok(!$late->{flow_out}, 'no arrow from a launch outside GPU timing');
	my ($k) = find_ev($j, sub { ($_[0]{cat} // '') eq 'kernel' });
	ok($k, 'the kernel') or return;
	is($k->{ts}, 10_020, 'kernel on the host clock: 20 us after the launch');
	is($k->{dur}, 1000, '1 ms of GPU time');
	is($k->{name}, 'step', 'named');
	is($k->{bind_id}, $launch->{bind_id}, 'the arrow joins launch and kernel');
	ok($k->{flow_in}, 'arrow into the kernel');
	my ($tn) = find_ev($j, sub { $_[0]{ph} eq 'M' && $_[0]{tid} == $k->{tid} &&
				     $_[0]{name} eq 'thread_name' });
	is($tn->{args}{name}, 'GPU 0 stream 7', 'GPU track named');
	my ($copy) = find_ev($j, sub { $_[0]{name} eq 'cuMemcpyHtoD' });
	is_deeply([@{ $copy->{args} }{qw(bytes direction memory)}], [4096, 'HtoD', 'pageable'],
		  'copy arguments');
	my @nvtx = find_ev($j, sub { ($_[0]{cat} // '') eq 'nvtx' || $_[0]{ph} eq 'E' });
	is_deeply([map { $_->{ph} } @nvtx], ['B', 'i', 'E'], 'NVTX push, mark, pop');
	is($nvtx[0]{name}, 'train_step', 'range name');
	is($nvtx[1]{name}, 'checkpoint', 'mark name');
	my ($util) = find_ev($j, sub { $_[0]{ph} eq 'C' && $_[0]{name} eq 'GPU 0 utilization (%)' });
	is($util && $util->{args}{value}, 42, 'utilization counter');
	my ($cpu) = find_ev($j, sub { $_[0]{ph} eq 'C' && $_[0]{name} eq 'process CPU (cores)' });
	is($cpu && $cpu->{args}{value}, 1.5, 'CPU cores from two samples');
	my ($w) = find_ev($j, sub { $_[0]{name} eq 'GPU timing window' });
	is($w && $w->{dur}, 99_000, 'the GPU timing window');
	my ($p) = find_ev($j, sub { $_[0]{name} eq 'process_name' });
	like($p->{args}{name}, qr{^/bin/train \(pid 42, n1\)$}, 'process named');
}

my $cut = trace('cut', '--from', '0.03', '--to', '0.06');
SKIP: {
	skip 'no trace', 1 unless $cut;
	my @x = find_ev($cut, sub { $_[0]{ph} =~ /^[XBEi]$/ });
	is_deeply([sort map { $_->{name} || $_->{ph} } @x],
		  [sort 'E', 'GPU timing window', 'checkpoint'],
		  'only what meets 30..60 ms');
}

my $res = run_analyzer('--trace', "$dir/s.json", '--steps', '1..2', $path);
is($res->{exit}, 2, '--steps without steps: exit 2');
like($res->{err}, qr/cannot limit to steps 1\.\.2/, 'says so');
$res = run_analyzer('--trace', "$dir/s.json", '--steps', '3..1', $path);
is($res->{exit}, 2, 'bad --steps: exit 2');
$res = run_analyzer('--trace', "$dir/s.json", '--from', 'soon', $path);
like($res->{err}, qr/--from needs seconds/, 'bad --from');
$res = run_analyzer('--trace', "$dir/no/such/dir/t.json", $path);
is($res->{exit}, 2, 'unwritable: exit 2');
like($res->{err}, qr/cannot write '.*t\.json'/, 'says so');

done_testing();
