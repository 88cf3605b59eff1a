#!/usr/bin/perl
# 132-unload.t - a kernel handle given to another kernel after its module
# was unloaded (as XLA's autotuner does): the second kernel's launches
# carry its own name, and its argument hash reads only its own one
# parameter (w_unload puts it just before memory that cannot be read: a
# layout kept from the first kernel would read past it and kill the run).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;
use GtSafety;

GtRun::require_built(tracer => 1);

my $n = 200;
my $r = GtRun::run(['w_unload', $n], env => { FAKE_CUDA_SYNC_NS => 1000 });
my $j = $r->{json};

is($r->{signal}, 0, 'no signal ends the program') or diag(GtRun::describe($r));
is($r->{exit}, 0, 'it runs to its end');
like($r->{stdout} // '', qr/unload reused=1/, 'the fake gave the handle again');
ok($j, 'the analyzer read the dump') or done_testing(), exit;
is(GtSafety::calls_of($j, 'kernels', 'symbol', 'wide_kernel_p8'), $n,
   'the first kernel: its launches, under its name');
is(GtSafety::calls_of($j, 'kernels', 'symbol', 'narrow_kernel_p1'), $n,
   'the kernel that took its handle: its own name');
done_testing();
