#!/usr/bin/perl
# 22-analyzer-plurals.t - counts of one read in the singular: the text
# report and --diff of the shipped sample and of the recorded dumps say
# "1 call", "1 warm-up step", "1 pinned allocation", never "1 calls".
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();

my $root = "$FindBin::Bin/../..";
my @dumps = ("$root/examples/sample-pytorch.bin", glob("$root/test/dumps/*.bin"));

# "1 calls", "1 pinned allocations"; not "1 ms", "1.5 calls", "11 calls",
# nor a setting's value ("GPUTRACE_CUPTI_LATENCY=1 asks").
my $one_plural = qr/(?<![\d.,=])\b1 (?:(?:pinned|async) )?(?!(?:ms|us|ns|s)\b)[a-z_]+s\b/;

for my $p (@dumps) {
	my $name = $p =~ s{.*/}{}r;

	for my $args (['--top', '0', $p], ['--diff', $p, $p]) {
		my $res = run_analyzer(@$args);
		my @bad = grep { /$one_plural/ } split /\n/, $res->{out};

		is($res->{exit}, 0, "$name @$args[0]: exit 0");
		is_deeply(\@bad, [], "$name @$args[0]: no plural after 1");
	}
}

my $res = run_analyzer("$root/examples/sample-pytorch.bin");
like($res->{out}, qr/^  #\d+ pinned_alloc: 1 call, /m, 'a call site of one call');
like($res->{out}, qr/warm-up: 1 step at the start/, 'one warm-up step');
like($res->{out}, qr/- 1 pinned allocation after start-up/, 'one pinned allocation');
done_testing();
