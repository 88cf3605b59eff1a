#!/usr/bin/perl
# 610-nvtx-analyzer.t - the analyzer on NVTX, environment and sample
# records written by hand (GtDump), whose right answers are known: exact
# range times and kernels inside, an end that reaches the dump before its
# start (another thread's events came first), pops with nothing open,
# ranges left open, domains; utilization and CPU figures from samples;
# and broken records, which must fail cleanly (exit 2, one line).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);

plan skip_all => 'gputrace-analyze not built'
	unless -x GtDump::analyzer_path();

use constant {
	KIND_NVTX => 8, CHUNK_NVTX => 14, CHUNK_SAMPLE => 15, CHUNK_ENV => 16,
	PUSH => 1, POP => 2, R_START => 3, R_END => 4, MARK => 5, NAME_CAT => 6,
	SCOPE_HOST => 0xffffffff,
};

my $dir = tempdir(CLEANUP => 1);

sub nvtx_ops {
	my ($d) = @_;
	my %api = (PUSH, 'nvtxRangePush', POP, 'nvtxRangePop', R_START,
		   'nvtxRangeStart', R_END, 'nvtxRangeEnd', MARK, 'nvtxMark',
		   NAME_CAT, 'nvtxNameCategory');

	$d->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel');
	$d->op(op => 10 + $_, kind => KIND_NVTX, dir => $_, nargs => 4,
	       api => $api{$_}) for keys %api;
	$d->function(id => 1, name => '_Z1kv', handle => 0x10);
	$d->shape(id => 1, function => 1);
}

# An NVTX event: what, t0, message, domain, range, category.
sub ev {
	my ($d, $what, $t0, $msg, %o) = @_;

	return { op => 10 + $what, t0 => $t0,
		 args => [ $d->string($msg), $o{domain} // 0, $o{range} // 0,
			   $o{cat} // 0 ] };
}

sub launch { return { op => 1, t0 => $_[0], dur => 100, args => [1] } }

# GT_CHUNK_ENV / GT_CHUNK_SAMPLE: [key, status, value, text?] items.
sub info {
	my ($t, $scope, @items) = @_;
	my $p = pack('Q< V V', $t, $scope, scalar @items);

	for my $i (@items) {
		my $text = $i->[3] // '';
		$p .= pack('v v V q<', $i->[0], $i->[1] // 0, length($text),
			   $i->[2] // 0) . $text;
	}
	return $p;
}

sub analyze {
	my ($d, $name) = @_;
	my $path = $d->write("$dir/$name.bin");
	my $r = run_analyzer('--json', $path);

	is($r->{exit}, 0, "$name: exit 0") or diag($r->{err});
	return eval { JSON::PP->new->decode($r->{out}) } || {};
}

subtest 'ranges from recorded events' => sub {
	my $d = GtDump->new(pid => 1, start_ns => 0);
	nvtx_ops($d);
	$d->add_chunk(CHUNK_NVTX, pack('V4', 1, 7, $d->string('dom'), 0));
	# thread 2 ends range 5 before thread 1's chunk starts it
	$d->events(tid => 2, events => [ ev($d, R_END, 9000, undef, range => 5),
					  ev($d, POP, 9500, undef) ]);
	$d->events(tid => 1, events => [
		ev($d, PUSH, 1000, 'outer', cat => 3), launch(1100),
		ev($d, PUSH, 2000, 'inner'), launch(2100), launch(2200),
		ev($d, POP, 3000, undef), ev($d, POP, 5000, undef),
		ev($d, R_START, 6000, 'async', range => 5),
		ev($d, PUSH, 6500, 'inner', domain => 7),
		ev($d, POP, 7000, undef, domain => 7),
		ev($d, MARK, 7100, 'here'), ev($d, MARK, 7200, 'here'),
		ev($d, NAME_CAT, 7300, 'phase', cat => 3),
		ev($d, PUSH, 8000, 'open'),
		ev($d, R_START, 8100, 'never', range => 6),
	]);
	$d->end(end_ns => 10000);
	my $j = analyze($d, 'ranges');
	my %rows = map { ("$_->{name}/$_->{domain}" => $_) } @{ $j->{nvtx} };

	is_deeply([sort keys %rows], [qw(async/ inner/ inner/dom never/ open/ outer/)],
		  'one row per name and domain');
	is($rows{'outer/'}{wall_ns_total}, 4000, 'outer: 1000 to 5000');
	is($rows{'outer/'}{kernels}, 3, 'outer: 3 launches inside');
	is($rows{'outer/'}{category}, 3, 'outer: its category');
	is($rows{'inner/'}{wall_ns_total}, 1000, 'inner: 2000 to 3000');
	is($rows{'inner/'}{kernels}, 2, 'inner: 2 launches');
	is($rows{'inner/dom'}{wall_ns_total}, 500, 'a domain pops its own');
	is($rows{'async/'}{calls}, 1, 'an end that came before its start');
	is($rows{'async/'}{wall_ns_total}, 3000, 'still 6000 to 9000');
	is($rows{'open/'}{unclosed}, 1, 'a push never popped');
	is($rows{'never/'}{unclosed}, 1, 'a start never ended');
	is($rows{'open/'}{calls}, 0, 'is not counted as a call');
	is($j->{nvtx_info}{unmatched}, 1, "thread 2's pop matched nothing");
	is_deeply($j->{nvtx_info}{marks}, [{ name => 'here', domain => '', calls => 2 }],
		  'marks');
	is_deeply($j->{nvtx_info}{categories},
		  [{ domain => '', category => 3, name => 'phase' }], 'categories');
	is($rows{'outer/'}{gpu_active_ns}, 0, 'no GPU records: GPU active 0');
	ok(!$j->{nvtx_info}{gpu_known}, 'and said to be unknown');
	is($j->{events}, 17, 'NVTX events are events');
	is($j->{kernels}[0]{calls}, 3, 'launches still counted');
};

subtest 'environment and samples' => sub {
	my $d = GtDump->new(pid => 1, start_ns => 0);
	nvtx_ops($d);
	$d->add_chunk(CHUNK_ENV, info(0, SCOPE_HOST, [1, 0, 1], [2, 0, 0, '580.1'],
				      [3, 0, 12080], [6, 0, 16], [7, 0, 8, '0-7']));
	$d->add_chunk(CHUNK_ENV, info(0, 0, [32, 0, 0, 'NVIDIA H200'],
		[34, 0, 0x1800, '00000000:18:00.0'], [35, 0, 2**37], [36, 0, 90],
		[38, 0, 5], [40, 0, 16], [39, 0, 5], [41, 0, 16], [44, 1, 3]));
	$d->add_chunk(CHUNK_ENV, info(0, 0x40000000, [32, 0, 0, 'NVIDIA H200'],
		[37, 0, 132], [34, 0, 0x1800]));
	$d->add_chunk(CHUNK_ENV, info(0, SCOPE_HOST, [3, 0, 13000], [4, 0, 13000]));
	my $t = 0;
	for my $u (20, 40, 60, 80) {
		$t += 1_000_000_000;
		$d->add_chunk(CHUNK_SAMPLE, info($t, 0, [1, 0, $u], [5, 0, 0x5],
			[9, 0, 777], [10, 0, 1000], [11, 0, $u == 20 ? 0 : 5]));
		# 0.5 s of CPU per second, children 1 s; iowait 10% of 8 CPUs
		$d->add_chunk(CHUNK_SAMPLE, info($t, SCOPE_HOST,
			[32, 0, $t / 4], [33, 0, $t / 4], [34, 0, $t], [35, 0, 0],
			[36, 0, 2], [37, 0, 8 * $t], [38, 0, 0.8 * $t], [39, 0, 4 * $t]));
	}
	$d->end(end_ns => $t);
	my $e = analyze($d, 'env')->{env};

	is($e->{driver_version}, 13000, 'the later driver version wins');
	is($e->{runtime_version}, 13000, 'runtime version');
	is($e->{device}, 'NVIDIA H200', 'device');
	is($e->{sm_count}, 132, 'SMs from the CUDA side, matched by PCI address');
	is($e->{pcie_gen}, 5, 'PCIe');
	is($e->{ecc}, undef, 'ECC not supported: null');
	is($e->{samples}, 4, 'host samples');
	is($e->{util_mean}, 50, 'mean utilization of all samples');
	is_deeply($e->{throttle_reasons_seen}, ['gpu_idle', 'sw_power_cap'], 'reasons');
	is_deeply($e->{other_processes}, [{ device => 0, pid => 777, mem_bytes => 1000 }],
		  'other processes');
	ok(abs($e->{cpu}{process_cores} - 0.5) < 1e-9, 'process: 0.5 cores');
	ok(abs($e->{cpu}{children_cores} - 1) < 1e-9, 'children: 1 core');
	ok(abs($e->{cpu}{host_iowait} - 0.1) < 1e-9, 'host iowait 10%');
	is($e->{cpu}{children_max}, 2, 'children alive');
	my $j = analyze($d, 'env2');
	is($j->{gpu}{smi_util_mean}, 60, 'smi_util_mean: samples with this process on it');
};

# Broken records fail cleanly.
my %bad = (
	'nvtx record too short' => [CHUNK_NVTX, pack('V2', 1, 1)],
	'nvtx id 0' => [CHUNK_NVTX, pack('V4', 1, 0, 0, 0)],
	'nvtx name undefined' => [CHUNK_NVTX, pack('V4', 1, 1, 99, 0)],
	'env too short' => [CHUNK_ENV, pack('V2', 0, 0)],
	'env item past the end' => [CHUNK_ENV, pack('Q< V V', 0, 0, 1) .
				    pack('v v V q<', 32, 0, 100, 0) . 'short'],
	'env count too high' => [CHUNK_ENV, info(0, 0, [32, 0, 1]) . ''],
	'sample trailing bytes' => [CHUNK_SAMPLE, info(0, 0, [1, 0, 5]) . 'xx'],
);
${ $bad{'env count too high'} }[1] =~ s/^(.{12})\x01/${1}\x02/s;
for my $name (sort keys %bad) {
	my $d = GtDump->new(pid => 1);
	$d->add_chunk(@{ $bad{$name} });
	$d->end(end_ns => 10);
	my $r = run_analyzer($d->write("$dir/bad.bin"));

	is($r->{exit}, 2, "$name: exit 2");
	like($r->{err}, qr/^gputrace-analyze: '.*' is corrupt at byte \d+: \S.*\n\z/,
	     "$name: one line saying where") or diag($r->{err});
}

done_testing();
