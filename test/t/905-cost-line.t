#!/usr/bin/perl
# 905-cost-line.t - the run's own "tracing cost" line, on synthetic dumps
# of steps and GPU windows whose cost is known (GtSteps.pm): each step
# just inside a window is compared with a like step just outside (steps
# that alternate between two kinds with one of their kind), the figure is
# the median of the paired differences with its interval, and a figure the
# steps' own spread does not let through is "not measurable"; a known
# cost is found inside its interval, a few long steps do not make it,
# the overall figure comes only with the per-step one, many windows tell
# a cost one cannot, what CUPTI leaves after a window gets the same
# treatment, and the line counts the steps the diagnosis counts.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use List::Util qw(sum);
use Test::More;

use GtDump qw(run_analyzer);
use GtSteps;

plan skip_all => 'gputrace-analyze not built' unless -x GtDump::analyzer_path();

my $tmp = tempdir('gt-cost-XXXXXX', TMPDIR => 1, CLEANUP => !$ENV{GT_KEEP});

# The text report with its lines of prose joined, and tracing_cost.
sub report {
	my ($path) = @_;
	my $t = run_analyzer($path);
	my $j = run_analyzer('--json', $path);
	my $all = eval { JSON::PP::decode_json($j->{out}) } // {};

	is($t->{exit}, 0, "$path: exit 0") or diag($t->{err});
	(my $text = $t->{out}) =~ s/\n\s+/ /g;
	return ($text, $all->{tracing_cost} // {}, $all);
}

# One comparison of tracing_cost ("inside", "after_detach", "overall").
sub part {
	my ($c, $key) = @_;

	return ref $c->{$key} eq 'HASH' ? $c->{$key} : {};
}

sub within {
	my ($x, $lo, $hi, $what) = @_;

	ok(defined $x && defined $lo && defined $hi && $lo <= $x && $x <= $hi,
	   sprintf('%s: %s in [%s, %s]', $what, map { $_ // 'undef' } $x, $lo, $hi));
}

sub not_measurable {
	my ($text, $c, $what) = @_;

	like($text, qr/tracing cost in this run: not measurable \(steps vary (\+-[\d.]+%|up to \d+-fold); [-+][\d.]+% per step inside GPU windows, 90% interval [-+][\d.]+% to [-+][\d.]+%\)/,
	     "$what: not measurable, and why");
	is(part($c, 'inside')->{measurable}, JSON::PP::false, "$what: JSON says so");
	unlike($text, qr/overall/, "$what: no overall figure");
	ok(!exists $c->{overall}, "$what: none in the JSON");
}

# Step times within +-rel of ms, with a cost of (1 + cost) inside.
sub three {
	my (%o) = @_;
	my $f = $o{shape} // sub { $_[0] };

	return ([100, [map { $f->($_) } GtSteps::noisy(100, $o{ms}, $o{rel}, 5)]],
		[40, [map { $f->($_) * (1 + $o{cost}) } GtSteps::noisy(40, $o{ms}, $o{rel}, 7)], 1],
		[100, [map { $f->($_) } GtSteps::noisy(100, $o{ms}, $o{rel}, 9)]]);
}

subtest 'a known cost: steps inside a window 10% longer, within +-1%' => sub {
	my @runs = three(ms => 10, rel => 0.01, cost => 0.10);
	my ($text, $c) = report(GtSteps::dump("$tmp/known.bin", @runs));
	my $in = sum(@{ $runs[1][1] });
	my $all = $in + sum(@{ $runs[0][1] }, @{ $runs[2][1] });

	is(part($c, 'inside')->{measurable}, JSON::PP::true, 'measurable');
	within(0.10, part($c, 'inside')->{lo}, part($c, 'inside')->{hi}, 'the interval holds +10%');
	cmp_ok(abs(part($c, 'inside')->{median} - 0.10), '<', 0.01, 'the median: +10%');
	cmp_ok(part($c, 'inside')->{hi} - part($c, 'inside')->{lo}, '<', 0.02, 'a narrow interval');
	is(part($c, 'inside')->{pairs}, 40, 'the 40 steps inside, each paired');
	is(part($c, 'inside')->{edges}, 2, 'at the two edges of the window');
	is($c->{period}, 1, 'steps of one kind');
	is($c->{steps}, 240, '240 steps');
	is($c->{steps_inside}, 40, '40 inside');
	within($in / $all * 0.10 / 1.10, part($c, 'overall')->{lo}, part($c, 'overall')->{hi},
	       'overall: the time 10% added, over the run, in its interval');
	like($text, qr/tracing cost in this run: \+(9\.[5-9]|10\.[0-5])% per step inside GPU windows \(90% interval \+[\d.]+% to \+[\d.]+%; steps vary \+-[\d.]+%\), \+1\.[5-7]\d% overall \(\+[\d.]+% to \+[\d.]+%\)/,
	     'the line: the figure, its interval, the spread and the overall figure');
	like($text, qr/steps: the 240 the library marked, 40 of them inside windows \(16\.7%\); 40 just inside paired with a like step just outside \(2 window edges; medians 1[01]\.\d\d ms against (9\.9\d|10\.0\d) ms\)/,
	     'which steps, and how they were paired');
};

# A DataLoader loop whose steps alternate between 4 and 60 ms: a step
# inside a window against the step just outside it would compare a 4 ms
# step with a 60 ms one.
subtest 'steps alternating between 4 and 60 ms: each against one of its kind' => sub {
	my $alt = sub { my ($i) = @_; sub { ($i++ % 2 ? 60 : 4) * $_[0] } };
	my ($text, $c) = report(GtSteps::dump("$tmp/alt.bin",
		three(ms => 1, rel => 0.02, cost => 0, shape => $alt->(0))));

	is($c->{period}, 2, 'the pattern of 2 is found');
	cmp_ok(abs(part($c, 'inside')->{median} // 9), '<', 0.02, 'no cost: the median within 2%');
	not_measurable($text, $c, 'no cost');
	like($text, qr/paired with a like step \(a multiple of 2 steps away: the steps repeat in a pattern of 2\) just outside/,
	     'the line says how steps were paired');
	($text, $c) = report(GtSteps::dump("$tmp/alt-cost.bin",
		three(ms => 1, rel => 0.02, cost => 0.10, shape => $alt->(0))));
	is(part($c, 'inside')->{measurable}, JSON::PP::true, 'a cost of 10% on them: measurable');
	within(0.10, part($c, 'inside')->{lo}, part($c, 'inside')->{hi}, 'its interval holds +10%');
};

# Switching CUPTI on makes long steps; a late record another: three steps
# of 120-200 ms among 37 of 10.5 ms, against 10 ms outside.
subtest 'a few long steps inside a window: the median, not the mean' => sub {
	my @runs = three(ms => 10, rel => 0.01, cost => 0.05);
	@{ $runs[1][1] }[0, 1, 20] = (200, 150, 120);
	my ($text, $c) = report(GtSteps::dump("$tmp/long.bin", @runs));

	is(part($c, 'inside')->{measurable}, JSON::PP::true, 'measurable');
	within(0.05, part($c, 'inside')->{lo}, part($c, 'inside')->{hi}, 'the interval holds +5%');
	cmp_ok(part($c, 'inside')->{hi}, '<', 0.07, 'the long steps do not pull it up');
	like($text, qr/tracing cost in this run: \+[45]\.\d% per step inside GPU windows/, 'the line');
};

# Steps that vary 7-fold (e^-1 to e^1 times 10 ms), with a cost of 10%
# inside the window: the data cannot tell it.
subtest 'steps with a huge spread: not measurable' => sub {
	my ($text, $c) = report(GtSteps::dump("$tmp/huge.bin",
		three(ms => 1, rel => 1, cost => 0.10, shape => sub { 10 * exp($_[0] - 1) })));

	not_measurable($text, $c, 'huge spread');
	like($text, qr/after a window \(CUPTI off again\): not measurable \(steps vary/,
	     'nor what CUPTI leaves after it');
};

# Three windows; after each, the steps are 3% longer than before it (a
# CUPTI that leaves a cost once detached), within +-1%.
subtest 'what CUPTI leaves after a window: the same treatment' => sub {
	my ($seed, @runs) = (1);
	my $ms = 10;

	for my $w (0 .. 2) {
		push @runs, [40, [GtSteps::noisy(40, $ms, 0.01, $seed++)]],
			    [12, [GtSteps::noisy(12, $ms * 1.1, 0.01, $seed++)], 1];
		$ms *= 1.03;
	}
	push @runs, [40, [GtSteps::noisy(40, $ms, 0.01, $seed++)]];
	my ($text, $c) = report(GtSteps::dump("$tmp/after.bin", @runs));
	my $a = part($c, 'after_detach');

	is($a->{windows}, 3, 'three windows with steps on both sides');
	is($a->{measurable}, JSON::PP::true, 'measurable');
	within(0.03, $a->{lo}, $a->{hi}, 'the interval holds +3%');
	like($text, qr/after a window \(CUPTI off again\): \+[23]\.\d% per step just after a window against like steps just before it \(90% interval \+[\d.]+% to \+[\d.]+%; steps vary \+-[\d.]+%\); 3 windows, \d+ pairs/,
	     'the line');
};

# 30 windows of 10 steps, 5% longer, in steps that vary +-5%: one edge
# cannot tell so little, 60 of them can.
subtest 'many windows: their pairs together tell a small cost' => sub {
	my ($seed, @runs) = (1);

	for (1 .. 30) {
		push @runs, [40, [GtSteps::noisy(40, 10, 0.05, $seed++)]],
			    [10, [map { $_ * 1.05 } GtSteps::noisy(10, 10, 0.05, $seed++)], 1];
	}
	push @runs, [40, [GtSteps::noisy(40, 10, 0.05, $seed++)]];
	my ($text, $c) = report(GtSteps::dump("$tmp/many.bin", @runs));

	is(part($c, 'inside')->{edges}, 60, '60 window edges');
	is(part($c, 'inside')->{measurable}, JSON::PP::true, 'measurable');
	within(0.05, part($c, 'inside')->{lo}, part($c, 'inside')->{hi}, 'the interval holds +5%');
	cmp_ok(part($c, 'inside')->{spread}, '<', 0.03, 'the spread of 60 places, not of one');
};

subtest 'a window over nearly every step: not measured' => sub {
	my ($text, $c) = report(GtSteps::dump("$tmp/few.bin", [2, 10], [100, 11, 1], [2, 10]));

	is($c->{measured}, JSON::PP::false, 'not measured');
	like($text, qr/tracing cost in this run: not measured \(too few steps inside GPU windows with like steps just outside them\)/,
	     'the line says why');
};

# The library marked 20 steps, then (a new pattern) a 30 ms step and 100
# more: the diagnosis takes the longest run, less its warm-up step.
subtest 'the line counts the steps the diagnosis counts' => sub {
	my ($text, $c, $all) = report(GtSteps::dump("$tmp/count.bin", { source => 2 },
		[20, 10], 'gap', [1, 30], [40, [GtSteps::noisy(40, 10, 0.01, 1)]],
		[20, [GtSteps::noisy(20, 11, 0.01, 2)], 1],
		[40, [GtSteps::noisy(40, 10, 0.01, 3)]]));
	my $s = $all->{steps} // {};

	is($c->{steps_from}, 'diagnosis', "the diagnosis's steps");
	is($s->{count} - $s->{warmup_steps}, 100, 'the diagnosis: 100 steady steps');
	is($c->{steps}, 100, 'the cost line: the same 100');
	like($text, qr/steps: the 100 the diagnosis counts, 20 of them inside windows/,
	     'and says so');
	within(0.10, part($c, 'inside')->{lo}, part($c, 'inside')->{hi}, 'the cost on them: +10% in the interval');

	# the window on the library's first 30 steps, none on the 100 after
	($text, $c) = report(GtSteps::dump("$tmp/count-other.bin", { source => 2 },
		[10, 10], [10, 11, 1], [10, 10], 'gap', [1, 30], [100, 10]));
	is($c->{steps_from}, 'library', "none of the diagnosis's steps inside a window: the library's");
	is($c->{diagnosis_steps}, 100, "the diagnosis's count given");
	like($text, qr/steps: the 131 the library marked \(none of the 100 the diagnosis counts ran inside a window\), 10 of them inside windows/,
	     'and the line says so');
};

done_testing();
