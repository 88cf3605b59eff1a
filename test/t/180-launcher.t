#!/usr/bin/perl
# 180-launcher.t - the gputrace command on the fake driver: record runs a
# program with the library preloaded (what was in LD_PRELOAD kept),
# GPUTRACE_OUTPUT and GPUTRACE_GPU set, lists the dumps every process
# wrote, and ends as the program ended (exit status, signal, a signal sent
# to it passed on); run prints the report; analyze is gputrace-analyze;
# under a launcher that starts ranks (torchrun's RANK, mpirun's
# OMPI_COMM_WORLD_RANK) %r names each rank's dump; --version.
use strict;
use warnings;
use File::Copy qw(copy);
use File::Temp qw(tempdir);
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;
use GtSafety;

GtRun::require_built(tracer => 1);
my $GT = GtRun::build_dir() . '/gputrace';
my $FAKE_LAUNCHER = "$FindBin::Bin/../workloads/fake_launcher.sh";
plan skip_all => "not built: $GT (run make test)" unless -x $GT;

my %FAST = (FAKE_CUDA_SYNC_NS => 1000, FAKE_CUDA_COPY_NS => 1000);

sub run_gt { return GtRun::run_launcher(@_) }

sub dump_lines { return GtRun::dump_lines(@_) }

sub w { return GtRun::workload($_[0]) }

subtest 'record: one process' => sub {
	my $r = run_gt(['record', '--', w('w_cudart'), 10, 5]);
	my @listed = dump_lines($r);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(scalar(@{$r->{dumps}}), 1, 'one dump, in the folder it ran in') or return;
	like($r->{dump}, qr{/gputrace-[^/]+-\d+\.bin$}, 'named by the default template');
	is_deeply(\@listed, [$r->{dump}], 'and listed by its absolute path');
	($r->{json}, $r->{analyze_err}) = GtRun::analyze($r->{dump});
	GtRun::check_totals($r);
	like($r->{stderr}, qr/^gputrace: report: gputrace analyze \Q$r->{dump}\E$/m,
	     'says how to see the report');
};

subtest 'record: -o, --gpu and LD_PRELOAD kept' => sub {
	my $other = GtRun::fake_dir() . '/libcuda.so.1';
	# (gputrace itself starts with that LD_PRELOAD: an ASan build must be
	# told that this is fine)
	my %asan = (ASAN_OPTIONS => 'verify_asan_link_order=0');
	my $r = run_gt(['record', '-o', 'out/t-%p.bin', '--gpu', 'off', '--', '/usr/bin/env'],
		   env => { LD_PRELOAD => $other, GPUTRACE_GPU => 'all', %asan });
	my %env = map { /^([^=]+)=(.*)$/ ? ($1, $2) : () } split /\n/, $r->{stdout};

	is($r->{exit}, 0, 'exits 0') or diag($r->{stderr});
	is($env{LD_PRELOAD}, GtRun::lib() . ":$other", 'the library first, the rest kept');
	is($env{GPUTRACE_OUTPUT}, "$r->{dir}/out/t-%p.bin", 'GPUTRACE_OUTPUT, made absolute');
	is($env{GPUTRACE_GPU}, 'off', 'GPUTRACE_GPU from --gpu');
	like($r->{stderr}, qr/^gputrace: no dump was written/m,
	     'a program without CUDA: no dump, and it says so');

	SKIP: {
		# (gputrace itself runs with the library preloaded then, which
		# an AddressSanitizer build does not survive)
		skip 'gputrace is built with AddressSanitizer', 2
			if qx{ldd '$GT' 2>/dev/null} =~ /libasan/;
		$r = run_gt(['record', '--', '/usr/bin/env'], env => { LD_PRELOAD => GtRun::lib() });
		%env = map { /^([^=]+)=(.*)$/ ? ($1, $2) : () } split /\n/, $r->{stdout};
		is($env{LD_PRELOAD}, GtRun::lib(), 'not added twice');
		is($env{GPUTRACE_OUTPUT}, "$r->{dir}/gputrace-%h-%p.bin", 'the default template');
	}

	mkdir("$r->{dir}/x");
	$r = run_gt(['record', '-o', 'x/same.bin', '--', w('w_cudart'), 2, 1]);
	my $again = GtRun::run([$GT, 'record', '-o', 'same.bin', '--', w('w_cudart'), 2, 1],
			       trace => 0, env => \%FAST);
	is(scalar(dump_lines($again)), 1, 'an existing dump is not listed again');
};

subtest 'the exit status, and a signal, are the program\'s' => sub {
	my $r = run_gt(['record', '--', w('w_cudart'), '--exit=3', 2, 1]);
	is($r->{exit}, 3, 'exit 3') or diag($r->{stderr});
	is(scalar(dump_lines($r)), 1, 'the dump listed all the same');

	$r = run_gt(['record', '--', w('w_signal'), 'TERM', 50]);
	my @t = GtSafety::truths($r);
	is($r->{signal}, 15, 'dies of the SIGTERM the program died of') or diag($r->{stderr});
	is(scalar(dump_lines($r)), 1, 'after listing the dump');
	my ($j) = GtSafety::analyze($r->{dumps}[0] // '');
	GtSafety::exact($j, $t[0], 'the dump is complete');

	$r = run_gt(['record', '--', '/nonexistent/program']);
	is($r->{exit}, 127, 'a program that is not there: 127, as a shell says');
	like($r->{stderr}, qr{cannot run '/nonexistent/program'}, 'and why');
};

# w_kill makes its calls, prints its truth line, then waits 30 s: the
# signal comes 2 to 3 s after the start, well after the calls
for my $sig (qw(TERM INT)) {
	subtest "SIG$sig sent to gputrace goes to the program" => sub {
		my $r = run_gt(['record', '--', w('w_kill'), '_exit', 50, '--wait', 30000],
			   signal => [$sig, 3], timeout => 60);
		my @t = GtSafety::truths($r);
		my $num = $sig eq 'TERM' ? 15 : 2;

		is($r->{signal}, $num, "gputrace ends of SIG$sig") or diag($r->{stderr});
		is(scalar(@{$r->{dumps}}), 1, 'one dump') or return;
		my ($j) = GtSafety::analyze($r->{dumps}[0]);
		GtSafety::exact($j, $t[0], 'the program died of it and wrote its dump');
	};
}

subtest 'a signal gputrace was started with ignored stays ignored' => sub {
	my $r = run_gt(['record', '--', '/bin/sh', '-c', 'grep "^SigIgn:" /proc/$$/status']);
	my $ign = GtRun::run(['/bin/sh', '-c', "trap '' INT; exec '$GT' record -- " .
			      '/bin/sh -c \'grep "^SigIgn:" /proc/$$/status\''], trace => 0);
	my $bit = sub { my ($h) = $_[0]{stdout} =~ /^SigIgn:\s*([0-9a-f]+)$/m;
			return defined $h ? hex(substr($h, -8)) & 2 : -1 };

	is($bit->($r), 0, 'SIGINT at the default: the program has it at the default');
	is($bit->($ign), 2, 'SIGINT ignored: the program has it ignored');
};

subtest 'run: record, then the report' => sub {
	my $r = run_gt(['run', '--', w('w_cudart'), 10, 5]);

	is($r->{exit}, 0, 'exits 0') or diag($r->{stderr});
	like($r->{stdout}, qr/^gputrace report: .*w_cudart 10 5$/m, 'the report');
	like($r->{stdout}, qr/^Verdict: /m, 'with its verdict');

	# (GPUTRACE_DEBUG=1: each process the library loads into says so)
	$r = run_gt(['run', '--', w('w_cudart'), 2, 1], env => { GPUTRACE_DEBUG => 1 });
	is(scalar(grep { /^gputrace: NCCL_PROFILER_PLUGIN=/ } split /\n/, $r->{stderr}), 1,
	   'the program traced, the analyzer not') or diag($r->{stderr});

	$r = run_gt(['run', '--', w('w_cudart'), '--exit=4', 2, 1]);
	is($r->{exit}, 4, 'the program\'s exit status');
	like($r->{stdout}, qr/^Verdict: /m, 'after the report');
};

subtest 'analyze is gputrace-analyze' => sub {
	my $r = run_gt(['record', '--', w('w_cudart'), 4, 2]);
	my $dump = $r->{dump} // '';
	my $want = qx{'${\ GtRun::analyzer()}' --json '$dump'};
	my $got = qx{'$GT' analyze --json '$dump'};

	ok(length($want) > 100, 'the analyzer reads the dump') or return;
	is($got, $want, 'the same JSON');
	system("'$GT' analyze /nonexistent.bin >/dev/null 2>&1");
	is($? >> 8, 2, 'and the same exit status on a missing dump');
};

for my $kind (qw(torchrun mpirun)) {
	subtest "ranks under $kind, named by %r" => sub {
		my $r = run_gt(['record', '-o', 'job/rank%r.bin', '--', $FAKE_LAUNCHER, $kind, 2,
			    w('w_cudart'), 6, 3]);
		my @listed = dump_lines($r);

		is($r->{exit}, 0, 'exits 0') or diag($r->{stderr});
		is_deeply(\@listed, ["$r->{dir}/job/rank0.bin", "$r->{dir}/job/rank1.bin"],
			  'one dump per rank, listed, in the folder made for them') or return;
		my @j = map { (GtSafety::analyze($_))[0] } @listed;
		is($j[$_] && $j[$_]{rank}, $_, "rank$_.bin is rank $_") for 0, 1;
		ok($j[0] && $j[0]{events} > 0 && $j[0]{events} == $j[1]{events},
		   'the two ran the same calls');
		$r = run_gt(['run', '-o', 'rank%r.bin', '--', $FAKE_LAUNCHER, $kind, 2,
			 w('w_cudart'), 6, 3]);
		is($r->{exit}, 0, 'run exits 0') or diag($r->{stderr});
		like($r->{stdout}, qr/rank 0.*\n(?:.*\n)*.*rank 1/, 'a report on both ranks');
	};
}

subtest 'the library is found beside, in ../lib, or not at all' => sub {
	my $d = tempdir('gt-XXXXXX', TMPDIR => 1, CLEANUP => 1);
	my $alone = tempdir('gt-XXXXXX', TMPDIR => 1, CLEANUP => 1);
	mkdir("$d/$_") for qw(bin lib);
	copy($GT, "$d/bin/gputrace") && chmod(0755, "$d/bin/gputrace");
	copy(GtRun::lib(), "$d/lib/libgputrace.so");
	copy($GT, "$alone/gputrace") && chmod(0755, "$alone/gputrace");

	my $r = GtRun::run(["$d/bin/gputrace", 'record', '--', '/usr/bin/env'], trace => 0);
	like($r->{stdout}, qr{^LD_PRELOAD=\Q$d\E/lib/libgputrace\.so$}m, 'in ../lib');
	SKIP: {
		skip 'a libgputrace.so is installed under /usr/local', 2
			if -e '/usr/local/lib/libgputrace.so';
		$r = GtRun::run(["$alone/gputrace", 'record', '--', '/usr/bin/env'], trace => 0);
		is($r->{exit}, 2, 'nowhere: exit 2');
		like($r->{stderr}, qr/^gputrace: cannot find libgputrace\.so/m, 'and says so');
	}
};

subtest 'usage and --version' => sub {
	my ($version) = GtRun::slurp("$FindBin::Bin/../../Makefile") =~ /^VERSION\s*:?=\s*(\S+)/m;

	is(qx{'$GT' --version}, "gputrace $version\n", "gputrace --version: $version");
	like(qx{'${\ GtRun::analyzer()}' --version},
	     qr/^gputrace-analyze \Q$version\E \(reads dump format \d+\)$/,
	     'gputrace-analyze --version: the same, and the format');
	for my $bad (['record'], ['record', '--gpu', 'sometimes', 'true'], ['frobnicate'], []) {
		system(join(' ', map { "'$_'" } $GT, @$bad) . ' >/dev/null 2>&1');
		is($? >> 8, 2, "'gputrace @$bad': exit 2");
	}
	like(qx{'$GT' --help}, qr/^usage: gputrace record/, '--help');
};

done_testing();
