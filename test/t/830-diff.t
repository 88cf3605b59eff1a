#!/usr/bin/perl
# 830-diff.t - --diff BEFORE AFTER on two synthetic runs: before, the
# batches are copied from pageable memory; after, from pinned memory, and
# a fused kernel replaces two.  The measures, the copy classes and
# kernels sorted by the size of their change, the findings of each side.
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

use constant { T => 1_000_000_000, MS => 1_000_000, STEPS => 20 };

my $dir = tempdir(CLEANUP => 1);

# STEPS steps: a copy of 1 MiB (pageable 2 ms, or pinned 0.2 ms), then
# kernels (before: a and b; after: fused), then a sync.
sub run_dump {
	my ($name, $pinned) = @_;
	my $d = GtDump->new(pid => 9, start_ns => T);
	my @ev;

	$d->process(pid => 9, host => 'n1', argv => ['train', $name]);
	$d->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel', flags => OPF_ASYNC);
	$d->op(op => 2, kind => KIND_SYNC, api => 'cuStreamSynchronize');
	$d->op(op => 3, kind => KIND_COPY, api => 'cuMemcpyHtoD', dir => DIR_HTOD);
	$d->function(id => $_->[0], name => $_->[1], handle => $_->[0])
		for [1, '_Z1aPf'], [2, '_Z1bPf'], [3, '_Z5fusedPf'];
	$d->shape(id => $_, function => $_) for 1 .. 3;
	for my $k (0 .. STEPS - 1) {
		my $s = T + $k * 10 * MS;

		push @ev, { op => 3, t0 => $s, dur => $pinned ? 200_000 : 2 * MS,
			    args => [1 << 20, 1, 2, 0, $pinned ? 2 : 1, 0] };
		push @ev, map { { op => 1, t0 => $s + 3 * MS + $_, dur => 5000, args => [$_] } }
			$pinned ? (3) : (1, 2);
		push @ev, { op => 2, t0 => $s + 4 * MS, dur => 1 * MS, args => [0, 0] };
	}
	$d->events(tid => 5, events => \@ev);
	$d->end(end_ns => T + STEPS * 10 * MS);
	return $d->write("$dir/$name.bin");
}

my ($before, $after) = (run_dump('before', 0), run_dump('after', 1));
my $res = run_analyzer('--diff', '--json', $before, $after);
my $j = eval { JSON::PP->new->decode($res->{out}) };

is($res->{exit}, 0, 'exit 0') or diag($res->{err});
ok($j, 'JSON') or BAIL_OUT('no JSON');
is($j->{before}{path}, $before, 'before named');
is($j->{after}{path}, $after, 'after named');
is_deeply($j->{measures}{copy_ns}, { before => STEPS * 2 * MS, after => STEPS * 200_000 },
	  'copy host time');
is_deeply($j->{measures}{copy_bytes}, { before => STEPS << 20, after => STEPS << 20 },
	  'same bytes');
is_deeply($j->{measures}{launch_ns}, { before => STEPS * 10_000, after => STEPS * 5000 },
	  'launch host time halved');
my @cc = @{ $j->{copy_classes} };
is_deeply([map { $_->{name} } @cc], ['HtoD pageable sync', 'HtoD pinned sync'],
	  'copy classes, largest change first');
is($cc[0]{delta_ns}, -STEPS * 2 * MS, 'pageable copies gone');
is($cc[1]{delta_ns}, STEPS * 200_000, 'pinned copies came');
my %k = map { $_->{name} =~ s/\(.*//r => $_ } @{ $j->{kernels} };   # whole names
is_deeply([@{ $k{fused} }{qw(calls_before calls_after)}], [0, STEPS], 'the fused kernel is new');
is_deeply([@{ $k{a} }{qw(calls_before calls_after)}], [STEPS, 0], 'a is gone');
ok((grep { $_ eq 'pageable_copies' } @{ $j->{before}{findings} }), 'before: pageable copies');
ok(!(grep { $_ eq 'pageable_copies' } @{ $j->{after}{findings} }), 'after: not any more');

$res = run_analyzer('--diff', $before, $after);
is($res->{exit}, 0, 'text: exit 0');
like($res->{out}, qr/^  copies \(host time\)\s+40\.00 ms\s+4\.00 ms\s+-36\.00 ms \(-90%\)$/m,
     'text: the copy measure and its change');
like($res->{out}, qr/Copy classes \(host time\), largest change first\n.*\n  HtoD pageable sync/,
     'text: the pageable class first');
$res = run_analyzer('--diff', $before);
is($res->{exit}, 2, 'one dump: exit 2');
like($res->{err}, qr/--diff compares two dumps, not 1/, 'says so');

done_testing();
