#!/usr/bin/perl
# 823-check-multi.t - the multi-GPU check without a GPU: the check, its
# logic and the workloads of examples/diagnose/ddp/ compile; the check's
# pure logic passes its unit test (test/gpu/test_multilib.py: the command
# and environment of a job, NVLink multicast off, each rank's truth line,
# the job's step, the verdict and gain comparisons, the suite); with no GPU
# visible the check says why in one line and checks nothing.
use strict;
use warnings;
use FindBin;
use Test::More;
use lib "$FindBin::Bin/../lib";
use GtPy;

my $root = "$FindBin::Bin/../..";
plan skip_all => 'python3 not installed'
	if system('sh', '-c', 'command -v python3 >/dev/null') != 0;

GtPy::compiles(glob("$root/examples/diagnose/ddp/*.py"),
	       map { "$root/test/gpu/$_" } qw(check_multi.py multilib.py test_multilib.py
					    check_ranks.py check_nccl.py));
GtPy::unit_test("$root/test/gpu/test_multilib.py");

# No GPU visible: one line saying why, nothing checked.
local $ENV{CUDA_VISIBLE_DEVICES} = '';
my $out = GtPy::run_check($root, 'check_multi');
is($?, 0, 'no GPU: exit 0') or diag($out);
like($out, qr/\ASKIP multi: 0 GPUs visible; [^\n]*needs 2 or more[^\n]*\nverdicts 0\n\z/,
     'no GPU: one line saying why, no verdict');

done_testing();
