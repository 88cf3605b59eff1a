#!/usr/bin/perl
# 110-cudart.t - the tracer on a program that reaches the driver the way
# libcudart does (dlopen, dlsym cuGetProcAddress_v2, lookups through the
# cuGetProcAddress it returns): exact launch, copy, memset and sync counts,
# bytes, host times, in every lookup flavour.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);

my ($N, $EVERY) = (20, 5);

for my $case (
	[ 'plain', [] ],
	[ '--ptsz (per-thread default stream variants)', ['--ptsz'] ],
	[ '--via-v1 (4-argument cuGetProcAddress)', ['--via-v1'] ],
	[ 'FAKE_CUDA_PROCADDR_INTERNAL=1', [], { FAKE_CUDA_PROCADDR_INTERNAL => 1 } ],
	[ '--dlsym (dlsym of each exported name)', ['--dlsym'] ],
	[ '--dlsym --ptsz', ['--dlsym', '--ptsz'] ],
	[ '--ptsz, internal addresses', ['--ptsz'],
	  { FAKE_CUDA_PROCADDR_INTERNAL => 1 } ],
	[ '--ptsz --via-v1, internal addresses', ['--ptsz', '--via-v1'],
	  { FAKE_CUDA_PROCADDR_INTERNAL => 1 } ],
) {
	my ($name, $args, $env) = @$case;

	subtest $name => sub {
		my $r = GtRun::run(['w_cudart', @$args, $N, $EVERY], env => $env);
		GtRun::check_main($r, $N, $EVERY, GtRun::SYNC_NS, GtRun::COPY_NS);
	};
}

subtest 'process, names, wall time' => sub {
	my $r = GtRun::run(['w_cudart', $N, $EVERY]);
	my $j = $r->{json} or return fail('no JSON: ' . GtRun::describe($r));
	my $k = GtRun::kernel($j, GtRun::K_VECADD);

	is($j->{format_version}, 1, 'format_version 1');
	is($j->{process}{pid}, $r->{pid}, 'process.pid is the workload');
	like($j->{process}{command} // '', qr/w_cudart/, 'process.command');
	is($k && $k->{name}, 'vecAdd(float*, float*, float*, int)',
	   'vecAdd is demangled');
	$k = GtRun::kernel($j, GtRun::K_SCALE);
	is($k && $k->{name}, 'scale(float*, int, float)', 'scale is demangled');
	my $waits = 0;
	$waits += GtRun::sync($j, $_)->{ns}
		for qw(cuStreamSynchronize cuCtxSynchronize cuEventSynchronize);
	cmp_ok($j->{wall_ns}, '>=', $waits, 'wall_ns covers the sync waits');
	for my $k (GtRun::rows($j, 'kernels')) {
		ok($k->{launch_ns_p50} <= $k->{launch_ns_p99},
		   "$k->{symbol}: p50 <= p99");
		ok($k->{launch_ns_p99} <= $k->{launch_ns_total},
		   "$k->{symbol}: p99 <= total");
	}
};

subtest 'FAKE_CUDA_LAUNCH_NS: launch times' => sub {
	my $ns = 200_000;
	my $r = GtRun::run(['w_cudart', 10, 5],
			   env => { FAKE_CUDA_LAUNCH_NS => $ns,
				    FAKE_CUDA_SYNC_NS => 0,
				    FAKE_CUDA_COPY_NS => 0 });
	my $j = $r->{json} or return fail('no JSON: ' . GtRun::describe($r));

	for my $sym (GtRun::K_VECADD, GtRun::K_SCALE, GtRun::K_REDUCE) {
		my $k = GtRun::kernel($j, $sym) or next;
		cmp_ok($k->{launch_ns_total}, '>=', $k->{calls} * $ns,
		       "$sym launch_ns_total");
		cmp_ok($k->{launch_ns_p50}, '>=', $ns, "$sym p50");
		cmp_ok($k->{launch_ns_p99}, '>=', $ns, "$sym p99");
	}
	my $fake = GtRun::fake_ns($r, qw(cuLaunchKernel cuLaunchKernelEx
					 cuLaunchCooperativeKernel));
	my $traced = GtRun::total($j, 'kernels')->{ns};
	cmp_ok($traced, '>=', $fake, 'launch_ns_total >= the fake\'s time');
	cmp_ok($traced, '<=', $fake * 1.3 + 100_000,
	       'launch_ns_total within 30% of the fake\'s time');
	cmp_ok(GtRun::total($j, 'graphs')->{ns}, '>=', $ns, 'graph launch time');
};

subtest 'the CUDA 2.0 cuMemcpyHtoD passes through untouched' => sub {
	my $r = GtRun::run(['w_cudart', '--old', 5, 5]);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is($r->{counts}{cuMemcpyHtoD}, 1,
	   'cuMemcpyHtoD (version 2000) reached the driver as itself');
	is($r->{counts}{cuMemcpyHtoD_v2}, 5,
	   'and not as cuMemcpyHtoD_v2');
};

subtest 'legacy and per-thread variants of one name in one process' => sub {
	my $n = 5;

	for my $mode ([], ['--via-v1'], ['--ptsz']) {
		my $r = GtRun::run(['w_cudart', '--mixed', @$mode, $n, $n]);
		my $c = $r->{counts};
		my $j = $r->{json};
		my $pt = "@$mode" eq '--ptsz';
		my $what = "--mixed @$mode";

		is($r->{exit}, 0, "$what: exits 0") or diag(GtRun::describe($r));
		is($c->{cuLaunchKernel}, $pt ? 1 : 2 * $n + 1,
		   "$what: cuLaunchKernel reached the driver as itself");
		is($c->{cuLaunchKernel_ptsz}, $pt ? 2 * $n + 1 : 1,
		   "$what: cuLaunchKernel_ptsz too");
		is($c->{cuMemcpyHtoD_v2_ptds}, $pt ? $n + 1 : 1,
		   "$what: cuMemcpyHtoD_v2_ptds");
		is($c->{cuStreamSynchronize_ptsz}, $pt ? $n + 1 : 1,
		   "$what: cuStreamSynchronize_ptsz");
		ok($j, "$what: the analyzer read the dump") or next;
		my $k = GtRun::kernel($j, GtRun::K_VECADD);
		is($k && $k->{calls}, 2 * $n + 2, "$what: vecAdd launches");
		my $t = GtRun::copy($j, 'cuMemcpyHtoD', 'HtoD', 0);
		is($t->{calls}, $n + 2, "$what: cuMemcpyHtoD calls");
		is($t->{bytes}, ($n + 2) * GtRun::HTOD_BYTES,
		   "$what: cuMemcpyHtoD bytes");
		is(GtRun::sync($j, 'cuStreamSynchronize')->{calls}, $n + 2,
		   "$what: cuStreamSynchronize calls");
		GtRun::check_totals($r);
	}
};

subtest 'CUDA_ERROR_NOT_READY from queries comes back' => sub {
	my $r = GtRun::run(['w_cudart', '-v', 3, 3],
			   env => { FAKE_CUDA_QUERY_NOT_READY => 1 });

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	like($r->{stdout}, qr/not_ready 2$/m,
	     'both queries returned CUDA_ERROR_NOT_READY to the program');
	is(GtRun::sync($r->{json}, 'cuStreamQuery')->{calls}, 1, 'cuStreamQuery');
	is(GtRun::sync($r->{json}, 'cuEventQuery')->{calls}, 1, 'cuEventQuery');
};

subtest 'the exit status is the program\'s' => sub {
	for my $code (0, 7, 255) {
		my $r = GtRun::run(['w_cudart', "--exit=$code", 2, 1]);
		is($r->{exit}, $code, "exit $code");
		is($r->{signal}, 0, 'no signal');
		ok($r->{line}, 'the gputrace: wrote line is there');
		ok($r->{json} && $r->{json}{events} > 0, 'the dump has events');
	}
};

done_testing();
