#!/usr/bin/perl
# 23-analyzer-options.t - options that do not apply together are refused
# with a message naming them and exit status 2, never ignored; a
# --from/--to window that keeps no call is an error that gives the run's
# span, and leaves no empty timeline behind.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);
use GtMore;

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();

my $dir = tempdir(CLEANUP => 1);
my $dump = GtMore::gpu_dump("$dir/gpu.bin", 7_000_000_000, 0);
my ($db, $html, $tr) = ("$dir/x.db", "$dir/x.html", "$dir/x.json");

my @refused = (
	[['--from', '0.1', $dump], qr/--from only applies to --trace/],
	[['--to', '0.1', $dump], qr/--to only applies to --trace/],
	[['--steps', '1..2', $dump], qr/--steps only applies to --trace/],
	[['--sqlite', $db, '--from', '0.1', $dump], qr/--from only applies to --trace/],
	[['--diff', '--html', $html, $dump, $dump], qr/--diff .*--html does not apply/],
	[['--diff', '--trace', $tr, $dump, $dump], qr/--diff .*--trace does not apply/],
	[['--sqlite', $db, '--json', $dump], qr/--json .*not to --sqlite/],
	[['--html', $html, '--json', $dump], qr/--json .*not to --html/],
	[['--trace', $tr, '--json', $dump], qr/--json .*not to --trace/],
	[['--top', '3', '--json', $dump], qr/--top .*not to --json/],
	[['--top', '3', '--html', $html, $dump], qr/--top .*not to --html/],
	[['--top', '3', $dump, $dump], qr/--top applies to the report of one dump/],
	[['--wide', '--json', $dump], qr/--wide .*not to --json/],
	[['--wide', '--sqlite', $db, $dump], qr/--wide .*not to --sqlite/],
	[['--trace', $tr, '--steps', '1..2', '--from', '0', $dump], qr/--steps and --from/],
	[['--trace', $tr, '--from', '0.2', '--to', '0.1', $dump], qr/--to must come after --from/],
);
for my $c (@refused) {
	my ($args, $msg) = @$c;
	my $res = run_analyzer(@$args);

	is($res->{exit}, 2, "@$args: exit 2");
	like($res->{err}, $msg, "@$args: says why");
	is($res->{out}, '', "@$args: no report");
}
ok(!-e $_, "$_ not written") for $db, $html, $tr;

# The dump's calls run from 5 ms to 200 ms after its start.
my $res = run_analyzer('--trace', $tr, '--from', '100', '--to', '200', $dump);
is($res->{exit}, 2, 'a window after the run: exit 2');
like($res->{err}, qr/keep nothing: the CUDA calls span 0\.005-0\.200 s from the start/,
     'a window after the run: the span of the calls');
ok(!-e $tr, 'a window after the run: no empty timeline');
$res = run_analyzer('--trace', $tr, '--from', '0.01', '--to', '0.03', $dump);
is($res->{exit}, 0, 'a window inside the run: exit 0') or diag($res->{err});
ok(-s $tr, 'a window inside the run: a timeline');
$res = run_analyzer('--diff', '--json', $dump, $dump);
is($res->{exit}, 0, '--diff --json still goes');
$res = run_analyzer('--top', '3', $dump);
is($res->{exit}, 0, '--top with the text report still goes');
done_testing();
