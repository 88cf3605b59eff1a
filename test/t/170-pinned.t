#!/usr/bin/perl
# 170-pinned.t - the host memory behind every copy (w_pinned): pageable,
# pinned by the runtime, by the driver, registered and unregistered,
# pinned behind the tracer's back (pointer attributes), managed and
# device; the two costly cases marked (copies to the GPU: a small copy
# back is a readback, a sync); pinned allocations counted once
# although the runtime's calls end in the driver's.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);

my $N = 5;
my $r = GtRun::run(['w_pinned', $N]);
is($r->{exit}, 0, 'w_pinned exits 0') or diag(GtRun::describe($r));
my $j = $r->{json};
ok($j, 'dump analyzed') or BAIL_OUT($r->{analyze_err} // 'no dump');

# Sum of calls and bytes over copy rows matching (api, direction, memory, async).
sub copies {
	my (%want) = @_;
	my ($calls, $bytes) = (0, 0);

	for my $c (@{ $j->{copies} }) {
		next if grep { defined $want{$_} &&
			       ($_ eq 'async' ? ($c->{async} ? 1 : 0) != $want{async}
					      : $c->{$_} ne $want{$_}) } keys %want;
		$calls += $c->{calls};
		$bytes += $c->{bytes};
	}
	return ($calls, $bytes);
}

my @expect = (
	# api, direction, memory, async, calls
	[ 'cuMemcpyHtoDAsync', 'HtoD', 'pageable', 1, $N ],
	[ 'cuMemcpyDtoH', 'DtoH', 'pageable', 0, $N ],
	[ 'cuMemcpyHtoDAsync', 'HtoD', 'pinned', 1, 4 * $N ],  # runtime, driver, quiet, waited
	[ 'cuMemcpyHtoD', 'HtoD', 'pinned', 0, $N ],
	[ 'cuMemcpyDtoHAsync', 'DtoH', 'pinned', 1, $N ],      # registered
	[ 'cuMemcpyDtoHAsync', 'DtoH', 'pageable', 1, $N ],    # after unregister
	[ 'cuMemcpyAsync', 'other', 'managed', 1, $N ],
	[ 'cuMemcpyDtoDAsync', 'DtoD', 'device', 1, $N ],
);
for my $e (@expect) {
	my ($api, $dir, $mem, $async, $calls) = @$e;
	my ($c, $b) = copies(api => $api, direction => $dir, memory => $mem,
			     async => $async);
	is($c, $calls, "$api $dir $mem: $calls calls");
	is($b, $calls * 4096, "$api $dir $mem: bytes");
}
my ($all) = copies();
is($all, 11 * $N, 'no copy in another class');

my %class = map { ("$_->{direction} $_->{memory} " . ($_->{async} ? 'async' : 'sync'))
		  => $_ } @{ $j->{copy_classes} };
is($class{'HtoD pinned async'}{calls}, 4 * $N, 'copy class: HtoD pinned async');
is($class{'DtoH pageable async'}{calls}, $N * 2 - $N, 'copy class: DtoH pageable async');
ok(exists $class{'HtoD pageable async'}{gbps}, 'copy classes carry bandwidth');

# Pinned allocations: cudaHostAlloc, cuMemHostAlloc, cudaHostRegister; the
# runtime's calls end in the driver's, which must not count again.
is($j->{pinned_allocs}{calls}, 3, 'three pinned allocations, none twice');
is($j->{pinned_allocs}{bytes}, 3 * 4096, 'their bytes');
my %hm = map { ($_->{api} => $_) } @{ $j->{host_memory} };
is($hm{cudaHostAlloc}{calls}, 1, 'cudaHostAlloc recorded');
is($hm{cudaFreeHost}{bytes}, 4096, 'cudaFreeHost knows the size it freed');
is($hm{cudaHostUnregister}{bytes}, 4096, 'cudaHostUnregister too');
ok(!exists $hm{cuMemAllocHost}, 'cuMemHostAlloc under cudaHostAlloc is not recorded');
is($hm{cuMemFreeHost}{calls}, 1, 'a direct cuMemFreeHost is');

my %f = map { ($_->{id} => $_) } @{ $j->{findings} };
# 4 KiB copies back to the host read values back: syncs, not copies to pin
is($f{pageable_copies}{calls}, $N, 'finding: pageable copies to the GPU');
is($f{staged_async_copies}{calls}, $N, 'finding: staged async copies to the GPU');
is($f{sync_pinned_copies}{calls}, 2 * $N,
   'finding: pinned copies waited for at once (sync API, async + wait)');
like($f{staged_async_copies}{text}, qr/pin/, 'the finding says what to change');

# The same through the per-event counts of the fake: nothing lost.
# (each of the 4 runtime calls is recorded instead of the driver call it makes)
is($j->{events} + $j->{dropped}, GtRun::traced_calls($r->{counts}),
   'events + dropped = traced driver calls')
	or diag(GtRun::describe($r));

done_testing();
