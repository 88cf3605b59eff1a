#!/usr/bin/perl
# 28-analyzer-html-kernels.t - the HTML chart "Top kernels" ranks by GPU
# time from the GPU records, not by the host time of the launches; a dump
# without GPU records gets the host-side ranking, titled as such.
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

use constant { T => 7_000_000_000, MS => 1_000_000 };

my $dir = tempdir(CLEANUP => 1);

# Kernel slowlaunch: a 2 ms launch, 1 us on the GPU; kernel longrun: a
# 5 us launch, 10 ms on the GPU.
sub dump_of {
	my ($path, $gpu) = @_;
	my $d = GtDump->new(pid => 42, start_ns => T, start_realtime_ns => 1);

	$d->process(pid => 42, host => 'n1', exe => '/bin/train', argv => ['train']);
	$d->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel', flags => OPF_ASYNC);
	$d->function(id => 1, name => '_Z10slowlaunchv', handle => 0xa);
	$d->function(id => 2, name => '_Z7longrunv', handle => 0xb);
	$d->shape(id => $_, function => $_) for 1, 2;
	GtMore::clock_pair($d, T, T) if $gpu;
	GtMore::window($d, 1, T + 1 * MS) if $gpu;
	$d->events(tid => 11, buffer => 1, events => [
		{ op => 1, t0 => T + 10 * MS, dur => 2 * MS, stream => 1, args => [1] },
		{ op => 1, t0 => T + 20 * MS, dur => 5000, stream => 1, args => [2] },
	]);
	if ($gpu) {
		GtMore::gpu_kernels($d, [
			{ host_id => (1 << 40) | 0, name => $d->string("_Z10slowlaunchv"),
			  start => T + 12 * MS, end => T + 12 * MS + 1000 },
			{ host_id => (1 << 40) | 1, name => $d->string("_Z7longrunv"),
			  start => T + 20 * MS + 10_000, end => T + 30 * MS + 10_000 },
		]);
		GtMore::window($d, 1, T + 1 * MS, T + 100 * MS);
	}
	$d->end(end_ns => T + 200 * MS);
	return $d->write($path);
}

# The title and the bar labels of the kernel chart.
sub chart {
	my ($path) = @_;
	my $res = run_analyzer('--html', "$dir/r.html", $path);
	my ($c) = GtDump::slurp("$dir/r.html") =~ m{<div class="chart" id="chart-kernels">(.*?)</div>}s;

	is($res->{exit}, 0, "$path: exit 0") or diag($res->{err});
	return (($c // '') =~ m{<h3>(.*?)</h3>}, [($c // '') =~ m{<title>([^:<]+):}g]);
}

my $j = JSON::PP->new->decode(run_analyzer('--json', dump_of("$dir/gpu.bin", 1))->{out});
is_deeply([@{ $j->{gpu}{records} }{qw(orphans name_mismatch)}], [0, 0],
	  'each GPU record joined to its launch');
my ($title, $bars) = chart("$dir/gpu.bin");
like($title, qr/GPU time/, 'with GPU records: by GPU time');
is_deeply($bars, ['longrun', 'slowlaunch'], 'the kernel with the most GPU time first');

($title, $bars) = chart(dump_of("$dir/host.bin", 0));
like($title, qr/host launch time \(no GPU records/, 'without: says it ranks by host time');
is_deeply($bars, ['slowlaunch', 'longrun'], 'without: the longest launches first');
done_testing();
