#!/usr/bin/perl
# 79-hostile-res.t - programs that strain what the tracer holds
# (test/workloads/w_res.c): a driver dlclosed and dlopened again; more
# kernel handles than the kernel table names; more launch shapes and
# streams than the writer's tables keep; the dump's name taken by a FIFO
# before every descriptor is closed; output to /dev/null and to a pipe; a
# program that changes directory; a file size limit.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtRun;
use GtSafety;

GtRun::require_built(tracer => 1);

my %FAST = (FAKE_CUDA_SYNC_NS => 1000, FAKE_CUDA_COPY_NS => 1000);

# The driver dlclosed right after the first launches (the sampler thread
# looks at it after that), taken elsewhere if it was unmapped, dlopened
# again: the program runs as untraced, every launch in the dump.
for my $sample (100, 0) {
	subtest "dlclose of the driver, then dlopen again (GPUTRACE_SAMPLE_MS=$sample)" => sub {
		my %env = (%FAST, GPUTRACE_SAMPLE_MS => $sample);
		my $plain = GtRun::run(['w_res', 'dlclose', 20], env => \%env, trace => 0);

		is($plain->{exit}, 0, 'untraced: exits 0') or diag(GtRun::describe($plain));
		like($plain->{stdout}, qr/^driver_unmapped=1$/m,
		     'untraced: the driver was unmapped, and came back elsewhere');
		for my $run (1 .. 5) {
			my $r = GtRun::run(['w_res', 'dlclose', 20], env => \%env);
			my @t = GtSafety::truths($r);

			is($r->{signal}, 0, "run $run: no crash") or diag(GtRun::describe($r));
			is($r->{exit}, 0, "run $run: exits 0") or next;
			like($r->{stdout}, qr/^driver_unmapped=0$/m,
			     "run $run: the driver stays where it was");
			GtSafety::exact($r->{json}, $t[0], "run $run: every launch and sync");
		}
	};
}

# More kernel handles than GPUTRACE_MAX_FUNCTIONS names (JIT,
# autotuning), then a steady loop of 10 kernels the table never saw: a
# launch costs about what it cost before the table filled (CPU time of
# the launching thread, measured in the workload), and what has no name
# is counted in the dump.
subtest 'a kernel table with every id spent: the steady loop stays cheap' => sub {
	my ($max, $fill, $rounds) = (16384, 40000, 1000);
	my $r = GtRun::run(['w_res', 'kernels', $fill, $rounds],
			   env => { %FAST, GPUTRACE_MAX_FUNCTIONS => $max });
	my @t = GtSafety::truths($r);
	my ($before, $after) = $r->{stdout} =~ /^cpu_ns_per_launch before=([\d.]+) after=([\d.]+)$/m;
	my ($late) = $r->{stdout} =~ /^unnamed_launches_max=(\d+)$/m;
	my $j = $r->{json};

	is($r->{exit}, 0, 'exits 0') or return diag(GtRun::describe($r));
	ok(defined $before && defined $late, 'the workload measured') or return;
	diag("CPU time per launch: $before ns before the table filled, $after ns after");
	cmp_ok($after, '<', 5 * $before + 2000,
	       'a launch of a kernel the full table does not know costs about as before');
	ok($j, 'a dump') or return diag($r->{analyze_err});
	is($j->{events} + $j->{dropped}, $t[0]{launches}, 'events + dropped = launches');
	# the first 10 kernels took 10 ids: the rest of the ids went to the
	# first handles of the fill, every later launch has no name
	my @notes = grep { /^kernel table full: / } @{$j->{notes} || []};
	my ($n) = ($notes[0] // '') =~ /^kernel table full: (\d+) launches /;
	is(scalar(@notes), 1, 'the dump notes the launches with no name') or diag(explain($j->{notes}));
	is($n, $late - ($max - 10), 'counting every one');
	is(scalar(grep { /GPUTRACE_MAX_FUNCTIONS/ } GtSafety::tracer_lines($r)), 1,
	   'said once on stderr');
};

# 300,000 launches, each of a launch shape and a stream never seen
# before, against as many of one shape on one stream: the writer's tables
# stop at their caps (docs/how-it-works.md, Memory), so the peak resident
# memory of the process grows by a few MiB, not by the 75 MiB and more of
# tables that grow with every shape; what went past them is counted.
subtest 'distinct launch shapes and streams: bounded tables' => sub {
	my $n = 300000;
	my $r = GtRun::run(['w_res', 'intern', $n], env => \%FAST, timeout => 300);
	my ($same, $distinct) = $r->{stdout} =~ /^maxrss_kb same=(\d+) distinct=(\d+)$/m;
	my @t = GtSafety::truths($r);
	my %d = GtSafety::dumps_by_pid($r);

	is($r->{exit}, 0, 'exits 0') or return diag(GtRun::describe($r));
	ok(defined $distinct, 'both children measured') or return;
	diag("peak resident memory: $same KiB with one shape, $distinct KiB with $n");
	cmp_ok($distinct - $same, '<', 16 * 1024, 'less than 16 MiB more');
	is(scalar(@t), 2, 'two children launched');
	for my $i (0, 1) {
		my $j = $d{$t[$i]{pid} // 0}[0];
		my @notes = @{($j && $j->{notes}) || []};

		ok($j, "child $i: a dump") or next;
		is($j->{events} + $j->{dropped}, $t[$i]{launches}, "child $i: events + dropped = launches");
		if ($i == 0) {
			is(scalar(grep { /table full/ } @notes), 0, 'one shape: no table full');
			next;
		}
		my ($shapes) = join("\n", @notes) =~ /^launch shape table full: (\d+) launches /m;
		my ($streams) = join("\n", @notes) =~ /^stream table full: (\d+) calls /m;
		cmp_ok($shapes // 0, '>', 0, 'the launches past the shape table are counted in the dump');
		cmp_ok($streams // 0, '>', 0, 'the calls past the stream table are counted in the dump');
		cmp_ok(($shapes // 0) + 0, '<=', $j->{events}, '... no more than the events');
		is(GtSafety::calls_of($j, 'kernels', 'symbol', GtRun::K_WORKER), $j->{events},
		   'every launch still counts under its kernel');
	}
};

done_testing();
