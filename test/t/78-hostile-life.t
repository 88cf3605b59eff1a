#!/usr/bin/perl
# 78-hostile-life.t - how a process lives and ends, with the tracer in it
# (test/workloads/w_life.c): two copies of the library preloaded (the
# second stays inert, says so once; gputrace record adds none when
# LD_PRELOAD has one); a main thread that ends with pthread_exit (the
# process still ends, status 0, the dump whole); calls made from signal
# handlers (a watchdog's siglongjmp out of a hung call, a fork in a
# handler, launches in a handler): every call is an event or counted as
# dropped, and calls after the handler are traced; stderr's reader gone
# (no SIGPIPE from the library, a pending one of the program's kept);
# quick_exit ends the dump.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Copy qw(copy);
use File::Temp qw(tempdir);
use POSIX ();
use Test::More;

use GtRun;
use GtSafety;

GtRun::require_built(tracer => 1);

my %FAST = (FAKE_CUDA_SYNC_NS => 1000, FAKE_CUDA_COPY_NS => 1000);
my %HANG = (FAKE_CUDA_SYNC_NS => 1_000_000_000_000);    # a sync never ends
my $GT = GtRun::build_dir() . '/gputrace';

# A copy of the library under a name of its own (not libgputrace*).
my $copies = tempdir(CLEANUP => 1);
my $copy = "$copies/other-tracer.so";
copy(GtRun::lib(), $copy) or die "copy: $!";

sub only_dump {
	my ($r) = @_;

	is(scalar(@{$r->{dumps}}), 1, 'one dump') or return undef;
	my ($j, $err) = GtSafety::analyze($r->{dumps}[0]);
	diag($err) if $err;
	return $j;
}

sub kernels { return GtSafety::calls_of($_[0], 'kernels', 'symbol', GtRun::K_WORKER) }

my $ANOTHER = qr/^gputrace: another copy of the library, '[^']+', is loaded first and traces; this one \('[^']+'\) does nothing$/;

for my $order ('copy first', 'copy second') {
	my $both = $order eq 'copy first' ? "$copy:" . GtRun::lib() : GtRun::lib() . ":$copy";

	subtest "two copies preloaded ($order): a program without CUDA" => sub {
		my $r = GtRun::run(['/bin/true'], env => { LD_PRELOAD => $both });
		my @lines = GtSafety::tracer_lines($r);

		is($r->{signal}, 0, 'no crash') or diag(GtRun::describe($r));
		is($r->{exit}, 0, 'exits 0');
		is(scalar(@lines), 1, 'one line on stderr') or diag($r->{stderr});
		like($lines[0] // '', $ANOTHER, 'saying the second copy does nothing');
	};

	subtest "two copies preloaded ($order): a traced program" => sub {
		my $r = GtRun::run(['w_life', 'run', 20], env => { %FAST, LD_PRELOAD => $both });
		my $plain = GtRun::run(['w_life', 'run', 20], env => \%FAST, trace => 0);
		my @t = GtSafety::truths($r);

		is($r->{signal}, 0, 'no crash') or diag(GtRun::describe($r));
		is($r->{exit}, $plain->{exit}, 'exits as untraced');
		is(scalar(grep { $_ =~ $ANOTHER } GtSafety::tracer_lines($r)), 1,
		   'one line for the second copy');
		GtSafety::exact(only_dump($r), $t[0], 'the first copy traces: every event once');
	};
}

subtest 'gputrace record: a copy of the library already in LD_PRELOAD' => sub {
	plan skip_all => "not built: $GT" unless -x $GT;
	# gputrace itself runs with the copy preloaded, which an
	# AddressSanitizer build of it does not survive (as in 180-launcher.t)
	plan skip_all => 'gputrace is built with AddressSanitizer'
		if qx{ldd '$GT' 2>/dev/null} =~ /libasan/;
	my $r = GtRun::run([$GT, 'record', '-o', 't-%p.bin', '--', GtRun::workload('w_life'),
			    'run', 20], trace => 0,
			   env => { %FAST, LD_PRELOAD => $copy,
				    ASAN_OPTIONS => 'verify_asan_link_order=0' });
	my @t = GtSafety::truths($r);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok(!grep({ $_ =~ $ANOTHER } GtSafety::tracer_lines($r)), 'no second copy added')
		or diag($r->{stderr});
	like($r->{stderr}, qr/^gputrace: LD_PRELOAD has a copy of the library already, '\Q$copy\E': that one traces$/m,
	     'says which one traces');
	GtSafety::exact(only_dump($r), $t[0], 'every event once');
};

subtest 'the main thread ends with pthread_exit, a thread goes on launching' => sub {
	my $r = GtRun::run(['w_life', 'mainexit', 50], env => \%FAST, timeout => 60);
	my $plain = GtRun::run(['w_life', 'mainexit', 50], env => \%FAST, trace => 0,
			       timeout => 60);
	my @t = GtSafety::truths($r);

	is($plain->{exit}, 0, 'untraced: exits 0 when the thread ends');
	ok(!$r->{timed_out}, 'traced: ends too') or diag(GtRun::describe($r));
	is($r->{exit}, 0, 'exits 0');
	is($r->{signal}, 0, 'no signal');
	GtSafety::exact(only_dump($r), $t[0], 'the dump is whole');
};

for my $how (qw(same deep)) {
	subtest "a watchdog leaves a hung sync by siglongjmp; launches after, from the $how function" => sub {
		my $r = GtRun::run(['w_life', 'watchdog', 1001, $how], env => \%HANG, timeout => 60);
		my @t = GtSafety::truths($r);
		my $j = only_dump($r);

		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		GtSafety::exact($j, $t[0], 'every call an event or dropped', drops => 1);
		if ($how eq 'same') {
			is(kernels($j), $t[0]{launches}, 'every launch after it traced');
		} else {
			cmp_ok(kernels($j) * 2, '>', $t[0]{launches}, 'launches after it traced');
		}
	};
}

subtest 'a signal handler forks inside a traced call' => sub {
	my $r = GtRun::run(['w_life', 'sigfork', 1000], env => \%HANG, timeout => 60);
	my @t = GtSafety::truths($r);
	my %d = GtSafety::dumps_by_pid($r);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	like($r->{stdout}, qr/^children ok 1$/m, 'the child exited 0');
	is(scalar(@t), 2, 'truth lines');
	is(scalar(keys %d), 2, 'a dump per process') or diag("@{$r->{dumps}}");
	for my $t (@t) {
		my $j = $d{$t->{pid}} && $d{$t->{pid}}[0];

		GtSafety::exact($j, $t, "pid $t->{pid}: every call an event or dropped", drops => 1);
		is(kernels($j), $t->{launches}, "pid $t->{pid}: every launch traced");
	}
};

subtest 'launches from a signal handler, while the program syncs' => sub {
	my $r = GtRun::run(['w_life', 'handler', 8, 200],
			   env => { FAKE_CUDA_SYNC_NS => 200_000 }, timeout => 120);
	my @t = GtSafety::truths($r);
	my $j = only_dump($r);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	GtSafety::exact($j, $t[0], 'every call an event or dropped', drops => 1);
	is(GtSafety::calls_of($j, 'syncs', 'api', 'cuStreamSynchronize'), $t[0]{syncs},
	   'every sync traced');
	cmp_ok($j ? $j->{dropped} : 0, '>', 0, 'launches made inside a sync counted as dropped');
};

# Run argv with stderr a pipe nobody reads; stdout and the dumps in a
# folder.  {exit, signal, stdout, dumps}.
sub run_reader_gone {
	my ($argv, %env) = @_;
	my $r = { dir => tempdir(CLEANUP => 1) };
	$r->{cwd} = $r->{dir};
	my $env = GtRun::child_env($r, env => \%env);
	pipe(my $rd, my $wr) or die "pipe: $!";
	close($rd);
	my $pid = fork();

	die "fork: $!" unless defined $pid;
	if (!$pid) {
		$SIG{PIPE} = 'DEFAULT';
		%ENV = %$env;
		chdir($r->{dir});
		open(STDOUT, '>', "$r->{dir}/stdout") or POSIX::_exit(126);
		open(STDERR, '>&', $wr) or POSIX::_exit(126);
		exec { $argv->[0] } @$argv or POSIX::_exit(127);
	}
	close($wr);
	my $status = GtRun::wait_child($pid, 60);
	$r->{exit} = $status >> 8;
	$r->{signal} = $status & 127;
	$r->{stdout} = GtRun::slurp("$r->{dir}/stdout") // '';
	$r->{dumps} = [ glob("$r->{dir}/*.bin") ];
	return $r;
}

subtest "stderr's reader gone: the last line raises no SIGPIPE" => sub {
	my $r = run_reader_gone([GtRun::workload('w_life'), 'run', 20], %FAST);
	my @t = GtSafety::truths($r);

	is($r->{signal}, 0, 'no signal');
	is($r->{exit}, 0, 'exits 0, as untraced');
	GtSafety::exact(only_dump($r), $t[0], 'the dump is whole');
};

for my $pending (0, 1) {
	subtest "stderr's reader gone, SIGPIPE blocked, " . ($pending ? 'one pending' : 'none pending') => sub {
		my $dir = tempdir(CLEANUP => 1);
		my $r = run_reader_gone([GtRun::workload('w_life'), 'pipe', $pending], %FAST,
					GPUTRACE_OUTPUT => "$dir/none/t-%p.bin");

		is($r->{exit}, 0, 'exits 0') or diag("signal $r->{signal}");
		like($r->{stdout}, qr/^sigpipe pending=$pending$/m,
		     $pending ? "the program's own SIGPIPE still pending"
			      : 'no SIGPIPE left pending by the library');
	};
}

subtest 'quick_exit: the dump ends' => sub {
	my $r = GtRun::run(['w_life', 'quick', 20], env => \%FAST);
	my @t = GtSafety::truths($r);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	GtSafety::exact(only_dump($r), $t[0], 'complete and exact');
	like($r->{stderr}, qr/^gputrace: wrote /m, 'the "wrote" line');
};

done_testing();
