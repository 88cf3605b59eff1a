#!/usr/bin/perl
# 820-ranks.t - several dumps at once: synthetic training jobs whose skew
# is known (one rank enters every all-reduce late because it copies
# pageable memory first).  The straggler, the waits of the others, the
# rank-skew finding and its reason; the clocks of several hosts aligned on
# the collectives even when their CLOCK_REALTIME is off; a folder as
# input; a dump without collectives (a worker) left out of the matching.
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

use constant { MS => 1_000_000, STEPS => 40, LATE => 3_000_000 };

sub json_of { my $r = shift; eval { JSON::PP->new->decode($r->{out}) } }

sub rank { my ($j, $n) = @_; (grep { $_->{rank} == $n } @{ $j->{ranks} })[0] }

subtest 'one host: rank 2 is late at every all-reduce' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my @p = GtMore::job(dir => $dir, ranks => 4, slow => 2, late_ns => LATE,
			    steps => STEPS);
	my $res = run_analyzer('--json', @p);
	my $j = json_of($res);

	is($res->{exit}, 0, 'exit 0') or diag($res->{err});
	ok($j, 'JSON') or return;
	is($j->{dumps}, 4, 'four dumps');
	is($j->{hosts}, 1, 'one host');
	is($j->{collectives_matched}, STEPS, 'every all-reduce matched');
	is($j->{collectives_unmatched}, 0, 'none left over');
	is_deeply([map { $_->{rank} } @{ $j->{ranks} }], [0, 1, 2, 3], 'ordered by rank');
	is_deeply([map { $_->{offset_ns} } @{ $j->{ranks} }], [0, 0, 0, 0],
		  'one clock: no offsets');
	my $slow = rank($j, 2);
	is($slow->{entered_last}, STEPS, 'rank 2 entered last every time');
	is($slow->{waited_ns}, 0, 'rank 2 never waited');
	is($slow->{caused_wait_ns}, 3 * STEPS * LATE, 'the others waited 3 x 40 x 3 ms for it');
	is(rank($j, $_)->{waited_ns}, STEPS * LATE, "rank $_ waited 40 x 3 ms") for 0, 1, 3;
	is(rank($j, 0)->{entered_last}, 0, 'rank 0 never last');
	ok($j->{finding}, 'a rank-skew finding') or return;
	is($j->{finding}{rank}, 2, 'it names rank 2');
	is($j->{finding}{why}, 'copy_ns', 'because of its copies');
	like($j->{finding}{text}, qr/rank 2 held the others back.*40 of 40.*copies/,
	     'says so');

	my $text = run_analyzer(@p);
	is($text->{exit}, 0, 'text: exit 0');
	like($text->{out}, qr/^Finding\n  - rank 2 held the others back/m, 'text finding');
	like($text->{out}, qr/^Stragglers \(40 collectives matched on 1 communicator\)/m,
	     'straggler table title');
	like($text->{out}, qr/^  rank 2\s+40\s+40\s+0 ns\s+360\.00 ms\s+10\.00 ms$/m,
	     'straggler row, with its step');
	like($text->{out}, qr/one host: the dumps share its CLOCK_MONOTONIC/, 'clock line');

	my $folder = json_of(run_analyzer('--json', $dir));
	is($folder && $folder->{dumps}, 4, 'a folder: its dumps');
};

subtest 'no skew: no finding' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my @p = GtMore::job(dir => $dir, ranks => 3, slow => -1, late_ns => 0,
			    steps => 10);
	my $j = json_of(run_analyzer('--json', @p));

	ok($j, 'JSON') or return;
	is($j->{collectives_matched}, 10, 'matched');
	is($j->{finding}, undef, 'no finding');
	is($j->{wait_ns}, 0, 'nobody waited');
};

subtest 'two hosts, clocks apart, realtime off by 50 ms: aligned on the collectives' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my $shift = 1000 * 1_000_000_000;       # node1's clock 1000 s ahead
	my @p = GtMore::job(dir => $dir, ranks => 4, hosts => 2, slow => 3,
			    late_ns => LATE, steps => STEPS, host_shift => $shift,
			    realtime => sub { 5e18 - $_[0] * $shift + $_[0] * 50 * MS });
	my $res = run_analyzer('--json', @p);
	my $j = json_of($res);

	is($res->{exit}, 0, 'exit 0') or diag($res->{err});
	ok($j, 'JSON') or return;
	is($j->{hosts}, 2, 'two hosts');
	like($j->{clock}, qr/2 hosts: aligned on 40 collectives/, 'aligned on collectives');
	is(rank($j, 2)->{offset_ns}, -$shift, 'node1 put back by exactly its shift');
	is(rank($j, 3)->{offset_ns}, -$shift, 'both its ranks');
	is(rank($j, 3)->{caused_wait_ns}, 3 * STEPS * LATE, 'rank 3 made the others wait');
	is($j->{finding} && $j->{finding}{rank}, 3, 'the finding names rank 3');

	my $out = "$dir/job.json";
	$res = run_analyzer('--trace', $out, @p);
	is($res->{exit}, 0, 'one timeline of the four: exit 0') or diag($res->{err});
	my $t = eval { JSON::PP->new->decode(GtDump::slurp($out)) };
	ok($t, 'valid JSON') or return;
	is_deeply([map { $_->{offset_ns} } @{ $t->{otherData}{dumps} }],
		  [0, 0, -$shift, -$shift], 'the offsets applied');
	my %first;
	for my $e (@{ $t->{traceEvents} }) {
		$first{ $e->{pid} } //= $e->{ts} if ($e->{name} // '') eq 'ncclAllReduce';
	}
	is_deeply([map { $first{$_} } 100 .. 103], [6000, 6000, 6000, 9000],
		  'on one clock: rank 3 enters 3 ms after the others');
};

subtest 'a DataLoader worker dump (no NCCL) is summarised, not matched' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my @p = GtMore::job(dir => $dir, ranks => 2, slow => 1, late_ns => LATE,
			    steps => 10);
	my $w = GtDump->new(pid => 555, start_ns => 1_000_000_000);

	$w->process(pid => 555, ppid => 100, host => 'node0', rank => 0, argv => ['worker']);
	GtMore::train_ops($w);
	$w->events(tid => 555, events => [{ op => 1, t0 => 1_001_000_000, dur => 10, args => [1] }]);
	$w->end(end_ns => 1_002_000_000);
	push @p, $w->write("$dir/worker.bin");
	my $j = json_of(run_analyzer('--json', @p));

	ok($j, 'JSON') or return;
	is($j->{dumps}, 3, 'three dumps');
	is($j->{collectives_matched}, 10, 'the two ranks matched');
	my ($wk) = grep { $_->{pid} == 555 } @{ $j->{ranks} };
	is($wk->{collectives}, 0, 'the worker took part in none');
	like($wk->{label}, qr/^rank 0 pid 555$/, 'labelled by its pid');
};

# A dump that cannot be read is left out with a warning naming it and
# why; the others are analyzed.  Only when none can be read: exit 2.
subtest 'bad input among several dumps: left out' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my @p = GtMore::job(dir => $dir, ranks => 3, slow => 1, late_ns => LATE, steps => 2);
	open(my $fh, '>', "$dir/junk.bin") or die;
	print $fh "not a dump";
	close($fh);
	my $res = run_analyzer(@p, "$dir/junk.bin");
	is($res->{exit}, 0, 'a file that is no dump: exit 0') or diag($res->{err});
	like($res->{err}, qr/^warning: '[^']*junk\.bin' is not a gputrace dump \(bad magic\); left out/m,
	     'a file that is no dump: says which and why');
	like($res->{out}, qr/^gputrace ranks: 3 dumps, 1 host \(1 more could not be read\)$/m,
	     'a file that is no dump: the others analyzed');

	# A dump of a folder, corrupt after its header: a chunk over the limit.
	my $bytes = GtDump::slurp($p[1]);
	substr($bytes, 64 + 4, 4) = pack('V', 0xffffffff);
	GtDump->new->write($p[1], $bytes);
	$res = run_analyzer('--json', $dir);
	my $j = eval { JSON::PP->new->decode($res->{out}) };
	is($res->{exit}, 0, 'a corrupt dump in a folder: exit 0') or diag($res->{err});
	like($res->{err}, qr/^warning: '[^']*rank1\.bin' is corrupt at byte 64: chunk of \d+ bytes is over/m,
	     'a corrupt dump in a folder: says which and why');
	is($j && $j->{dumps}, 2, 'a corrupt dump in a folder: the two others analyzed');
	is($j && $j->{dumps_unread}, 1, 'a corrupt dump in a folder: counted');

	$res = run_analyzer($p[1], "$dir/junk.bin");
	is($res->{exit}, 2, 'none readable: exit 2');
	like($res->{err}, qr/none of the 2 dumps could be read/, 'none readable: says so');
	my $empty = tempdir(CLEANUP => 1);
	$res = run_analyzer($empty);
	is($res->{exit}, 2, 'empty folder: exit 2');
	like($res->{err}, qr/no gputrace dumps in/, 'says so');
};

done_testing();
