#!/usr/bin/perl
# 620-env.t - the environment and the sampler against a fake NVML
# (build/test/fake_nvml): the facts it gives arrive in "env", samples
# arrive with the utilization, throttle reasons and other processes it
# gives (this process left out), CPU use of the process and its children
# is measured; and a missing or failing NVML, answers of "not supported",
# sampling off and a bad setting all leave the run whole and say so.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;
use Time::HiRes qw(time);

use GtRun;

GtRun::require_built(tracer => 1);
my $NVML = GtRun::build_dir() . '/test/fake_nvml';
plan skip_all => 'fake NVML or w_nvtx_env not built'
	unless -e "$NVML/libnvidia-ml.so.1" && -x GtRun::workload('w_nvtx_env');

# w_nvtx_env MS CHILDREN with NVML (the fake) or without it.
sub run_env {
	my ($args, %env) = @_;
	my $nvml = exists $env{NVML} ? delete $env{NVML} : 1;

	return GtRun::run(['w_nvtx_env', @$args], env => {
		LD_LIBRARY_PATH => GtRun::fake_dir() . ($nvml ? ":$NVML" : ''),
		NVTX_INJECTION64_PATH => undef,
		(map { $_ => undef } grep { /^FAKE_NVML_/ } keys %ENV),
		%env,
	});
}

sub only_wrote_line {
	my ($r) = @_;
	my @lines = grep { /gputrace/ } split /\n/, $r->{stderr};

	is(scalar(@lines), 1, 'one gputrace line on stderr') or diag($r->{stderr});
}

subtest 'facts and samples from NVML' => sub {
	my $r = run_env([400, 2], GPUTRACE_SAMPLE_MS => 20,
		FAKE_NVML_DEVICES => 2, FAKE_NVML_NAME => 'NVIDIA Fake H200',
		FAKE_NVML_UTIL => 42, FAKE_NVML_REASONS => '44',
		FAKE_NVML_PROCS => 'self:1048576,4242:2097152',
		FAKE_NVML_PCIE => '4,5,8,16', FAKE_NVML_NVLINK => 3);
	my $j = $r->{json};

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($j, 'the analyzer read the dump') or return;
	my $e = $j->{env};
	is($e->{nvml}, 'ok', 'NVML ok');
	is($e->{driver_version}, 13000, 'driver version');
	is($e->{driver_release}, '580.95.05', 'driver release');
	is($e->{device}, 'NVIDIA Fake H200', 'device name');
	is($e->{memory_bytes}, 150 * 2**30, 'memory');
	is($e->{compute_capability}, '9.0', 'compute capability');
	is_deeply([@$e{qw(pcie_gen pcie_gen_max pcie_width pcie_width_max)}],
		  [4, 5, 8, 16], 'PCIe link now and at most');
	is($e->{nvlink_active}, 3, 'NVLink links up');
	ok($e->{ecc} && $e->{persistence}, 'ECC and persistence on');
	is_deeply($e->{throttle_reasons_seen}, ['sw_power_cap', 'hw_thermal_slowdown'],
		  'throttle reasons seen');
	my @pids = map { $_->{pid} } @{ $e->{other_processes} };
	is_deeply(\@pids, [4242, 4242], 'the other process, on both GPUs');
	is($e->{other_processes}[0]{mem_bytes}, 2097152, 'with its memory');
	cmp_ok($e->{samples}, '>=', 5, 'host samples taken');
	cmp_ok($e->{gpu_samples}, '>=', 5, 'GPU samples taken');
	is($e->{util_mean}, 42, 'utilization of the GPU');
	is($j->{gpu}{smi_util_mean}, 42, 'gpu.smi_util_mean');
	is(scalar(@{ $e->{devices} }), 2, 'both devices');
	is_deeply($e->{devices}[0]{topology}, [{ to => 1, link => 'PIX' }],
		  'their topology');
	ok($e->{devices}[1]{used}, 'this process seen on them');
	chomp(my $nproc = qx{getconf _NPROCESSORS_ONLN});
	is($e->{cpu_cores}, $nproc, 'CPU cores');
	cmp_ok($e->{cpu_affinity}, '>=', 1, 'CPUs this process may use');
	# how much CPU a loaded machine gives the run is not the tracer's: the
	# figures are there, above 0 and within the machine's cores
	for my $who (qw(process children)) {
		my $v = $e->{cpu}{"${who}_cores"};
		ok(defined $v && $v > 0 && $v <= $nproc * 1.05,
		   "CPU use of the $who: above 0, within $nproc cores")
			or diag('got ' . ($v // 'null'));
	}
	is($e->{cpu}{children_max}, 2, 'both children seen alive');
	is($e->{sample_ms}, 20, 'the interval');
	only_wrote_line($r);

	my $out = qx{'${\ GtRun::analyzer()}' '$r->{dump}'};
	like($out, qr/^Environment\n/m, 'text: environment');
	like($out, qr/GPU 0: NVIDIA Fake H200/, 'text: the device');
	like($out, qr/nvidia-smi utilization 42% mean/, 'text: utilization');
	like($out, qr/clocks held down: sw_power_cap 100%/, 'text: throttling');
	like($out, qr/other processes: pid 4242/, 'text: other processes');
};

subtest 'answers of "not supported"' => sub {
	my $r = run_env([100, 0], GPUTRACE_SAMPLE_MS => 20, FAKE_NVML_UTIL => 10,
		FAKE_NVML_UNSUPPORTED => 'pcie,power,temp,ecc,reasons,procs,nvlink');
	my $e = $r->{json} && $r->{json}{env};

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($e, 'env') or return;
	is($e->{$_}, undef, "$_ is null") for qw(pcie_gen pcie_width ecc
		nvlink_active power_mean_w temp_max_c);
	is_deeply($e->{throttle_reasons_seen}, [], 'no throttle reasons');
	is_deeply($e->{other_processes}, [], 'no processes');
	is($e->{util_mean}, 10, 'utilization still there');
};

subtest 'NVML missing' => sub {
	my $r = run_env([100, 0], NVML => 0, GPUTRACE_SAMPLE_MS => 20);
	my $j = $r->{json};

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($j, 'the analyzer read the dump') or return;
	is($j->{env}{nvml}, 'missing', 'env says NVML was missing');
	is($j->{gpu}{smi_util_mean}, undef, 'no utilization');
	is_deeply($j->{env}{devices}, [], 'no NVML devices');
	cmp_ok($j->{env}{samples}, '>=', 2, 'host samples still taken');
	cmp_ok($j->{env}{cpu_cores}, '>=', 1, 'and host facts');
	only_wrote_line($r);
	my $out = qx{'${\ GtRun::analyzer()}' '$r->{dump}'};
	like($out, qr/NVML missing: no GPU facts or samples/, 'the report says so');
};

subtest 'nvmlInit fails' => sub {
	my $r = run_env([50, 0], FAKE_NVML_INIT_ERROR => 9);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is($r->{json} && $r->{json}{env}{nvml}, 'failed', 'env says NVML failed');
	only_wrote_line($r);
};

subtest 'sampling off' => sub {
	my $r = run_env([100, 0], GPUTRACE_SAMPLE_MS => 0, FAKE_NVML_UTIL => 50);
	my $e = $r->{json} && $r->{json}{env};

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is($e && $e->{samples}, 0, 'no host samples');
	is($e && $e->{gpu_samples}, 0, 'no GPU samples');
	is($e && $e->{device}, 'NVIDIA Fake GPU', 'the environment is still there');
	is($e && $e->{sample_ms}, 0, 'and says sampling was off');
};

subtest 'a bad GPUTRACE_SAMPLE_MS' => sub {
	my $r = run_env([50, 0], GPUTRACE_SAMPLE_MS => 'often');

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	like($r->{stderr}, qr/ignoring GPUTRACE_SAMPLE_MS='often'/, 'says so');
	is($r->{json} && $r->{json}{env}{sample_ms}, 100, 'the default is used');
};

subtest 'a short run exits at once' => sub {
	# a period of 60 s: a sampler that held the exit would hold it for
	# about that long, far beyond what a loaded machine adds to a run
	my $t0 = time();
	my $r = run_env([0, 0], GPUTRACE_SAMPLE_MS => 60000);
	my $took = time() - $t0;

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	cmp_ok($took, '<', 30, 'the sampler does not hold the exit');
	cmp_ok($r->{json} && $r->{json}{env}{samples}, '>=', 1,
	       'the last sample is taken at exit');
};

done_testing();
