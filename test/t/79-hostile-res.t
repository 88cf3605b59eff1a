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
use POSIX ();
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

# A daemon-style program: someone put a FIFO in place of the dump's name,
# then the program closed every descriptor.  Opening the dump again must
# not wait for a reader, at the next drain or at exit.
subtest 'the dump\'s name taken by a FIFO, then every descriptor closed' => sub {
	my $dir = tempdir(CLEANUP => 1);
	mkdir("$dir/out");
	my $r = GtRun::run(['w_res', 'fifo', "$dir/out", 20], output => "$dir/out/t-%p.bin",
			   env => \%FAST, timeout => 60);
	my @t = GtSafety::truths($r);
	my @lines = GtSafety::tracer_lines($r);
	my ($j, $err) = GtSafety::analyze("$dir/out/moved.bin");

	ok(!$r->{timed_out}, 'no hang') or return;
	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(scalar(@lines), 1, 'one line on stderr') or diag($r->{stderr});
	like($lines[0] // '', qr/^gputrace: the program closed or replaced descriptor \d+, the dump's, and '\Q$dir\E\/out\/t-\d+\.bin' cannot be opened again; tracing stops here$/,
	     'saying that writing stopped');
	ok(-p glob("$dir/out/t-*.bin"), 'the FIFO is left as it was');
	ok($j && $j->{ends_early}, 'the dump as it was, ending early') or diag($err);
	cmp_ok($j ? $j->{events} : -1, '<=', $t[0]{launches} + $t[0]{syncs},
	       'no more events than made');
};

# Numbered files an unfixed library made beside a device (as root).
sub made_beside {
	my ($dev, $before) = @_;
	my @made = grep { !$before->{$_} } glob("$dev.*");

	unlink(@made);
	return @made;
}

# GPUTRACE_OUTPUT naming a character device or a pipe: the dump goes
# there, and no numbered file is made beside it; where it cannot go (a
# FIFO no one reads, /dev/stdout when stdout is a file), nothing is
# written and nothing waits.
subtest 'GPUTRACE_OUTPUT=/dev/null' => sub {
	my %before = map { $_ => 1 } glob('/dev/null.*');
	my $r = GtRun::run(['w_cudart', 3, 1], output => '/dev/null', env => \%FAST);
	my @made = made_beside('/dev/null', \%before);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(scalar(@made), 0, 'no /dev/null.N made') or diag("@made");
	ok(-c '/dev/null', '/dev/null still the device');
	is($r->{line} && $r->{line}{path}, '/dev/null', 'the dump went to /dev/null');
	is($r->{line} && $r->{line}{events}, GtRun::traced_calls($r->{counts}),
	   'with every event');
	is(scalar(GtSafety::tracer_lines($r)), 1, 'that line only');
};

subtest 'GPUTRACE_OUTPUT=/dev/stdout, stdout a pipe' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my $wl = GtRun::workload('w_cudart');
	my %before = map { $_ => 1 } glob('/dev/stdout.*');
	my $r = GtRun::run(['/bin/sh', '-c', "'$wl' 3 1 | cat > '$dir/piped.bin'"],
			   output => '/dev/stdout', env => \%FAST);
	my ($j, $err) = GtSafety::analyze("$dir/piped.bin");

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(scalar(made_beside('/dev/stdout', \%before)), 0, 'no /dev/stdout.N made');
	ok($j, 'what came through the pipe is the dump') or return diag($err);
	is($j->{events}, GtRun::traced_calls($r->{counts}), 'with every event');
	ok(!$j->{ends_early}, 'whole');
};

subtest 'GPUTRACE_OUTPUT=/dev/stdout, stdout a regular file: nothing written' => sub {
	my %before = map { $_ => 1 } glob('/dev/stdout.*');
	my $r = GtRun::run(['w_cudart', 3, 1], output => '/dev/stdout', env => \%FAST);
	my @lines = GtSafety::tracer_lines($r);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is($r->{stdout}, '', 'nothing in the program\'s stdout');
	is(scalar(made_beside('/dev/stdout', \%before)), 0, 'no /dev/stdout.N made');
	is(scalar(@lines), 1, 'one line on stderr') or diag($r->{stderr});
	like($lines[0] // '', qr{^gputrace: '/dev/stdout' takes no writes .*; tracing off$},
	     'saying why');
};

# The dump into a pipe whose reader goes away before the program ends:
# the last drain, in the program's own thread at exit, gets EPIPE, never
# SIGPIPE.
subtest 'a pipe whose reader is gone: no SIGPIPE' => sub {
	my $r = GtRun::run(['w_res', 'sigpipe', 20], output => '/dev/stdout',
			   env => { %FAST, GPUTRACE_FLUSH_MS => 60000 });
	my @lines = GtSafety::tracer_lines($r);

	is($r->{signal}, 0, 'not killed') or diag(GtRun::describe($r));
	is($r->{exit}, 0, 'exits 0');
	like($r->{stderr}, qr/^launched$/m, 'the program ran to its end');
	is(scalar(@lines), 1, 'one line on stderr') or diag($r->{stderr});
	like($lines[0] // '', qr{^gputrace: cannot write '/dev/stdout': Broken pipe; tracing stops here$},
	     'saying why');
};

subtest 'a FIFO no one reads: nothing written, no wait' => sub {
	my $dir = tempdir(CLEANUP => 1);
	POSIX::mkfifo("$dir/fifo", 0600) or die "mkfifo: $!";
	my $r = GtRun::run(['w_cudart', 3, 1], output => "$dir/fifo", env => \%FAST,
			   timeout => 60);
	my @lines = GtSafety::tracer_lines($r);

	ok(!$r->{timed_out}, 'no hang') or return;
	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(scalar(@lines), 1, 'one line on stderr') or diag($r->{stderr});
	like($lines[0] // '', qr{^gputrace: '\Q$dir\E/fifo' takes no writes .*; tracing off$},
	     'saying why');
	is(scalar(() = glob("$dir/fifo.*")), 0, 'no fifo.N made');
};

subtest 'a FIFO with a reader: the dump goes through it' => sub {
	my $dir = tempdir(CLEANUP => 1);
	POSIX::mkfifo("$dir/fifo", 0600) or die "mkfifo: $!";
	sysopen(my $fh, "$dir/fifo", POSIX::O_RDONLY() | POSIX::O_NONBLOCK()) or die "open: $!";
	# the run's dump is far smaller than the pipe's buffer: read after it
	my $r = GtRun::run(['w_cudart', 3, 1], output => "$dir/fifo", env => \%FAST,
			   timeout => 60);
	my ($data, $got) = ('', 0);

	$data .= $got while sysread($fh, $got, 65536);
	close($fh);
	open(my $out, '>:raw', "$dir/got.bin") or die;
	print $out $data;
	close($out);
	my ($j, $err) = GtSafety::analyze("$dir/got.bin");

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is($r->{line} && $r->{line}{path}, "$dir/fifo", 'the wrote line names the FIFO');
	ok($j, 'what came through is the dump') or return diag($err);
	is($j->{events}, GtRun::traced_calls($r->{counts}), 'with every event');
	ok(!$j->{ends_early}, 'whole');
	is(scalar(() = glob("$dir/fifo.*")), 0, 'no fifo.N made');
};

# A program that changes directory before its first CUDA call (Hydra's
# outputs/): the stderr line names the dump by its absolute path.
subtest 'a relative GPUTRACE_OUTPUT, the program in another directory' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my $r = GtRun::run(['w_res', 'chdir', 'outputs', 5], output => 't-%p.bin',
			   cwd => $dir, env => \%FAST);
	my ($cwd) = $r->{stdout} =~ /^cwd=(.+)$/m;
	my $path = $r->{line} && $r->{line}{path};

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($path, 'a wrote line') or return;
	like($path, qr{^/}, "absolute: $path");
	is($path, "$cwd/t-$r->{pid}.bin", 'in the directory the program was in');
	ok(-s $path, 'the file is there');
};

# RLIMIT_FSIZE far below what the run writes in its first drain: the dump
# keeps the events that fit, ends properly, and counts the rest as
# dropped; SIGXFSZ never kills the program.
subtest 'a file size limit below the first drain: what fits is kept' => sub {
	my $limit = 100 * 1024;
	my $r = GtRun::run(['w_res', 'fsize', $limit, 50000],
			   env => { %FAST, GPUTRACE_FLUSH_MS => 2000 });
	my @t = GtSafety::truths($r);
	my @lines = grep { !/wrote/ } GtSafety::tracer_lines($r);
	my $j = $r->{json};

	is($r->{signal}, 0, 'not killed (SIGXFSZ)') or diag(GtRun::describe($r));
	is($r->{exit}, 0, 'exits 0');
	ok($r->{dump}, 'a dump') or return;
	cmp_ok(-s $r->{dump}, '<=', $limit, 'within the limit');
	ok($j, 'readable') or return diag($r->{analyze_err});
	cmp_ok($j->{events}, '>', 1000, "events kept: $j->{events}");
	is($j->{events} + $j->{dropped}, $t[0]{launches}, 'events + dropped = launches');
	ok(!$j->{ends_early}, 'the dump ends properly');
	is($r->{line} && $r->{line}{events}, $j->{events}, 'the wrote line says as much');
	is(scalar(@lines), 1, 'one more line on stderr') or diag($r->{stderr});
	like($lines[0] // '', qr/file size limit/, 'saying why');
};

done_testing();
