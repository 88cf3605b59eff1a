#!/usr/bin/perl
# 181-launcher-runs.t - which dumps are a gputrace run's, and what it says
# of them, on the fake driver: with a template that names one process, the
# program gputrace started gets the name as it is, and a child that calls
# CUDA first (started with an environment without LD_PRELOAD and
# GPUTRACE_*) gets its pid added, also without gputrace; the report tells
# the processes apart by their command; a second run writing to the same
# folder at the same time is not listed; the folder of the program's dump
# is made (%h, %p), and one that cannot be made is said to be missing, not
# "no CUDA call"; the suggested command is quoted for a POSIX shell.
use strict;
use warnings;
use File::Temp qw(tempdir);
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);
my $GT = GtRun::build_dir() . '/gputrace';
plan skip_all => "not built: $GT (run make test)" unless -x $GT;

my %FAST = (FAKE_CUDA_SYNC_NS => 1000, FAKE_CUDA_COPY_NS => 1000);

sub run_gt { return GtRun::run_launcher(@_) }

sub dump_lines { return GtRun::dump_lines(@_) }

sub w { return GtRun::workload($_[0]) }

# w_exec's truth lines: image (1 the program, 2 its child) => pid.
sub pids { return $_[0]{stdout} =~ /^image=(\d) truth pid=(\d+)/mg }

sub dump_pid {
	my ($j, $err) = GtRun::analyze($_[0]);

	return $j ? $j->{process}{pid} : "not read: $err";
}

subtest 'the program takes the name, a child that calls CUDA first adds its pid' => sub {
	my $r = run_gt(['record', '-o', 'out.bin', '--', w('w_exec'), 'spawn-first', 3]);
	my %pid = pids($r);
	my ($main, $child) = ("$r->{dir}/out.bin", "$r->{dir}/out-" . ($pid{2} // 'none') . '.bin');

	is($r->{exit}, 0, 'exits 0') or return diag($r->{stderr});
	ok($pid{1} && $pid{2}, 'both processes ran') or return diag($r->{stdout});
	is_deeply([sort(dump_lines($r))], [sort($main, $child)],
		  'out.bin and out-CHILD.bin, both listed') or diag($r->{stderr});
	is(dump_pid($main), $pid{1}, 'out.bin is the program gputrace started');
	is(dump_pid($child), $pid{2}, 'out-CHILD.bin is its child');

	# without gputrace: the process started with LD_PRELOAD is the main one
	$r = GtRun::run(['w_exec', 'spawn-first', 3], output => 'out.bin', env => \%FAST);
	%pid = pids($r);
	is(dump_pid("$r->{dir}/out.bin"), $pid{1}, 'without gputrace: out.bin is the program');
	is(dump_pid("$r->{dir}/out-" . ($pid{2} // 'none') . '.bin'), $pid{2},
	   'and out-CHILD.bin its child') or diag(join(' ', @{ $r->{dumps} }));
};

subtest 'run: the report tells the processes apart' => sub {
	my $r = run_gt(['run', '-o', 'out.bin', '--', w('w_exec'), 'spawn-first', 3]);
	my %pid = pids($r);
	my ($main, $child) = map { $_ // 'none' } @pid{1, 2};

	is($r->{exit}, 0, 'exits 0') or return diag($r->{stderr});
	like($r->{stdout}, qr/^  rank 0 pid $main .* w_exec spawn-first 3$/m,
	     'the program: its pid and its command');
	like($r->{stdout}, qr/^  rank 0 pid $child .* w_exec --second 3$/m,
	     'its child: its pid and its command') or diag($r->{stdout});
};

subtest 'two runs in one folder list their own dumps only' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my $long = { dir => tempdir(CLEANUP => 1), cwd => $dir };
	my $wait = 'i=0; while [ ! -e go ] && [ $i -lt 6000 ]; do sleep 0.05; i=$((i+1)); done';
	my $pid = GtRun::spawn($long, [$GT, 'record', '--', '/bin/sh', '-c',
				       w('w_cudart') . " 2 1; $wait"],
			       GtRun::child_env($long, trace => 0, env => \%FAST));
	my @first;

	# the first run's dump is there (its program waits) before the second starts
	for (my $i = 0; $i < 6000 && !(@first = glob("$dir/gputrace-*.bin")); $i++) {
		select(undef, undef, undef, 0.05);
	}
	my $short = run_gt(['record', '--', w('w_cudart'), 2, 1], cwd => $dir);
	open(my $fh, '>', "$dir/go") or die;
	close($fh);
	my $status = GtRun::wait_child($pid, 300);
	my $said = GtRun::slurp("$long->{dir}/stderr") // '';
	my @second = dump_lines($short);

	is($status, 0, 'the first run ends well') or diag($said);
	is(scalar(@first), 1, 'its dump was written before the second run');
	is(scalar(@second), 1, 'the second run lists one dump') or diag($short->{stderr});
	isnt($second[0] // '', $first[0] // '', 'its own');
	is_deeply([ $said =~ /^gputrace: dump (.+)$/mg ], \@first,
		  'the first run lists its own dump only, not the second\'s') or diag($said);
};

subtest 'the folder of the dump' => sub {
	my $r = run_gt(['record', '-o', 'out-%h/rank%r.bin', '--', w('w_cudart'), 2, 1]);
	my @listed = dump_lines($r);

	is($r->{exit}, 0, 'exits 0');
	like($listed[0] // '', qr{^\Q$r->{dir}\E/out-[^/]+/rank0\.bin$},
	     'a folder named by %h is made, and the dump written in it') or diag($r->{stderr});
	unlike($r->{stderr}, qr/no dump was written/, 'no dump missing');

	$r = run_gt(['record', '-o', 'by-%p/x.bin', '--', w('w_cudart'), 2, 1]);
	@listed = dump_lines($r);
	my ($pid) = ($listed[0] // '') =~ m{^\Q$r->{dir}\E/by-(\d+)/x\.bin$};
	is(scalar(@listed), 1, 'a folder named by %p is made') or diag($r->{stderr});
	is(dump_pid($listed[0] // ''), $pid // 'none', 'by the program\'s pid');

	my $dir = tempdir(CLEANUP => 1);
	open(my $fh, '>', "$dir/file") or die;
	close($fh);
	$r = run_gt(['record', '-o', "$dir/file/sub/x.bin", '--', w('w_cudart'), 2, 1]);
	like($r->{stderr}, qr{^gputrace: cannot make the folder '\Q$dir\E/file/sub': }m,
	     'a folder that cannot be made: it says so');
	like($r->{stderr}, qr{^gputrace: no dump was written: no folder '\Q$dir\E/file/sub' exists}m,
	     'and that no dump was written because of it') or diag($r->{stderr});
	unlike($r->{stderr}, qr/no CUDA call/, 'not that no CUDA call was made');
};

subtest 'the suggested command is quoted for a shell' => sub {
	for my $name (q{x $(touch pwned) `touch pwned2` "y" z.bin}, q{it's.bin}) {
		my $r = run_gt(['record', '-o', $name, '--', w('w_cudart'), 2, 1]);
		my ($path) = dump_lines($r);
		my ($word) = $r->{stderr} =~ /^gputrace: report: gputrace analyze (.+)$/m;

		is($path, "$r->{dir}/$name", "$name: the dump, named as asked")
			or return diag($r->{stderr});
		ok(defined $word, 'a command to see the report') or return diag($r->{stderr});
		open(my $sh, '-|', '/bin/sh', '-c', "cd \"\$1\" && printf '%s' $word 2>&1",
		     'sh', $r->{dir}) or die "sh: $!";
		my $read = do { local $/; <$sh> };
		close($sh);
		is($read, $path, 'a shell reads it back as the dump\'s path');
		ok(!-e "$r->{dir}/pwned" && !-e "$r->{dir}/pwned2", 'and runs nothing it holds');
	}
};

done_testing();
