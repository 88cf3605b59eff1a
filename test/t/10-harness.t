#!/usr/bin/perl
# 10-harness.t - what test/lib/GtRun.pm gives every workload, whatever
# started the suite: SIGINT and SIGQUIT at the default even when the suite
# itself runs with them ignored (nohup, a shell without job control, some
# CI runners), so the signal tests see what a program started from a
# terminal sees.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

GtRun::require_built();

# The mask of ignored signals of the workload, from /proc.
sub ignored_mask {
	my $r = GtRun::run(['/bin/sh', '-c', 'grep "^SigIgn:" /proc/$$/status'],
			   trace => 0);
	my ($hex) = $r->{stdout} =~ /^SigIgn:\s*([0-9a-f]+)$/m;

	return defined $hex ? hex(substr($hex, -8)) : undef;   # signals 1-32
}

my $bit = sub { 1 << ($_[0] - 1) };

{
	local $SIG{INT} = 'IGNORE';
	local $SIG{QUIT} = 'IGNORE';
	my $mask = ignored_mask();

	ok(defined $mask, 'the workload ran and read its signal state') or last;
	is($mask & $bit->(2), 0, 'SIGINT at the default though the suite ignores it');
	is($mask & $bit->(3), 0, 'SIGQUIT too');
}

done_testing();
