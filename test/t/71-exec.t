#!/usr/bin/perl
# 71-exec.t - tracing goes on across exec and spawn, through each of the
# exec calls, even when the program passes an environment of its own
# without LD_PRELOAD or GPUTRACE_*, or takes them out of environ first.
# The image that calls exec ends its dump first (complete, exact); the
# new image has its own (same pid: a new name); a failed exec goes on in
# the same dump; the program's own GPUTRACE_OUTPUT wins; GPUTRACE=0 stays
# untouched.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtRun;
use GtSafety;

GtRun::require_built(tracer => 1);

my $N = 30;

for my $mode (qw(execve execle execvpe fexecve execv execl execvp execlp)) {
	subtest "$mode replaces the image, tracing goes on" => sub {
		my $r = GtRun::run(['w_exec', $mode, $N]);
		my @t = GtSafety::truths($r);
		my %d = GtSafety::dumps_by_pid($r);
		my @wrote = grep { /wrote/ } GtSafety::tracer_lines($r);

		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		is(scalar(@t), 2, 'two images ran') or return;
		is($t[0]{pid}, $t[1]{pid}, 'in the same process');
		my $dumps = $d{$t[0]{pid}} || [];
		is(scalar(@$dumps), 2, 'two dumps') or return;
		like($dumps->[1]{_file}, qr/\.1\.bin$/, 'the second under a new name');
		GtSafety::exact($dumps->[0], $t[0], 'the first image\'s dump: exact, ended');
		GtSafety::exact($dumps->[1], $t[1], 'the second image\'s dump: exact');
		is(scalar(@wrote), 2, 'a "wrote" line for each');
	};
}

for my $mode (qw(spawn spawnp vfork fork)) {
	subtest "$mode starts a traced child" => sub {
		my $r = GtRun::run(['w_exec', $mode, $N]);
		my @t = GtSafety::truths($r);
		my %d = GtSafety::dumps_by_pid($r);
		my ($child, $parent) = @t;

		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		is(scalar(@t), 2, 'parent and child ran') or return;
		isnt($child->{pid}, $parent->{pid}, 'two processes');
		is($parent->{launches}, 2 * $N, 'the parent went on after the child');
		GtSafety::exact($d{$parent->{pid}}[0], $parent, 'the parent\'s dump');
		GtSafety::exact($d{$child->{pid}}[0], $child, 'the child\'s dump');
	};
}

subtest 'a failed exec: the same dump goes on' => sub {
	my $r = GtRun::run(['w_exec', 'fail', $N]);
	my @t = GtSafety::truths($r);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(scalar(@{$r->{dumps}}), 1, 'one dump') or diag("@{$r->{dumps}}");
	my ($j, $err) = GtSafety::analyze($r->{dumps}[0]);
	is($err, '', 'read without a warning');
	GtSafety::exact($j, $t[0], 'every event before and after the exec');
};

subtest 'the program\'s own GPUTRACE_OUTPUT wins' => sub {
	my $own = tempdir(CLEANUP => 1);
	my $r = GtRun::run(['w_exec', 'own-output', $N],
			   env => { W_EXEC_OWN => "$own/own-%p.bin" });
	my @t = GtSafety::truths($r);
	my @mine = glob("$own/*.bin");

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(scalar(@{$r->{dumps}}), 1, 'the first image\'s dump where we said');
	is(scalar(@mine), 1, 'the second image\'s where the program said')
		or return;
	like($mine[0], qr{/own-$t[1]{pid}\.bin$}, 'named as it asked');
	my ($j) = GtSafety::analyze($mine[0]);
	GtSafety::exact($j, $t[1], 'and exact');
};

subtest 'GPUTRACE=0: exec changes nothing' => sub {
	my $r = GtRun::run(['w_exec', 'execve', $N], env => { GPUTRACE => 0 });

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(scalar(GtSafety::truths($r)), 2, 'both images ran');
	is(scalar(@{$r->{dumps}}), 0, 'no dump');
	is($r->{stderr}, '', 'nothing on stderr');
};

done_testing();
