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
use File::Temp qw(tempdir);
use Test::More;

my $root = "$FindBin::Bin/../..";
plan skip_all => 'python3 not installed'
	if system('sh', '-c', 'command -v python3 >/dev/null') != 0;

$ENV{PYTHONDONTWRITEBYTECODE} = 1;      # nothing written into the tree

my @py = (glob("$root/examples/diagnose/ddp/*.py"),
	  map { "$root/test/gpu/$_" } qw(check_multi.py multilib.py test_multilib.py
					    check_ranks.py check_nccl.py));
my $out = `python3 -c 'import sys
for f in sys.argv[1:]:
    compile(open(f).read(), f, "exec")
print("compiled", len(sys.argv) - 1)' @py 2>&1`;
is($?, 0, 'the check and the workloads compile') or diag($out);
like($out, qr/^compiled \d+$/, scalar(@py) . ' files');

$out = `python3 '$root/test/gpu/test_multilib.py' 2>&1`;
is($?, 0, 'the check\'s logic passes its unit test') or diag($out);
like($out, qr/^OK$/m, 'says OK');

# No GPU visible: one line saying why, nothing checked.
my $tmp = tempdir(CLEANUP => 1);
local $ENV{TMPDIR} = $tmp;
local $ENV{CUDA_VISIBLE_DEVICES} = '';
$out = `cd '$root' && python3 -c 'import sys
sys.argv = ["check", sys.argv[1]]
sys.path.insert(0, "test/gpu")
import check_multi, gpulib
check_multi.run()
print("verdicts", len(gpulib.results))' '$tmp/out' 2>&1`;
is($?, 0, 'no GPU: exit 0') or diag($out);
like($out, qr/\ASKIP multi: 0 GPUs visible; [^\n]*needs 2 or more[^\n]*\nverdicts 0\n\z/,
     'no GPU: one line saying why, no verdict');

done_testing();
