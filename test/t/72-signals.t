#!/usr/bin/perl
# 72-signals.t - a program killed by a signal it leaves at the default
# (SIGINT, SIGTERM, SIGHUP, SIGQUIT) or crashing (SIGABRT, SIGSEGV, SIGFPE)
# dies of that same signal under the tracer, and its dump is complete
# (END written, exact counts).  A program's own handler runs as without
# the tracer, whose handlers stay invisible to sigaction() and signal();
# Python's KeyboardInterrupt works as always (python3, when there is one).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use POSIX ();
use Test::More;

use GtRun;
use GtSafety;

GtRun::require_built(tracer => 1);

my %FAST = (FAKE_CUDA_SYNC_NS => 1000);
my %SIG = (INT => 2, TERM => 15, HUP => 1, QUIT => 3, ABRT => 6, SEGV => 11,
	   FPE => 8);

for my $name (sort keys %SIG) {
	subtest "SIG$name" => sub {
		my $r = GtRun::run(['w_signal', $name, 50], env => \%FAST);
		my $plain = GtRun::run(['w_signal', $name, 50], env => \%FAST,
				       trace => 0);
		my @t = GtSafety::truths($r);

		is($plain->{signal}, $SIG{$name}, "without the tracer: dies of SIG$name");
		is($r->{signal}, $SIG{$name}, "with it: the same")
			or diag(GtRun::describe($r));
		is(scalar(@{$r->{dumps}}), 1, 'one dump') or return;
		my ($j, $err) = GtSafety::analyze($r->{dumps}[0]);
		GtSafety::exact($j, $t[0], 'complete and exact');
		is(scalar(grep { /wrote/ } GtSafety::tracer_lines($r)), 1,
		   'the "wrote" line');
	};
}

subtest 'the program\'s own handler runs' => sub {
	my $r = GtRun::run(['w_signal', 'TERM', 50, '--handler'], env => \%FAST);
	my @t = GtSafety::truths($r);

	is($r->{exit}, 3, 'its handler exited 3') or diag(GtRun::describe($r));
	like($r->{stdout}, qr/^handled TERM$/m, 'its handler ran');
	my ($j) = GtSafety::analyze($r->{dumps}[0] // '');
	GtSafety::exact($j, $t[0], 'the dump, ended at exit');
};

subtest 'SIGTERM while threads launch' => sub {
	my $r = GtRun::run(['w_signal', 'TERM', 50, '--threads', 4], env => \%FAST);
	my @t = GtSafety::truths($r);

	is($r->{signal}, 15, 'dies of SIGTERM') or diag(GtRun::describe($r));
	my ($j, $err) = GtSafety::analyze($r->{dumps}[0] // '');
	ok($j && !$j->{ends_early}, 'the dump is complete') or diag($err);
	cmp_ok($j ? $j->{events} + $j->{dropped} : 0, '>=',
	       $t[0]{launches} + $t[0]{syncs}, 'with every event before the signal');
};

subtest 'the tracer\'s handlers are invisible' => sub {
	my $r = GtRun::run(['w_signal', 'query'], env => \%FAST);
	my $plain = GtRun::run(['w_signal', 'query'], env => \%FAST, trace => 0);
	my @checks = grep { /^(ok|FAIL) / } split /\n/, $r->{stdout};

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	cmp_ok(scalar(@checks), '>=', 10, 'it ran its checks');
	ok(/^ok /, $_) for @checks;
	my $strip = sub { join "\n", grep { /^(ok|FAIL) / } split /\n/, $_[0] };
	is($strip->($r->{stdout}), $strip->($plain->{stdout}),
	   'what it sees is what it sees without the tracer');
};

SKIP: {
	my $py = `sh -c 'command -v python3' 2>/dev/null`;
	chomp $py;
	skip 'no python3', 3 unless $py;
	my $script = "$FindBin::Bin/../workloads/w_signal.py";

	my %want = (uncaught => [2, 0], caught => [0, 0], term => [15, 0]);
	for my $mode (qw(uncaught caught term)) {
		subtest "python: $mode" => sub {
			my $r = GtRun::run([$py, $script, $mode, 50], env => \%FAST);
			my @t = GtSafety::truths($r);

			is($r->{signal}, $want{$mode}[0], 'ends as Python does')
				or diag(GtRun::describe($r));
			like($r->{stdout}, qr/^handlers int=python term=default$/m,
			     'Python sees its own SIGINT handler and SIGTERM at default');
			like($r->{stdout}, qr/^KeyboardInterrupt$/m, 'KeyboardInterrupt')
				unless $mode eq 'term';
			my ($j, $err) = GtSafety::analyze($r->{dumps}[0] // '');
			GtSafety::exact($j, $t[-1], 'the dump is complete and exact');
		};
	}
}

done_testing();
