#!/usr/bin/perl
# 415-hostsample.t - the host stack sampler on a C program (w_hostcpu)
# that burns CPU between launches in functions with known names: each
# thread's samples come at the rate asked of its CPU time (what the
# program measured itself), each stands for its share of that time, each
# stack starts in the function that burnt (under every unwinder) and goes
# on to its caller; the main thread is sampled without a CUDA call of its
# own (another thread made the first); GPUTRACE_HOST_HZ=0 takes none and
# says so; the wall clock also samples a sleeping thread, as waiting.  A
# program with its own SIGPROF (setitimer(ITIMER_PROF) with sigaction()
# or signal(), set before or after the first CUDA call) gets its
# signals with the library too (how many varies with the machine's load),
# none of ours, runs its handler with the
# mask the kernel gives it, and is shown its own handler, while the
# library still samples.  A forked child that burns
# CPU without a CUDA call (a DataLoader worker) has its own dump with its
# samples.  Sampling at 1000 Hz changes nothing where the library is
# pushed hardest: a fork storm while threads launch, 2000 threads coming
# and going, SIGTERM while threads launch, an exec chain: no hang, no lost
# call, complete dumps; SIGPROF ignored stays ignored across an exec.
use strict;
use warnings;
no warnings 'portable';     # 64-bit addresses in hexadecimal
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRead;
use GtRun;
use GtSafety;

GtRun::require_built(tracer => 1);
plan skip_all => 'w_hostcpu not built (run make test)'
	unless -x GtRun::workload('w_hostcpu');

my %FAST = (FAKE_CUDA_SYNC_NS => 1000, GPUTRACE_HOST_HZ => 100);
my $MS = 400;                   # CPU time each thread burns

# What the workload printed: {fn => {name => [lo, hi]}, cpu => {tid => ns}}.
sub said {
	my ($r) = @_;
	my %s = (fn => {}, cpu => {});

	for (split /\n/, $r->{stdout}) {
		$s{fn}{$1} = [ hex $2, hex $3 ] if /^fn (\w+) 0x(\w+) 0x(\w+)$/;
		$s{cpu}{$1} = $2 if /^cpu tid=(\d+) ns=(\d+)$/;
		$s{prof} = { count => $1, leaked => $2, mask => $3, query => $4 }
			if /^prof count=(\d+) leaked=(\d+) mask=(\d+) query=(\w+)$/;
		$s{child} = $1 if /^child pid=(\d+)$/;
	}
	return \%s;
}

sub note_of {
	my ($d) = @_;
	my ($n) = grep { /^host sampler: / } @{ $d->{notes} };

	return $n // '';
}

# Samples of thread tid, and how many start (native[0]) in fn with more
# than that one frame.
sub in_fn {
	my ($d, $samples, $range) = @_;
	my $n = 0;

	for my $s (@$samples) {
		my $st = $d->{stacks}{ $s->{stack} } or next;
		my ($pc, @callers) = @{ $st->{native} };
		$n++ if defined $pc && $pc >= $range->[0] && $pc < $range->[1] && @callers;
	}
	return $n;
}

# One thread's samples against the CPU time it measured at hz: their
# count and their CPU time.  The CPU clock's timers fire at the kernel's
# tick (250 Hz or more): faster asked rates come as fewer samples, each
# standing for the periods it covers, so the time is the check there; on
# a busy machine a thread's expiries also come late, several at one tick
# (the overrun), so the count may fall far short where the time does
# not: the count is only held to be some, and no more than the rate.
sub check_thread {
	my ($d, $tid, $ns, $hz, $fn, $what) = @_;
	my @s = grep { $_->{tid} == $tid } GtRead::host_samples($d);
	my $want = $ns * $hz / 1e9;
	my $cpu = 0;

	$cpu += $_->{dur} for @s;
	if ($hz <= 100) {
		cmp_ok(scalar @s, '>=', 1, "$what: samples");
		cmp_ok(scalar @s, '<=', int(1.25 * $want) + 2, "$what: samples <= 5/4 of $want");
	}
	cmp_ok($cpu, '>=', 0.75 * $ns - 2e7, "$what: their CPU time, >= 3/4 of the thread's");
	cmp_ok($cpu, '<=', 1.25 * $ns + 2e7, "$what: <= 5/4 of it");
	is(scalar(grep { $_->{state} != 1 } @s), 0, "$what: all running (CPU clock)");
	cmp_ok(in_fn($d, \@s, $fn), '>=', 0.75 * @s,
	       "$what: 3 in 4 start in the function that burns, then its callers")
		if @s;
}

sub run_burn {
	my ($env, @args) = @_;
	my $r = GtRun::run(['w_hostcpu', 'burn', $MS, @args], env => { %FAST, %$env });
	my $d = $r->{dump} && GtRead::read_dump($r->{dump});

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($d && $d->{complete}, 'a complete dump') or return;
	ok($r->{json}, 'the analyzer reads it') or diag($r->{analyze_err});
	return ($r, $d, said($r));
}

for my $unwinder (qw(libunwind libgcc fp)) {
	subtest "100 Hz of CPU time, two threads, GPUTRACE_UNWIND=$unwinder" => sub {
		my ($r, $d, $s) = run_burn({ GPUTRACE_UNWIND => $unwinder }, 1) or return;
		my ($main, $other) = sort { $a <=> $b } keys %{ $s->{cpu} };

		like(note_of($d), qr/^host sampler: 100 Hz of each thread's CPU time \(SIGPROF\), 8 native frames/,
		     'the note says how samples are taken');
		is(scalar keys %{ $s->{cpu} }, 2, 'two threads said their CPU time') or return;
		check_thread($d, $main, $s->{cpu}{$main}, 100, $s->{fn}{burn_main}, 'main');
		check_thread($d, $other, $s->{cpu}{$other}, 100, $s->{fn}{burn_thread},
			     'the other thread');
	};
}

subtest 'the main thread is sampled without a CUDA call of its own' => sub {
	my $r = GtRun::run(['w_hostcpu', 'remote', $MS], env => \%FAST);
	my $s = said($r);
	my $d = $r->{dump} && GtRead::read_dump($r->{dump});
	my ($main) = keys %{ $s->{cpu} };

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($d && $main, 'a dump, and the main thread\'s CPU time') or return;
	is($main, $d->{pid}, 'the main thread said it');
	check_thread($d, $main, $s->{cpu}{$main}, 100, $s->{fn}{burn_main}, 'main');
};

subtest 'GPUTRACE_HOST_HZ=1000: the CPU time is still right' => sub {
	my ($r, $d, $s) = run_burn({ GPUTRACE_HOST_HZ => 1000 }) or return;
	my ($main) = keys %{ $s->{cpu} };

	check_thread($d, $main, $s->{cpu}{$main}, 1000, $s->{fn}{burn_main}, 'main');
};

subtest 'GPUTRACE_HOST_HZ=0: no samples' => sub {
	my ($r, $d, $s) = run_burn({ GPUTRACE_HOST_HZ => 0 }) or return;

	is(scalar(GtRead::host_samples($d)), 0, 'none');
	is(note_of($d), 'host sampler: off (GPUTRACE_HOST_HZ=0)', 'the note says it is off');
	is($r->{line} && $r->{line}{events}, 40, 'the launches and syncs alone');
};

subtest 'GPUTRACE_HOST_CLOCK=wall: a sleeping thread is sampled, waiting' => sub {
	my $idle = 300;
	my ($r, $d, $s) = run_burn({ GPUTRACE_HOST_CLOCK => 'wall' }, 0, $idle) or return;
	my ($main) = keys %{ $s->{cpu} };
	my @s = grep { $_->{tid} == $main } GtRead::host_samples($d);
	my $waiting = grep { $_->{state} == 2 } @s;
	my $cpu = 0;

	$cpu += $_->{dur} for @s;
	like(note_of($d), qr/of each thread's wall time/, 'the note says wall time');
	cmp_ok($waiting, '>=', 0.75 * $idle / 10 - 1, 'the sleep is sampled as waiting');
	cmp_ok($cpu, '>=', 0.75 * $s->{cpu}{$main} - 2e7, 'the CPU time is counted');
	cmp_ok($cpu, '<=', 1.25 * $s->{cpu}{$main} + 2e7, 'no more than it');
};

for my $how (qw(sigaction late signal)) {
	subtest "the program's own SIGPROF ($how) works as without the library" => sub {
		my @args = ('w_hostcpu', 'prof', $how, $MS);
		my $r = GtRun::run(\@args, env => \%FAST);
		my $plain = GtRun::run(\@args, env => \%FAST, trace => 0);
		my ($s, $p) = (said($r), said($plain));
		my $d = $r->{dump} && GtRead::read_dump($r->{dump});

		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		ok($s->{prof} && $p->{prof}, 'both runs counted') or return;
		# ITIMER_PROF's signals coalesce too when the machine is busy
		cmp_ok($p->{prof}{count}, '>', 0, 'without the library: its ITIMER_PROF');
		# two runs of a busy machine: their counts may differ many-fold (a
		# CPU timer's expiries come together); none taken from it would be
		# none, ours given to it count as leaked
		cmp_ok($s->{prof}{count}, '>', 0, 'with it: its signals too');
		is($s->{prof}{leaked}, 0, 'none of the library\'s ticks reach it');
		is($p->{prof}{mask}, 0, 'without the library its handler runs with its mask');
		is($s->{prof}{mask}, 0, 'with it too');
		is($s->{prof}{query}, 'ok', 'sigaction()/signal() show its own handler');
		my ($main) = keys %{ $s->{cpu} };
		ok($d && $main, 'a dump') or return;
		my $cpu = 0;

		$cpu += $_->{dur} for GtRead::host_samples($d);
		cmp_ok($cpu, '>=', 0.75 * $s->{cpu}{$main} - 2e7,
		       'and the library samples (their CPU time, >= 3/4 of the thread\'s)');
	};
}

subtest 'a forked child that burns CPU without CUDA has its own samples' => sub {
	my $r = GtRun::run(['w_hostcpu', 'fork', $MS], env => \%FAST);
	my $s = said($r);
	my %d = map { my $d = GtRead::read_dump($_); $d ? ($d->{pid} => $d) : () }
		@{ $r->{dumps} };
	my $child = $s->{child} && $d{ $s->{child} };

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(scalar @{ $r->{dumps} }, 2, 'two dumps') or return;
	ok($child && $child->{complete}, 'the child\'s is complete') or return;
	like(note_of($child), qr/^host sampler: 100 Hz/, 'with the note');
	check_thread($child, $s->{child}, $s->{cpu}{ $s->{child} }, 100,
		     $s->{fn}{burn_child}, 'the child');
};

# Calls of a dump read by the analyzer: every launch and sync is in it
# (or counted as dropped), with samples beside them.
sub all_calls {
	my ($j, $t, $what) = @_;

	ok($j && !$j->{ends_early}, "$what: complete") or return;
	cmp_ok($j->{events} + $j->{dropped}, '>=', $t->{launches} + $t->{syncs},
	       "$what: every call in it");
}

my %HARD = (FAKE_CUDA_SYNC_NS => 1000, GPUTRACE_HOST_HZ => 1000);

subtest 'sampling through a fork storm while threads launch' => sub {
	my ($kids, $m) = (20, 20);
	my $r = GtRun::run(['w_fork', 'storm', 8, $kids, $m],
			   env => { %HARD, GPUTRACE_FLUSH_MS => 1 }, timeout => 300);
	my @t = GtSafety::truths($r);
	my %d = GtSafety::dumps_by_pid($r);
	my $bad = 0;

	is($r->{exit}, 0, 'exits 0: no child hung') or diag(GtRun::describe($r));
	like($r->{stdout}, qr/^children ok $kids$/m, 'every child exited 0');
	is(scalar(keys %d), $kids + 1, 'a dump per process');
	for my $t (@t[0 .. $#t - 1]) {
		my $j = $d{ $t->{pid} } && $d{ $t->{pid} }[0];
		my $got = $j ? GtSafety::calls_of($j, 'kernels', 'symbol', GtRun::K_WORKER) : 0;

		next if $j && !$j->{ends_early} && $got + ($j->{dropped} // 0) >= $m;
		$bad++;
		diag("child $t->{pid}: " . ($j ? "ends early: " . ($j->{ends_early} ? 1 : 0) .
		     ", $got launches, $j->{dropped} dropped" : 'no dump'));
	}
	# (a child whose exit met its writer thread opening its lazy dump once
	# left it empty, without its end: 1 in about 6 loaded runs)
	is($bad, 0, "each child's dump is complete, with its $m launches (or them dropped)");
	all_calls($d{ $t[-1]{pid} } && $d{ $t[-1]{pid} }[0], $t[-1], 'the parent');
};

subtest 'an exec chain, each image sampled up to its exec' => sub {
	my $r = GtRun::run(['w_hostcpu', 'exec', 20, 30], env => \%HARD);

	is($r->{exit}, 0, 'exits 0: no image died of a tick') or diag(GtRun::describe($r));
	like($r->{stdout}, qr/^exec chain done$/m, 'the last image ran');
};

subtest 'SIGPROF ignored before an exec is ignored after it' => sub {
	my $r = GtRun::run(['w_hostcpu', 'ignexec'], env => \%HARD);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	like($r->{stdout}, qr/^prof ignored=1$/m, 'the new image finds it ignored');
};

subtest 'sampling while 2000 threads come and go' => sub {
	my $r = GtRun::run(['w_hostile', 'threads', 2000, 16], env => \%HARD,
			   timeout => 300);
	my @t = GtSafety::truths($r);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	all_calls($r->{json}, $t[0], 'the dump') if @t;
};

subtest 'SIGTERM while sampled threads launch' => sub {
	my $r = GtRun::run(['w_signal', 'TERM', 50, '--threads', 4], env => \%HARD);
	my @t = GtSafety::truths($r);
	my ($j) = GtSafety::analyze($r->{dumps}[0] // '');

	is($r->{signal}, 15, 'dies of SIGTERM') or diag(GtRun::describe($r));
	all_calls($j, $t[0], 'the dump') if @t;
};

done_testing();
