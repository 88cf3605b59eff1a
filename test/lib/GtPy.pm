# SPDX-License-Identifier: MIT
#
# GtPy.pm - the Python side of the GPU checks, tested without a GPU: that
# a set of Python files compiles, that a unittest script passes (it prints
# OK last when it does), and what a check module's run() says where it
# cannot run.  Nothing is written into the tree.
#
#   GtPy::compiles(glob("$root/examples/diagnose/*.py"), "$root/test/gpu/x.py");
#   GtPy::unit_test("$root/test/gpu/test_x.py");
#   my $out = GtPy::run_check($root, 'check_x');   # its lines, then "verdicts N"
package GtPy;

use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

$ENV{PYTHONDONTWRITEBYTECODE} = 1;

# Two checks: python3 compiles every file, and it read them all.
sub compiles {
	my (@py) = @_;
	my $out = `python3 -c 'import sys
for f in sys.argv[1:]:
    compile(open(f).read(), f, "exec")
print("compiled", len(sys.argv) - 1)' @py 2>&1`;
	is($?, 0, 'the check and the workloads compile') or diag($out);
	like($out, qr/^compiled ${\ scalar(@py)}$/, scalar(@py) . ' files');
}

# Two checks: the script exits 0 and says OK.
sub unit_test {
	my ($script) = @_;
	my $out = `python3 '$script' 2>&1`;
	is($?, 0, 'the check\'s logic passes its unit test') or diag($out);
	like($out, qr/^OK$/m, 'says OK');
}

# Run one GPU check module's run() from the root (gpulib's folders under
# a temporary TMPDIR, OUT in it too): its output, then "verdicts N" (how
# many verdicts it gave); $? is its exit status.
sub run_check {
	my ($root, $module) = @_;
	my $tmp = tempdir(CLEANUP => 1);
	local $ENV{TMPDIR} = $tmp;
	return `cd '$root' && python3 -c 'import sys
sys.argv = ["check", sys.argv[1]]
sys.path.insert(0, "test/gpu")
import $module, gpulib
$module.run()
print("verdicts", len(gpulib.results))' '$tmp/out' 2>&1`;
}

1;
