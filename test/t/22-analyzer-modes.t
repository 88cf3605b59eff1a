#!/usr/bin/perl
# 22-analyzer-modes.t - every dump of test/corpus/ (the broken ones and the
# odd ones of test/corpus/odd/, with times near 2^64 and kernels defined
# again) and what fuzzing found (test/fuzz/seeds/regress-*) in every output
# mode: the text report, --json, --trace, --sqlite,
# --html, --diff and ranks.  Each run finishes (well within a minute), ends
# with exit status 0 or 2 and no signal, and a run that fails leaves no
# output file behind.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtDump qw(analyzer_path);

my $LIMIT = 20;                 # seconds: each run takes well under one
my $corpus = "$FindBin::Bin/../corpus";
my @files = (sort(glob("$corpus/*.bin")), sort(glob("$corpus/odd/*.bin")),
	     sort(glob("$FindBin::Bin/../fuzz/seeds/regress-*.bin")));
my $tmp = tempdir(CLEANUP => 1);

plan skip_all => 'analyzer not built' unless -x analyzer_path();
ok(scalar(glob("$corpus/odd/*.bin")), 'the corpus has its odd dumps');

# Run with a time limit: (exit status, signal, timed out).
sub run_limited {
	my (@args) = @_;
	my $pid = fork() // die "fork: $!\n";

	if (!$pid) {
		open(STDOUT, '>', '/dev/null') or die;
		open(STDERR, '>', "$tmp/err") or die;
		exec(analyzer_path(), @args) or exit(127);
	}
	my $late = 0;
	local $SIG{ALRM} = sub { $late = 1; kill('KILL', $pid) };
	alarm($LIMIT);
	waitpid($pid, 0);
	alarm(0);
	return ($? >> 8, $? & 127, $late);
}

my %modes = (
	text => sub { ('--top=0', $_[0]) },
	json => sub { ('--json', $_[0]) },
	trace => sub { ('--trace', "$tmp/out", $_[0]) },
	sqlite => sub { ('--sqlite', "$tmp/out", $_[0]) },
	html => sub { ('--html', "$tmp/out", $_[0]) },
	diff => sub { ('--diff', '--json', $_[0], $_[0]) },
	ranks => sub { ('--json', $_[0], $_[0]) },
);

for my $f (@files) {
	(my $name = $f) =~ s{.*/(corpus|seeds)/}{};
	for my $mode (sort keys %modes) {
		unlink("$tmp/out");
		my ($rc, $sig, $late) = run_limited($modes{$mode}->($f));

		ok(!$late && !$sig && ($rc == 0 || $rc == 2),
		   "$name --$mode: finishes, exit $rc")
			or diag($late ? "killed after $LIMIT s" : "signal $sig");
		ok(!-e "$tmp/out", "$name --$mode: no output left after a failure")
			if $rc == 2;
	}
}

done_testing();
