#!/usr/bin/perl
# 150-output.t - where the dump goes: GPUTRACE_OUTPUT with %p %h %r (rank
# from RANK, OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID, else 0), the default
# name in the working directory, and the one line on stderr naming it.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Sys::Hostname qw(hostname);
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);

my $host = hostname();
my $out = tempdir('gt-out-XXXXXX', TMPDIR => 1, CLEANUP => 1);

sub check_named {
	my ($name, $env, $want) = @_;
	my $dir = tempdir(DIR => $out);
	my $r = GtRun::run(['w_cudart', 2, 1], env => $env,
			   output => "$dir/out-%h-%p-%r.bin");
	my $path = "$dir/out-$host-$r->{pid}-$want.bin";

	subtest $name => sub {
		is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
		ok(-s $path, "dump is out-$host-PID-$want.bin")
			or diag("have: " . join(' ', glob("$dir/*")));
		is($r->{line} && $r->{line}{path}, $path, 'stderr line names it');
		my ($j) = GtRun::analyze($path);
		is($j && $j->{process}{pid}, $r->{pid}, 'it is that process');
		is($j->{process}{rank}, $want, 'process.rank')
			if $j && exists $j->{process}{rank};
	};
}

check_named('RANK=3', { RANK => 3 }, 3);
check_named('no rank variable', {}, 0);
check_named('OMPI_COMM_WORLD_RANK=5', { OMPI_COMM_WORLD_RANK => 5 }, 5);
check_named('PMI_RANK=4 (MPICH, Intel MPI)', { PMI_RANK => 4 }, 4);
check_named('SLURM_PROCID=6', { SLURM_PROCID => 6 }, 6);
check_named('RANK wins over SLURM_PROCID',
	    { RANK => 3, SLURM_PROCID => 6 }, 3);

subtest 'default name in the working directory' => sub {
	my $cwd = tempdir(DIR => $out);
	my $r = GtRun::run(['w_cudart', 2, 1], output => undef, cwd => $cwd);
	my $want = "gputrace-$host-$r->{pid}.bin";

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok(-s "$cwd/$want", "dump is ./$want")
		or diag("have: " . join(' ', glob("$cwd/*")));
	like($r->{line} ? $r->{line}{path} : '', qr{(^|/)\Q$want\E$},
	     'stderr line names it');
};

subtest 'the stderr line' => sub {
	my $r = GtRun::run(['w_cudart', 3, 1]);
	my @lines = grep { /gputrace/ } split /\n/, $r->{stderr};

	is(scalar(@lines), 1, 'one gputrace line on stderr') or diag($r->{stderr});
	like($lines[0] // '', qr/^gputrace: wrote \S+ \(\d+ events, \d+ dropped\)$/,
	     'gputrace: wrote PATH (N events, M dropped)');
	is($r->{stdout}, '', 'nothing on stdout');
	ok($r->{json}, 'the dump it names is readable');
	is($r->{line}{events}, GtRun::traced_calls($r->{counts}),
	   'N is every traced call');
};

done_testing();
