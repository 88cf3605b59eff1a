#!/usr/bin/perl
# 77-hostile.t - programs that do what a tracer must survive
# (test/workloads/w_hostile.c): children made without fork's handlers
# (_Fork, a fork through syscall()) never hang and get their own dumps; a
# program that closes every descriptor or puts its own file over the
# dump's never gets dump bytes in its file, and stderr never claims more
# than the dump holds; no descriptor left; host names and ranks that try
# to leave the output directory; a full disk; 10,000 threads coming and
# going; a secure-execution (setuid) program; and what SIGKILL loses,
# measured against GPUTRACE_FLUSH_MS.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Copy qw(copy);
use File::Temp qw(tempdir);
use List::Util qw(max min sum);
use Test::More;

use GtRun;
use GtSafety;

GtRun::require_built(tracer => 1);

my %FAST = (FAKE_CUDA_SYNC_NS => 1000, FAKE_CUDA_COPY_NS => 1000);
my $WL = GtRun::workload('w_hostile');

# Run traced and not: the program sees no difference (exit, stdout).
sub unaffected {
	my ($args, %opt) = @_;
	my $r = GtRun::run($args, %opt, env => { %FAST, %{$opt{env} || {}} });
	my $plain = GtRun::run($args, %opt, env => { %FAST, %{$opt{env} || {}} },
			       trace => 0);

	is($r->{signal}, 0, 'no crash') or diag(GtRun::describe($r));
	is($r->{exit}, $plain->{exit}, "exit status $plain->{exit}, as untraced");
	is($r->{stdout}, $plain->{stdout}, 'the same output');
	return $r;
}

for my $how (qw(_Fork sys)) {
	for my $m (0, 5) {
		subtest "a child made by $how, $m launches in it, exits through exit()" => sub {
			my $r = GtRun::run(['w_hostile', 'fork', $how, $m], env => \%FAST,
					   timeout => 60);
			my @t = GtSafety::truths($r);
			my %d = GtSafety::dumps_by_pid($r);

			# A child made while the library loaded or walked the
			# loaded objects (the loader's lock maybe held for
			# good) is not traced, and says so.
			my $untraced = $r->{stderr} =~ /gputrace: a child made while the library was loading .* is not traced/s;
			my @traced = grep { !$untraced || $_->{pid} == $r->{pid} } @t;

			is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
			like($r->{stdout}, qr/^children ok 1$/m, 'the child exited 0, no hang');
			is(scalar(@t), $m ? 2 : 1, 'truth lines');
			is(scalar(keys %d), scalar(@traced), 'a dump per process traced that launched')
				or diag("@{$r->{dumps}}");
			GtSafety::exact($d{$_->{pid}}[0], $_, "pid $_->{pid}: exactly its events")
				for @traced;
			note('the child was made while the library loaded or walked: not traced')
				if $untraced;
		};
	}
}

for my $how (qw(close_range dup2)) {
	subtest "the program takes the dump's descriptor: $how" => sub {
		my $dir = tempdir(CLEANUP => 1);
		my $file = "$dir/program.txt";
		mkdir("$dir/out");
		my $r = GtRun::run(['w_hostile', 'fd', $how, "$dir/out", $file],
				   output => "$dir/out/t-%p.bin", env => \%FAST,
				   timeout => 60);
		my @t = GtSafety::truths($r);
		my @dumps = glob("$dir/out/*.bin");

		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		is(GtRun::slurp($file), "program data\n", 'the program\'s file holds only its data');
		is(scalar(@dumps), 1, 'one dump') or return;
		my ($j) = GtSafety::analyze($dumps[0]);
		GtSafety::exact($j, $t[0], 'opened again: every event');
		like($r->{stderr}, qr/^gputrace: the program closed or replaced descriptor \d+, the dump's; '\Q$dumps[0]\E' opened again$/m,
		     'stderr says so');
		is($r->{line} && $r->{line}{events}, $j && $j->{events},
		   'the last line gives the events in the dump');
	};
}

subtest 'the dump moved away, then its descriptor taken: writing stops' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my $file = "$dir/program.txt";
	mkdir("$dir/out");
	my $r = GtRun::run(['w_hostile', 'fd', 'moved', "$dir/out", $file],
			   output => "$dir/out/t-%p.bin", env => \%FAST, timeout => 60);
	my @t = GtSafety::truths($r);
	my ($j, $err) = GtSafety::analyze("$dir/out/moved.bin");

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(GtRun::slurp($file), "program data\n", 'the program\'s file holds only its data');
	like($r->{stderr}, qr/^gputrace: the program closed or replaced descriptor \d+, the dump's, and '[^']+' cannot be opened again; tracing stops here$/m,
	     'stderr says writing stopped');
	ok(!$r->{line}, 'and claims no events') or diag($r->{stderr});
	ok($j && $j->{ends_early}, 'the dump ends early') or diag($err);
	cmp_ok($j ? $j->{events} : -1, '<=', $t[0]{launches} + $t[0]{syncs},
	       'no more events than made');
};

subtest 'every descriptor taken before the first call (RLIMIT_NOFILE 32)' => sub {
	my $r = unaffected(['/bin/sh', '-c', "ulimit -n 32 && exec '$WL' nofile 50"]);
	my @lines = GtSafety::tracer_lines($r);

	like($r->{stdout}, qr/^launches=50$/m, 'the program ran');
	is(scalar(@lines), 1, 'one line on stderr') or diag($r->{stderr});
	like($lines[0] // '', qr/^gputrace: cannot create '[^']+': Too many open files; tracing off$/,
	     'saying why');
	is(scalar(@{$r->{dumps}}), 0, 'no dump');
};

subtest 'a rank that tries to leave the output directory' => sub {
	my $dir = tempdir(CLEANUP => 1);
	mkdir("$dir/out");
	my $r = GtRun::run(['w_cudart', 3, 1], env => { %FAST, RANK => '../x' },
			   output => "$dir/out/%r-%p.bin");

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(scalar(() = glob("$dir/out/0-*.bin")), 1, 'the dump is out/0-PID.bin');
	is(scalar(() = glob("$dir/*.bin $dir/x*")), 0, 'nothing outside out/');
};

subtest 'a host name that tries to leave the output directory' => sub {
	plan skip_all => 'no UTS namespace here (unshare -u)'
		unless system('unshare -u true >/dev/null 2>&1') == 0;
	my $dir = tempdir(CLEANUP => 1);
	my $cudart = GtRun::workload('w_cudart');
	mkdir("$dir/out");
	my $r = GtRun::run(['/usr/bin/unshare', '-u', '/bin/sh', '-c',
			    "printf ../evil/pwn >/proc/sys/kernel/hostname && exec '$cudart' 3 1"],
			   env => \%FAST, output => "$dir/out/%h.bin");

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok(-f "$dir/out/___evil_pwn.bin", 'the dump is out/___evil_pwn.bin')
		or diag(join(' ', glob("$dir/* $dir/*/*")));
	ok(!-e "$dir/evil", 'nothing outside out/');
};

subtest 'a full disk (a 64 KiB tmpfs): the program goes on, the dump ends early' => sub {
	plan skip_all => 'cannot mount a tmpfs here (unshare -m)'
		unless system('unshare -m mount -t tmpfs -o size=64k gt /mnt >/dev/null 2>&1') == 0;
	my $dir = tempdir(CLEANUP => 1);
	my $cudart = GtRun::workload('w_cudart');
	mkdir("$dir/$_") for qw(fs keep);
	my $sh = "mount -t tmpfs -o size=64k gt '$dir/fs' && '$cudart' 2000 1; " .
		 "rc=\$?; cp '$dir/fs/'*.bin '$dir/keep/' 2>/dev/null; exit \$rc";
	my $r = unaffected(['/usr/bin/unshare', '-m', '/bin/sh', '-c', $sh],
			   output => "$dir/fs/t-%p.bin");
	my @lines = GtSafety::tracer_lines($r);
	my @kept = glob("$dir/keep/*.bin");

	is(scalar(@lines), 1, 'one line on stderr') or diag($r->{stderr});
	like($lines[0] // '', qr/^gputrace: cannot write '[^']+': No space left on device; tracing stops here$/,
	     'saying why');
	is(scalar(@kept), 1, 'the dump') or return;
	my ($j, $err, $status) = GtSafety::analyze($kept[0]);
	is($status, 0, 'reads') or diag($err);
	ok($j && $j->{ends_early}, 'and ends early');
	like($err, qr/ends early \(no end record\): the program did not finish tracing, or its disk filled/,
	     'the analyzer says the disk may have filled');
};

subtest '10,000 threads, each one launch then gone, 16 at a time' => sub {
	my $r = GtRun::run(['w_hostile', 'threads', 10000, 16], env => \%FAST,
			   timeout => 300);
	my @t = GtSafety::truths($r);
	my $j = $r->{json};

	is($r->{exit}, 0, 'exits 0, no hang') or diag(GtRun::describe($r));
	is($t[0] && $t[0]{launches}, 10000, 'all launched');
	ok($j, 'a dump') or return diag(GtRun::describe($r));
	is($j->{events} + $j->{dropped}, 10000, 'events + dropped = launches');
	is(GtSafety::calls_of($j, 'kernels', 'symbol', GtRun::K_WORKER), $j->{events},
	   'every event a launch');
	diag("10,000 threads: $j->{events} events, $j->{dropped} dropped");
};

subtest 'a secure-execution program (setuid) traces nothing' => sub {
	plan skip_all => 'needs root (to make a setuid program of another user)'
		if $> != 0;
	my $nobody = getpwnam('nobody');
	plan skip_all => 'no user nobody' unless defined $nobody;
	my $dir = tempdir(CLEANUP => 1);
	my $prog = "$dir/w_setuid";
	mkdir("$dir/out");
	chmod(0755, $dir);
	chmod(0777, "$dir/out");
	copy(GtRun::workload('w_hostile_linked'), $prog) or die "copy: $!";
	my %env = (%FAST, GPUTRACE_OUTPUT => "$dir/out/s-%p.bin", FAKE_CUDA_COUNTS => undef);
	chmod(0755, $prog);
	my $plain = GtRun::run([$prog, 'exec', 5], trace => 0, env => \%env);

	is($plain->{exit}, 0, 'not setuid: exits 0') or diag(GtRun::describe($plain));
	is(scalar(() = glob("$dir/out/*.bin")), 1, 'not setuid: traced (a dump)');
	unlink(glob("$dir/out/*.bin"));
	chown($nobody, -1, $prog) or die "chown: $!";
	chmod(04755, $prog) or die "chmod: $!";
	my $r = GtRun::run([$prog, 'exec', 5], trace => 0, env => \%env);
	my @lines = GtSafety::tracer_lines($r);

	is($r->{exit}, 0, 'setuid: exits 0') or diag(GtRun::describe($r));
	like($r->{stdout}, qr/^truth pid=\d+ launches=5 /m, 'the program ran');
	is(scalar(() = glob("$dir/out/*")), 0, 'no dump where the user said');
	is(scalar(@lines), 1, 'one line on stderr') or diag($r->{stderr});
	like($lines[0] // '', qr/^gputrace: a secure-execution .*; tracing off$/, 'saying why');
	unlike($r->{stdout}, qr/^(GPUTRACE_|LD_PRELOAD=)/m,
	       'exec puts no settings back into the cleaned environment');
};

# SIGKILL after launches paced ~100 us apart: the loss is the time from
# the last launch in the dump to the kill (from the first launch when the
# dump has none yet: a loaded machine may kill it before the first flush).
sub kill_loss {
	my ($flush_ms, $ms) = @_;
	my $dir = tempdir(CLEANUP => 1);
	my $r = GtRun::run(['w_hostile', 'kill', "$dir/times", $ms],
			   env => { %FAST, GPUTRACE_FLUSH_MS => $flush_ms });
	my ($j) = GtSafety::analyze($r->{dumps}[0] // '');
	my ($kill, $last);

	return undef unless $r->{signal} == 9 && $j && !$j->{dropped};
	open(my $fh, '<:raw', "$dir/times") or return undef;
	sysseek($fh, 0, 0);
	sysread($fh, my $k, 8);
	sysseek($fh, 8 * ($j->{events} || 1), 0);
	sysread($fh, my $l, 8) == 8 or return undef;
	($kill, $last) = (unpack('Q<', $k), unpack('Q<', $l));
	return ($kill - $last) / 1e6;
}

for my $flush (20, 100) {
	subtest "SIGKILL loses about GPUTRACE_FLUSH_MS=$flush" => sub {
		my @loss = grep { defined } map { kill_loss($flush, 150 + 37 * $_) } 0 .. 14;
		my @s = sort { $a <=> $b } @loss;

		is(scalar(@loss), 15, '15 killed runs, each dump read, nothing dropped');
		return unless @s;
		diag(sprintf("FLUSH_MS=%d: loss ms min %.1f median %.1f p90 %.1f max %.1f",
			     $flush, $s[0], $s[$#s / 2], $s[int(0.9 * $#s)], $s[-1]));
		cmp_ok($s[-1], '<', $flush + 1000, 'never more than the period + 1 s');
	};
}

done_testing();
