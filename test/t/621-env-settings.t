#!/usr/bin/perl
# 621-env-settings.t - the settings a traced program was started with, on
# the fake driver: CUDA_LAUNCH_BLOCKING, CUDA_MODULE_LOADING, NCCL_* and
# the thread counts arrive in the dump, in the JSON's env.settings and in
# the text report's Environment section; variables not watched, or not
# set, do not; a long value is cut, not lost.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);

my @watched = qw(CUDA_LAUNCH_BLOCKING CUDA_MODULE_LOADING
		 CUDA_DEVICE_MAX_CONNECTIONS CUDA_VISIBLE_DEVICES
		 OMP_NUM_THREADS MKL_NUM_THREADS);

# w_direct under env, with none of the watched variables but those given.
sub run_with {
	my (%env) = @_;

	return GtRun::run(['w_direct', 20], env => {
		(map { $_ => undef } @watched, grep { /^NCCL_/ } keys %ENV),
		%env,
	});
}

{
	my $long = 'x' x 400;
	my $r = run_with(CUDA_LAUNCH_BLOCKING => 1, CUDA_MODULE_LOADING => 'EAGER',
			 NCCL_P2P_DISABLE => 1, NCCL_DEBUG => 'WARN',
			 OMP_NUM_THREADS => 4, NCCL_SOCKET_IFNAME => $long,
			 NCCLX_NOT_THIS => 1, CUDA_CACHE_PATH => '/tmp');
	my $j = $r->{json};

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($j, 'the analyzer read the dump') or diag($r->{analyze_err});
	my $s = $j ? $j->{env}{settings} : undef;
	is(ref $s, 'HASH', 'env.settings is an object') or return;
	is($s->{CUDA_LAUNCH_BLOCKING}, '1', 'CUDA_LAUNCH_BLOCKING');
	is($s->{CUDA_MODULE_LOADING}, 'EAGER', 'CUDA_MODULE_LOADING');
	is($s->{NCCL_P2P_DISABLE}, '1', 'NCCL_P2P_DISABLE');
	is($s->{NCCL_DEBUG}, 'WARN', 'NCCL_DEBUG');
	is($s->{OMP_NUM_THREADS}, '4', 'OMP_NUM_THREADS');
	is($s->{NCCL_SOCKET_IFNAME}, substr($long, 0, 255 - length('NCCL_SOCKET_IFNAME=')),
	   'a long value is cut at 255 bytes of NAME=value');
	ok(!exists $s->{$_}, "$_ not recorded")
		for qw(NCCLX_NOT_THIS CUDA_CACHE_PATH MKL_NUM_THREADS CUDA_VISIBLE_DEVICES);
	is(scalar keys %$s, 6, 'six settings');

	my $out = qx{'${\ GtRun::analyzer()}' '$r->{dump}'};
	my ($line) = $out =~ /^  settings: (.*(?:\n      .*)*)/m;
	$line = join(' ', split /\n\s*/, $line // '');
	like($line, qr/\bCUDA_LAUNCH_BLOCKING=1\b/, 'the text report shows CUDA_LAUNCH_BLOCKING=1');
	like($line, qr/\bNCCL_P2P_DISABLE=1\b/, 'and NCCL_P2P_DISABLE=1');
	like($line, qr/\bNCCL_SOCKET_IFNAME=x+\.\.\./, 'a long one cut with "..."');
	ok(!grep({ length > 100 } split /\n/, $out), 'the report keeps to 100 columns');
	like($out, qr/^  note: CUDA_MODULE_LOADING=EAGER/m, 'and the note on EAGER');
}

{
	my $r = run_with();
	my $j = $r->{json};

	is($r->{exit}, 0, 'none set: exits 0') or diag(GtRun::describe($r));
	is_deeply($j && $j->{env}{settings}, {}, 'none set: env.settings is {}');
}

done_testing();
