#!/usr/bin/perl
# 824-check-diagnosis.t - the diagnosis suite's check without a GPU: the
# check, its logic and every workload of examples/diagnose/ compile; the
# check's pure logic and the workloads' measuring code pass their unit
# test (test/gpu/test_diaglib.py: the sets and names picked, the
# host-function truth and its check against a report, the share counters,
# the suite against its scripts); a set that does not exist fails the
# check in one line before anything runs.
use strict;
use warnings;
use FindBin;
use Test::More;
use lib "$FindBin::Bin/../lib";
use GtPy;

my $root = "$FindBin::Bin/../..";
plan skip_all => 'python3 not installed'
	if system('sh', '-c', 'command -v python3 >/dev/null') != 0;

GtPy::compiles(glob("$root/examples/diagnose/*.py"),
	       map { "$root/test/gpu/$_" } qw(check_diagnosis.py diaglib.py test_diaglib.py));
GtPy::unit_test("$root/test/gpu/test_diaglib.py");

# A set that does not exist: one failed verdict that says which sets do.
local $ENV{GT_DIAG_SET} = 'bogus';
my $out = GtPy::run_check($root, 'check_diagnosis');
is($?, 0, 'unknown set: exit 0') or diag($out);
like($out, qr/\AFAIL diag-suite: ValueError: GT_DIAG_SET='bogus': one of core, old, frameworks, new, all\nverdicts 1\n\z/,
     'unknown set: one failed verdict naming the sets');

done_testing();
