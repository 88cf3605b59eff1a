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

done_testing();
