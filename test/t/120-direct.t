#!/usr/bin/perl
# 120-direct.t - the tracer on programs linked with -lcuda that call the
# driver by name (symbol interposition), with the legacy and the
# per-thread default stream (-DCUDA_API_PER_THREAD_DEFAULT_STREAM: _ptsz
# and _ptds symbols).  Same op sequence and expectations as 110-cudart.t.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);

my ($N, $EVERY) = (20, 5);

for my $w (qw(w_direct w_direct_ptsz)) {
	subtest $w => sub {
		my $r = GtRun::run([$w, $N, $EVERY]);
		GtRun::check_main($r, $N, $EVERY, GtRun::SYNC_NS, GtRun::COPY_NS);
	};
}

subtest 'w_direct_ptsz called the per-thread symbols' => sub {
	my $r = GtRun::run(['w_direct_ptsz', 2, 1]);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is($r->{counts}{cuLaunchKernel_ptsz}, 4, 'cuLaunchKernel_ptsz');
	is($r->{counts}{cuMemcpyHtoD_v2_ptds}, 2, 'cuMemcpyHtoD_v2_ptds');
	is($r->{counts}{cuLaunchKernel}, undef, 'not cuLaunchKernel');
	is(GtRun::kernel($r->{json}, GtRun::K_VECADD)->{calls}, 4,
	   'and the tracer counted them as launches of vecAdd');
};

subtest 'the exit status is the program\'s' => sub {
	my $r = GtRun::run(['w_direct', '--exit=42', 1, 1]);

	is($r->{exit}, 42, 'exit 42');
	ok($r->{line}, 'the gputrace: wrote line is there');
};

done_testing();
