#!/usr/bin/perl
# 907-h200-runs.t - the report on real runs: the dumps of test/h200/
# (recorded on an H200 by the diagnosis suite, examples/diagnose; each
# with the program's own milliseconds per step, test/h200/runs.tsv).  For
# every dump: the report's step is the program's (within 10%, or the
# report says the loop cannot be told from the calls); the step counts of
# the headline, the steps section and the cost line are one; the cost line
# gives a figure only inside its interval and beyond the steps' own
# spread, else says it is not measurable; no host-device copy is printed
# faster than the machine's link carries.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use JSON::PP;
use Test::More;

use GtDump;

my $A = GtDump::analyzer_path();
plan skip_all => 'gputrace-analyze not built' unless -x $A;

my $dir = "$FindBin::Bin/../h200";
my @runs;
open(my $fh, '<', "$dir/runs.tsv") or die "runs.tsv: $!";
while (<$fh>) {
	next if /^#/ || !/\S/;
	chomp;
	my ($name, $ms) = split /\t/;
	push @runs, [$name, $ms];
}
close $fh;
ok(@runs >= 10, 'ten or more recorded runs') or diag(scalar @runs);

sub run_analyzer {
	my (@args) = @_;
	local $ENV{COLUMNS} = 100;
	open(my $p, '-|', $A, @args) or die "$A: $!";
	local $/;
	my $out = <$p>;
	close $p;
	return ($out, $? >> 8);
}

# GB/s a PCIe link of this generation carries per lane, one way.
my %LANE = (1 => 0.25, 2 => 0.5, 3 => 0.985, 4 => 1.969, 5 => 3.938, 6 => 7.563);

sub link_gbps {
	my ($text) = @_;
	my ($gen, $width) = $text =~ /PCIe gen(\d) x(\d+)/;
	return $gen && $LANE{$gen} ? $LANE{$gen} * $width : undef;
}

# The step: the program's own, or the report says it cannot be told.
sub check_step {
	my ($name, $ms, $j) = @_;
	my $s = $j->{steps};
	my $got = ($s->{step_ns} || $s->{mean_ns} || 0) / 1e6;

	if ($s->{calls_alike}) {
		like($s->{name}, qr/cannot be told/, "$name: one call repeated, said so");
		return;
	}
	my $off = $got / $ms - 1;
	ok(abs($off) <= 0.10, sprintf("%s: step %.4g ms, the program's %.4g ms (%+.1f%%, %s)",
				      $name, $got, $ms, 100 * $off, $s->{step_source} // '?'));
}

# One count of steps: the headline, the steps section, the cost line.
sub check_counts {
	my ($name, $j, $text) = @_;
	my $s = $j->{steps};
	my $steady = $s->{count} - $s->{warmup_steps};
	my ($head) = $text =~ /^  (\d+) steps? of /m;
	my ($section) = $text =~ /^  Steps: (\d+)/m;

	is($head, $steady, "$name: the headline counts the steady steps");
	is($section, $s->{count}, "$name: the steps section counts them all");
	my $c = $j->{tracing_cost} || {};
	if (($c->{steps_from} // '') eq 'diagnosis') {
		is($c->{steps}, $steady, "$name: the cost line counts the verdict's steps");
	}
}

# A cost figure only within its interval and beyond the steps' spread.
sub check_cost {
	my ($name, $j, $text) = @_;
	my $c = $j->{tracing_cost} || {};

	for my $k (qw(inside overall after_detach)) {
		my $f = $c->{$k};
		next unless ref $f eq 'HASH';
		ok($f->{lo} <= $f->{median} && $f->{median} <= $f->{hi},
		   "$name: cost $k: the median inside its interval");
		next unless $f->{measurable};
		ok(($f->{lo} > 0 || $f->{hi} < 0), "$name: cost $k: a measured figure's interval leaves out 0");
		ok(!defined $f->{spread} || $f->{spread} < abs($f->{median}),
		   "$name: cost $k: more than the steps' own spread");
	}
	my ($line) = $text =~ /^tracing cost in this run: ([^\n]*)/m;
	return unless $line && ref $c->{inside} eq 'HASH';
	is($line =~ /^not measurable/ ? 0 : 1, $c->{inside}{measurable} ? 1 : 0,
	   "$name: the text gives a figure only where it is measurable") or diag($line);
}

# No host-device copy faster than the link.
sub check_bandwidth {
	my ($name, $text) = @_;
	my $link = link_gbps($text);

	return pass("$name: no link known") unless $link;
	my @fast;
	for my $l (split /\n/, $text) {
		next unless $l =~ /\b(HtoD|DtoH)\b/;
		push @fast, $l for grep { $_ > 1.05 * $link } $l =~ /([\d.]+) GB\/s/g;
	}
	ok(!@fast, sprintf("%s: no copy above the link's %.0f GB/s", $name, $link))
		or diag(join("\n", @fast));
}

for my $r (@runs) {
	my ($name, $ms) = @$r;
	my $dump = "$dir/$name.bin";
	my ($js, $rc) = run_analyzer('--json', $dump);
	is($rc, 0, "$name: analyzed") or next;
	my $j = decode_json($js);
	my ($text) = run_analyzer($dump);

	check_step($name, $ms, $j);
	check_counts($name, $j, $text);
	check_cost($name, $j, $text);
	check_bandwidth($name, $text);
}

done_testing();
