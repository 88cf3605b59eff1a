#!/usr/bin/perl
# 23-analyzer-files.t - what the analyzer opens: a FIFO named as a dump, or
# as an output that no program reads, is refused at once (exit 2, saying
# why) instead of blocking in open(), and left in place (a FIFO that a
# program reads: 87-export-safety.t); /dev/null is still a fine output; GPUTRACE_PROGRESS takes 0 or 1 only, anything else is said and
# ignored (no bar when stderr is not a terminal).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use POSIX qw(mkfifo);
use Test::More;

use GtDump qw(:DEFAULT run_analyzer analyzer_path);

plan skip_all => 'analyzer not built' unless -x analyzer_path();

my $tmp = tempdir(CLEANUP => 1);
my $fifo = "$tmp/fifo";
mkfifo($fifo, 0600) or die "mkfifo: $!\n";

my $d = GtDump->new(start_ns => 1000, pid => 5);
$d->op(op => 0, kind => KIND_SYNC, api => 'cuCtxSynchronize');
$d->events(tid => 1, events => [map { { op => 0, t0 => 2000 + 100 * $_,
					  dur => 10, args => [0, 0] } } 0 .. 9]);
$d->end(end_ns => 9000);
my $dump = $d->write("$tmp/good.bin");

# Each run is killed after 20 s: a blocked open() fails the test, not CI.
sub run_limited {
	local $SIG{ALRM} = sub { die "timeout\n" };
	alarm(20);
	my $r = eval { run_analyzer(@_) } // { exit => -1, err => $@ };
	alarm(0);
	return $r;
}

for my $args (['--json', $fifo], ['--trace', "$tmp/t.json", $fifo],
	      ['--diff', $dump, $fifo]) {
	my $r = run_limited(@$args);
	is($r->{exit}, 2, "a FIFO as the dump (@$args[0]): exit 2");
	like($r->{err}, qr/'\Q$fifo\E': not a regular file/, '... says why')
		or diag($r->{err});
}
for my $mode (qw(--trace --html --sqlite)) {
	my $r = run_limited($mode, $fifo, $dump);
	my $why = $mode eq '--sqlite' ? 'an SQLite database needs a regular file'
				      : 'no program reads this FIFO';
	is($r->{exit}, 2, "a FIFO as the $mode output: exit 2");
	like($r->{err}, qr/'\Q$fifo\E': \Q$why\E/, '... says why')
		or diag($r->{err});
	ok(-p $fifo, '... and is left alone');
}
my $r = run_limited('--trace', '/dev/null', $dump);
is($r->{exit}, 0, '--trace /dev/null: exit 0') or diag($r->{err});
ok(-c '/dev/null', '... and /dev/null is still there');

for my $v ('abc', '-1', '2') {
	local $ENV{GPUTRACE_PROGRESS} = $v;
	$r = run_limited('--json', $dump);
	is($r->{exit}, 0, "GPUTRACE_PROGRESS=$v: exit 0");
	unlike($r->{err}, qr/\r/, '... no progress bar (stderr is a file)');
	like($r->{err}, qr/GPUTRACE_PROGRESS='\Q$v\E' is not 0 or 1: ignored/,
	     '... says the value is ignored');
}
{
	local $ENV{GPUTRACE_PROGRESS} = '1';
	$r = run_limited('--json', $dump);
	like($r->{err}, qr/\r/, 'GPUTRACE_PROGRESS=1: the bar is forced on');
}

done_testing();
