#!/usr/bin/perl
# 130-copies.t - every copy and memset entry point once (w_copies), each
# with its own size: the api name, direction, async flag and bytes the
# analyzer gives each, in both the legacy and the per-thread variants.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);

# api, accepted directions, async, bytes (w_copies.c).
my @copies = (
	[ 'cuMemcpyHtoD', 'HtoD', 0, 101 ],
	[ 'cuMemcpyDtoH', 'DtoH', 0, 102 ],
	[ 'cuMemcpyDtoD', 'DtoD', 0, 103 ],
	[ 'cuMemcpyHtoA', 'HtoD', 0, 104 ],
	[ 'cuMemcpyAtoH', 'DtoH', 0, 105 ],
	[ 'cuMemcpyDtoA', 'DtoD', 0, 106 ],
	[ 'cuMemcpyAtoD', 'DtoD', 0, 107 ],
	[ 'cuMemcpyAtoA', 'DtoD', 0, 108 ],
	[ 'cuMemcpyHtoDAsync', 'HtoD', 1, 109 ],
	[ 'cuMemcpyDtoHAsync', 'DtoH', 1, 110 ],
	[ 'cuMemcpyDtoDAsync', 'DtoD', 1, 111 ],
	[ 'cuMemcpyHtoAAsync', 'HtoD', 1, 112 ],
	[ 'cuMemcpyAtoHAsync', 'DtoH', 1, 113 ],
	[ 'cuMemcpy', 'other', 0, 114 ],
	[ 'cuMemcpyAsync', 'other', 1, 115 ],
	[ 'cuMemcpyPeer', 'PtoP', 0, 116 ],
	[ 'cuMemcpyPeerAsync', 'PtoP', 1, 117 ],
	[ 'cuMemcpy2D', [qw(HtoD other)], 0, 120 ],
	[ 'cuMemcpy2DUnaligned', [qw(DtoH other)], 0, 121 ],
	[ 'cuMemcpy2DAsync', [qw(DtoD other)], 1, 122 ],
	[ 'cuMemcpy3D', [qw(HtoD other)], 0, 123 ],
	[ 'cuMemcpy3DAsync', [qw(DtoH other)], 1, 124 ],
	[ 'cuMemcpy3DPeer', [qw(PtoP other)], 0, 125 ],
	[ 'cuMemcpy3DPeerAsync', [qw(PtoP other)], 1, 126 ],
);

# api, async, bytes: width * height * element size for the 2D ones.
my @sets = (
	[ 'cuMemsetD8', 0, 200 ], [ 'cuMemsetD16', 0, 202 ],
	[ 'cuMemsetD32', 0, 204 ], [ 'cuMemsetD2D8', 0, 30 ],
	[ 'cuMemsetD2D16', 0, 60 ], [ 'cuMemsetD2D32', 0, 120 ],
	[ 'cuMemsetD8Async', 1, 205 ], [ 'cuMemsetD16Async', 1, 206 ],
	[ 'cuMemsetD32Async', 1, 208 ], [ 'cuMemsetD2D8Async', 1, 33 ],
	[ 'cuMemsetD2D16Async', 1, 66 ], [ 'cuMemsetD2D32Async', 1, 132 ],
);

for my $mode ([], ['--ptsz']) {
	subtest "w_copies @$mode" => sub {
		my $copy_ns = 300_000;
		my $r = GtRun::run(['w_copies', @$mode],
				   env => { FAKE_CUDA_COPY_NS => $copy_ns });
		my $j = $r->{json};

		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		ok($j, 'the analyzer read the dump') or return;
		for my $c (@copies) {
			my ($api, $dir, $async, $bytes) = @$c;
			my $t = GtRun::copy($j, $api, $dir, $async);
			my $d = ref $dir ? join('|', @$dir) : $dir;
			my $what = "$api ($d, " . ($async ? 'async' : 'sync') . ')';

			is($t->{calls}, 1, "$what: 1 call") or
				diag(explain([grep { $_->{api} eq $api }
					      GtRun::rows($j, 'copies')]));
			is($t->{bytes}, $bytes, "$what: $bytes bytes");
			cmp_ok($t->{ns}, '>=', $copy_ns, "$what: host time")
				unless $async;
		}
		my $b = GtRun::copy($j, 'cuMemcpyBatchAsync', 'other', 1);
		is($b->{calls}, 2, 'cuMemcpyBatchAsync (12.8 and 13.0): 2 calls');
		is($b->{bytes}, 127 + 128, 'cuMemcpyBatchAsync: bytes of all copies');
		is(scalar(GtRun::rows($j, 'copies')), @copies + 1,
		   'no other copy rows');
		for my $s (@sets) {
			my ($api, $async, $bytes) = @$s;
			my $t = GtRun::set($j, $api, $async);
			is($t->{calls}, 1, "$api: 1 call") or
				diag(explain([grep { $_->{api} eq $api }
					      GtRun::rows($j, 'sets')]));
			is($t->{bytes}, $bytes, "$api: $bytes bytes");
		}
		is(scalar(GtRun::rows($j, 'sets')), scalar(@sets),
		   'no other memset rows');
		GtRun::check_totals($r);
	};
}

done_testing();
