#!/usr/bin/perl
# 160-safety.t - the tracer must not change what programs see: a program
# without CUDA runs as before, dlsym of other names behaves as without the
# tracer, cuGetProcAddress answers (failures and untraced names included)
# pass through, and the exit status is the program's.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);

subtest 'w_nocuda' => sub {
	my $r = GtRun::run(['w_nocuda']);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is($r->{stdout}, "w_nocuda ok 1048576\n", 'its output is unchanged');
	unlike($r->{stderr}, qr/error|fail/i, 'no complaint on stderr');
	if (@{$r->{dumps}}) {
		ok($r->{json}, 'a dump, if any, is readable')
			or diag($r->{analyze_err});
		is($r->{json} && $r->{json}{events}, 0, 'and has no events');
	} else {
		pass('no dump');
	}
	$r = GtRun::run(['w_nocuda', 9]);
	is($r->{exit}, 9, 'its exit status is kept');
};

subtest 'w_dlsym_other' => sub {
	my $r = GtRun::run(['w_dlsym_other']);
	my @checks = grep { /^(ok|FAIL) / } split /\n/, $r->{stdout};

	is($r->{signal}, 0, 'no crash') or diag(GtRun::describe($r));
	cmp_ok(scalar(@checks), '>=', 30, 'it ran all its checks');
	for (@checks) {
		my ($res, $what) = /^(ok|FAIL) (.*)$/;
		ok($res eq 'ok', $what);
	}
	is($r->{exit}, 0, 'exits 0');
};

# cuGetProcAddress answers seen through the tracer: "rc status lib".
my @pass = (
	[ ':0:0', 'rc=500 status=1 lib=-' ],
	[ 'cuLaunchKernel:3000', 'rc=500 status=2 lib=-' ],
	[ 'cuMemcpyBatchAsync:12060', 'rc=500 status=2 lib=-' ],
	[ 'cuNoSuchThing:13000', 'rc=500 status=1 lib=-' ],
	[ 'cuLaunchKernel:4000:4', 'rc=1 ' ],
	[ 'cuDeviceGetCount:2000', 'rc=0 status=0 lib=libcuda.so.1 sym=cuDeviceGetCount' ],
	[ 'cuDriverGetVersion:2020', 'rc=0 status=0 lib=libcuda.so.1 sym=cuDriverGetVersion value=13000' ],
	[ 'cuLaunchKernel:4000', 'rc=0 status=0 lib=' ],
	[ 'cuMemcpyHtoD:2000', 'rc=0 status=0 lib=' ],
);

subtest 'cuGetProcAddress results pass through' => sub {
	for my $via (0, 11030, 12000) {
		my $r = GtRun::run(['w_procaddr', $via ? "--via=$via" : (),
				    map { $_->[0] } @pass]);
		my @lines = split /\n/, $r->{stdout};

		is($r->{exit}, 0, "w_procaddr --via=$via exits 0")
			or diag(GtRun::describe($r));
		for my $i (0 .. $#pass) {
			my ($q, $want) = @{$pass[$i]};
			$want =~ s/status=\d+/status=-1/ if $via && $via < 12000;
			like($lines[$i] // '', qr/\Q$want\E/, "via $via: $q");
		}
	}
};

subtest 'lookups wrapped by the tracer still work before cuInit' => sub {
	my $r = GtRun::run(['w_procaddr', 'cuInit:2000', 'cuGetProcAddress:12000',
			    'cuGetProcAddress:11030']);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	like($r->{stdout}, qr/^cuInit 2000 0 rc=0 status=0/m, 'cuInit found');
	like($r->{stdout}, qr/^cuGetProcAddress 12000 0 rc=0 status=0/m,
	     'cuGetProcAddress at 12000 found');
	like($r->{stdout}, qr/^cuGetProcAddress 11030 0 rc=0 status=0/m,
	     'cuGetProcAddress at 11030 found');
};

subtest 'a dump that cannot be written does not hurt the program' => sub {
	my $r = GtRun::run(['w_cudart', '-v', '--exit=4', 3, 1],
			   output => '/nonexistent-gputrace-dir/t-%p.bin');

	is($r->{exit}, 4, 'its exit status is kept');
	is($r->{signal}, 0, 'no crash');
	like($r->{stdout}, qr/^iters 3 /m, 'it ran to the end');
	# 3 iterations of 10 traced calls (ctx sync each time), 9 in the tail
	is(GtRun::traced_calls($r->{counts}), 3 * 10 + 9,
	   'every call still reached the driver');
};

subtest 'exit status kept with failing queries and with -lcuda' => sub {
	my $r = GtRun::run(['w_cudart', '--exit=3', 1, 1],
			   env => { FAKE_CUDA_QUERY_NOT_READY => 1 });
	is($r->{exit}, 3, 'exit 3');
	$r = GtRun::run(['w_direct', '--exit=5', 1, 1]);
	is($r->{exit}, 5, 'exit 5 (direct)');
};

done_testing();
