#!/usr/bin/perl
# 24-analyzer-stdin.t - "-" reads the dump from standard input: the text
# report, --json and --trace give what they give for the file; an empty
# input or "-" twice is refused; no temporary file is left behind, even
# when the reader of the report goes away early.
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
my $tmp = tempdir(CLEANUP => 1);
my $dump = GtMore::gpu_dump("$dir/gpu.bin", 7_000_000_000, 0);
$ENV{TMPDIR} = $tmp;

# Run the analyzer with stdin from $in (a path); {out, err, exit}.
sub from_stdin {
	my ($in, @args) = @_;

	open(my $save, '<&', \*STDIN) or die;
	open(STDIN, '<', $in) or die "$in: $!";
	my $res = run_analyzer(@args);
	open(STDIN, '<&', $save) or die;
	return $res;
}

for my $args ([], ['--json']) {
	my $file = run_analyzer(@$args, $dump);
	my $piped = from_stdin($dump, @$args, '-');

	is($piped->{exit}, 0, "@$args -: exit 0") or diag($piped->{err});
	is($piped->{out}, $file->{out}, "@$args -: the report of the file");
}

my $res = from_stdin($dump, '--trace', "$dir/t.json", '-');
is($res->{exit}, 0, '--trace OUT -: exit 0') or diag($res->{err});
my $want = run_analyzer('--trace', "$dir/f.json", $dump);
like(GtDump::slurp("$dir/t.json"), qr/"dumps":\[\{"path":"-"/, '--trace OUT -: the dump named -');
is(GtDump::slurp("$dir/t.json") =~ s{"path":"[^"]*"}{}r,
   GtDump::slurp("$dir/f.json") =~ s{"path":"[^"]*"}{}r,
   '--trace OUT -: the timeline of the file');

$res = from_stdin('/dev/null', '-');
is($res->{exit}, 2, 'empty input: exit 2');
like($res->{err}, qr/'-' is not a gputrace dump \(empty file\)/, 'empty input: says so, naming it -');
$res = from_stdin($dump, '--diff', '-', $dump);
like($res->{out}, qr/^  before: - \(train\)$/m, '--diff - AFTER: before named -');
$res = from_stdin($dump, '--diff', '-', '-');
is($res->{exit}, 2, '- twice: exit 2');
like($res->{err}, qr/standard input \('-'\) can be read only once/, '- twice: says so');

# The reader of the report closes the pipe at once: SIGPIPE.
system('sh', '-c', '"$0" - < "$1" | head -c 1 > /dev/null', GtDump::analyzer_path(), $dump);
opendir(my $dh, $tmp) or die;
is_deeply([grep { /^gputrace/ } readdir($dh)], [], 'no temporary file left behind');
done_testing();
