#!/usr/bin/perl
# 100-fake.t - the fake driver and the workloads alone, without the tracer:
# exported names, soname, cuGetProcAddress answers, durations and counts.
# Everything the tracer tests take as given is checked here first.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Time::HiRes qw(time);
use Test::More;

use GtRun;

GtRun::require_built();

my $fake = GtRun::fake_dir() . '/libcuda.so.1';
my $stub = ($ENV{CUDA_HOME} || '/usr/local/cuda') . '/lib64/stubs/libcuda.so';

sub dynsyms {
	my ($path) = @_;
	my %s;

	for (qx{nm -D --defined-only '$path' 2>/dev/null}) {
		$s{$1} = 1 if /\s[TtWi]\s+(\S+)$/;
	}
	return \%s;
}

subtest 'exports' => sub {
	my $have = dynsyms($fake);
	# fake_driver_set_tool: where the fake CUPTI hooks in, as CUPTI does
	# into the real driver through cuGetExportTable.
	my @ours = sort grep { $_ ne 'fake_driver_set_tool' } keys %$have;

	like(qx{readelf -d '$fake'}, qr/SONAME.*\[libcuda\.so\.1\]/,
	     'soname is libcuda.so.1');
	ok(-l GtRun::fake_dir() . '/libcuda.so', 'libcuda.so links to it');
	is_deeply([grep { !/^cu/ } @ours], [], 'exports cu* names only (and the hook)');
	for my $sym (GtRun::traced_symbols(), qw(cuGetProcAddress
		     cuGetProcAddress_v2 cuInit cuDriverGetVersion cuFuncGetName
		     cuKernelGetName cuEventRecord_ptsz)) {
		ok($have->{$sym}, "exports $sym") or last;
	}
	SKIP: {
		skip "no $stub", 1 unless -e $stub;
		my $real = dynsyms($stub);
		is_deeply([grep { !$real->{$_} } @ours], [],
			  'every export is a name the real driver exports');
	}
};

# "NAME VERSION FLAGS" => "rc status symbol" (symbol "-" for NULL).
my @procaddr = (
	[ ':0:0', 500, 1, '-' ],
	[ 'cuInit:2000', 0, 0, 'cuInit' ],
	[ 'cuLaunchKernel:4000', 0, 0, 'cuLaunchKernel' ],
	[ 'cuLaunchKernel:7000:2', 0, 0, 'cuLaunchKernel_ptsz' ],
	[ 'cuLaunchKernel:7000:1', 0, 0, 'cuLaunchKernel' ],
	[ 'cuLaunchKernel:3000', 500, 2, '-' ],
	[ 'cuMemcpyHtoD:2000', 0, 0, 'cuMemcpyHtoD' ],
	[ 'cuMemcpyHtoD:3020', 0, 0, 'cuMemcpyHtoD_v2' ],
	[ 'cuMemcpyHtoD:7000:2', 0, 0, 'cuMemcpyHtoD_v2_ptds' ],
	[ 'cuMemcpyHtoDAsync:7000:2', 0, 0, 'cuMemcpyHtoDAsync_v2_ptsz' ],
	[ 'cuMemsetD8Async:3020', 0, 0, 'cuMemsetD8Async' ],
	[ 'cuMemsetD8Async:7000:2', 0, 0, 'cuMemsetD8Async_ptsz' ],
	[ 'cuCtxSynchronize:2000', 0, 0, 'cuCtxSynchronize' ],
	[ 'cuCtxSynchronize:12090', 0, 0, 'cuCtxSynchronize' ],
	[ 'cuCtxSynchronize:13000', 0, 0, 'cuCtxSynchronize_v2' ],
	[ 'cuCtxSynchronize:13000:2', 0, 0, 'cuCtxSynchronize_v2' ],
	[ 'cuMemcpyBatchAsync:12080', 0, 0, 'cuMemcpyBatchAsync' ],
	[ 'cuMemcpyBatchAsync:12080:2', 0, 0, 'cuMemcpyBatchAsync_ptsz' ],
	[ 'cuMemcpyBatchAsync:13000', 0, 0, 'cuMemcpyBatchAsync_v2' ],
	[ 'cuMemcpyBatchAsync:13000:2', 0, 0, 'cuMemcpyBatchAsync_v2_ptsz' ],
	[ 'cuMemcpyBatchAsync:12060', 500, 2, '-' ],
	[ 'cuGetProcAddress:11030', 0, 0, 'cuGetProcAddress' ],
	[ 'cuGetProcAddress:12000', 0, 0, 'cuGetProcAddress_v2' ],
	[ 'cuGetProcAddress:13000:2', 0, 0, 'cuGetProcAddress_v2' ],
	[ 'cuNoSuchThing:13000', 500, 1, '-' ],
	[ 'cuMemcpyHtoD_v2:13000', 500, 1, '-' ],
	[ 'cuEventSynchronize:2000:2', 0, 0, 'cuEventSynchronize' ],
	[ 'cuStreamQuery:7000:2', 0, 0, 'cuStreamQuery_ptsz' ],
);

sub procaddr_lines {
	my ($r) = @_;
	my %got;

	for (split /\n/, $r->{stdout}) {
		my @f = split / /;
		$got{"$f[0]:$f[1]:$f[2]"} = $_;
	}
	return \%got;
}

sub query_key {
	my ($q) = @_;
	my ($name, $ver, $flags) = split /:/, $q;

	return ($name eq '' ? "''" : $name) . ":$ver:" . ($flags // 0);
}

subtest 'cuGetProcAddress before cuInit' => sub {
	my $r = GtRun::run(['w_procaddr', map { $_->[0] } @procaddr], trace => 0);
	my $got = procaddr_lines($r);

	is($r->{exit}, 0, 'w_procaddr exits 0') or diag(GtRun::describe($r));
	for my $p (@procaddr) {
		my ($q, $rc, $st, $sym) = @$p;
		my $line = $got->{query_key($q)} // '';
		my $lib = $sym eq '-' ? '-' : 'libcuda.so.1';
		like($line, qr/ rc=$rc status=$st lib=\Q$lib\E sym=\Q$sym\E$/,
		     "$q -> $sym");
	}
};

subtest 'FAKE_CUDA_PROCADDR_INTERNAL=1 hands out other addresses' => sub {
	my @q = grep { $_->[1] == 0 } @procaddr;
	my $r = GtRun::run(['w_procaddr', '--init', map { $_->[0] } @q],
			   trace => 0,
			   env => { FAKE_CUDA_PROCADDR_INTERNAL => 1 });
	my $got = procaddr_lines($r);

	is($r->{exit}, 0, 'w_procaddr exits 0') or diag(GtRun::describe($r));
	for my $p (@q) {
		like($got->{query_key($p->[0])} // '',
		     qr/ rc=0 status=0 lib=libcuda\.so\.1 sym=\?$/,
		     "$p->[0] is not an exported address");
	}
	$r = GtRun::run(['w_procaddr', '--via=11030', 'cuDriverGetVersion:2020'],
			trace => 0, env => { FAKE_CUDA_PROCADDR_INTERNAL => 1 });
	like($r->{stdout}, qr/rc=0 status=-1 .* sym=\? value=13000$/,
	     'the internal functions work (through the 4-argument one)');
};

subtest 'w_cudart: counts and durations' => sub {
	for my $mode ([], ['--ptsz'], ['--via-v1'], ['--old'], ['--dlsym']) {
		my $t0 = time();
		my $r = GtRun::run(['w_cudart', @$mode, 10, 5], trace => 0);
		my $dt = time() - $t0;
		my $c = $r->{counts};
		my $pt = "@$mode" eq '--ptsz';
		my $name = "w_cudart @$mode";

		is($r->{exit}, 0, "$name exits 0") or diag(GtRun::describe($r));
		is($c->{$pt ? 'cuLaunchKernel_ptsz' : 'cuLaunchKernel'}, 20,
		   "$name: cuLaunchKernel");
		is($c->{$pt ? 'cuMemcpyHtoD_v2_ptds' : 'cuMemcpyHtoD_v2'}, 10,
		   "$name: cuMemcpyHtoD_v2");
		is($c->{$pt ? 'cuStreamSynchronize_ptsz' : 'cuStreamSynchronize'},
		   10, "$name: cuStreamSynchronize");
		is($c->{cuCtxSynchronize_v2}, 2, "$name: cuCtxSynchronize_v2");
		is($c->{cuCtxSynchronize}, 1, "$name: cuCtxSynchronize");
		is($c->{cuMemcpyHtoD}, ("@$mode" eq '--old' ? 1 : undef),
		   "$name: the CUDA 2.0 cuMemcpyHtoD");
		if ("@$mode" eq '--dlsym') {
			ok(!$c->{cuGetProcAddress_v2}, "$name: no cuGetProcAddress");
		} else {
			my $gpa = 'cuGetProcAddress' .
				("@$mode" eq '--via-v1' ? '' : '_v2');
			cmp_ok($c->{$gpa} // 0, '>', 20,
			       "$name: looked up through $gpa");
		}
		# 13 host syncs of 2 ms, 21 sync copies of 1 ms
		cmp_ok($dt, '>=', 0.047, "$name took the fake's time");
	}
};

subtest 'w_cudart: knobs' => sub {
	my $t0 = time();
	my $r = GtRun::run(['w_cudart', 5], trace => 0,
			   env => { FAKE_CUDA_SYNC_NS => 20_000_000,
				    FAKE_CUDA_COPY_NS => 0 });
	cmp_ok(time() - $t0, '>=', 0.16, 'FAKE_CUDA_SYNC_NS is obeyed');
	$r = GtRun::run(['w_cudart', '-v', '--exit=3', 2], trace => 0,
			env => { FAKE_CUDA_QUERY_NOT_READY => 1 });
	is($r->{exit}, 3, '--exit=3');
	like($r->{stdout}, qr/not_ready 2$/m, 'FAKE_CUDA_QUERY_NOT_READY=1');
};

subtest 'w_direct and w_direct_ptsz' => sub {
	my $r = GtRun::run(['w_direct', 4, 2], trace => 0);
	is($r->{exit}, 0, 'w_direct exits 0') or diag(GtRun::describe($r));
	is($r->{counts}{cuLaunchKernel}, 8, 'cuLaunchKernel by name');
	is($r->{counts}{cuMemcpyHtoD_v2}, 4, 'cuMemcpyHtoD is cuMemcpyHtoD_v2');
	ok(!$r->{counts}{cuGetProcAddress_v2}, 'no cuGetProcAddress');

	$r = GtRun::run(['w_direct_ptsz', 4, 2], trace => 0);
	is($r->{exit}, 0, 'w_direct_ptsz exits 0') or diag(GtRun::describe($r));
	is($r->{counts}{cuLaunchKernel_ptsz}, 8, 'cuLaunchKernel_ptsz');
	is($r->{counts}{cuMemcpyHtoD_v2_ptds}, 4, 'cuMemcpyHtoD_v2_ptds');
	is($r->{counts}{cuStreamSynchronize_ptsz}, 4, 'cuStreamSynchronize_ptsz');
	ok(!$r->{counts}{cuLaunchKernel}, 'no legacy-stream launch');
};

subtest 'other workloads' => sub {
	my $r = GtRun::run(['w_threads', 6, 50], trace => 0,
			   env => { FAKE_CUDA_SYNC_NS => 10000 });
	is($r->{exit}, 0, 'w_threads exits 0') or diag(GtRun::describe($r));
	is($r->{counts}{cuLaunchKernel}, 300, 'w_threads: 6 * 50 launches');
	is($r->{counts}{cuStreamSynchronize}, 250, 'w_threads: 5 * 50 syncs');

	$r = GtRun::run(['w_copies'], trace => 0);
	is($r->{exit}, 0, 'w_copies exits 0') or diag(GtRun::describe($r));
	is(GtRun::traced_calls($r->{counts}), 38, 'w_copies: 38 calls');

	$r = GtRun::run(['w_nocuda'], trace => 0);
	is($r->{exit}, 0, 'w_nocuda exits 0');
	is_deeply($r->{counts}, {}, 'w_nocuda: no driver calls');

	$r = GtRun::run(['w_dlsym_other'], trace => 0);
	is($r->{exit}, 0, 'w_dlsym_other exits 0') or diag($r->{stdout});
};

done_testing();
