# SPDX-License-Identifier: MIT
#
# GtSafety.pm - what the safety tests (test/t/7*.t) share: the truth lines
# of the safety workloads (test/workloads/launcher.h), every dump of a run
# read back, and the exact-count check of one dump against one truth.
#
#   my $r = GtRun::run(['w_fork', 'busy', 100, 50]);
#   my @t = GtSafety::truths($r);            # [{pid, launches, syncs}, ...]
#   my %d = GtSafety::dumps_by_pid($r);      # pid => [json, json...]
#   GtSafety::exact($d{$t[0]{pid}}[0], $t[0], 'parent');
package GtSafety;

use strict;
use warnings;
use File::Temp qw(tempfile);
use JSON::PP;
use Test::More;

use GtRun;

# Read a dump: (json or undef, what the analyzer said on stderr, its exit
# status).  Unlike GtRun::analyze, a warning does not spoil the JSON.
sub analyze {
	my ($dump) = @_;
	my ($fh, $errf) = tempfile(UNLINK => 1);
	my $out = qx{'${\ GtRun::analyzer()}' --json '$dump' 2>'$errf'};
	my $status = $? >> 8;
	my $err = GtRun::slurp($errf) // '';
	my $json = $status ? undef : eval { JSON::PP->new->decode($out) };

	return ($json, $err, $status);
}

# "[image=N ]truth pid=P launches=L syncs=S" lines, in order.
sub truths {
	my ($r) = @_;
	my @t;

	for (split /\n/, $r->{stdout}) {
		next unless /^(?:image=(\d+) )?truth pid=(\d+) launches=(\d+) syncs=(\d+)$/;
		push @t, { image => $1 // 0, pid => $2, launches => $3, syncs => $4 };
	}
	return @t;
}

# Every dump of the run, read: pid => [json...] in file-name order (an
# exec'd image writes NAME.1.bin after NAME.bin).  Unreadable ones are
# reported and left out.
sub dumps_by_pid {
	my ($r) = @_;
	my %by;

	for my $f (sort { length($a) <=> length($b) || $a cmp $b } @{$r->{dumps}}) {
		my ($j, $err, $status) = analyze($f);

		if (!$j) {
			diag("cannot read $f (exit $status): $err");
			next;
		}
		$j->{_file} = $f;
		$j->{_stderr} = $err;
		push @{$by{$j->{process}{pid}}}, $j;
	}
	return %by;
}

sub calls_of {
	my ($j, $table, $key, $name) = @_;
	my $n = 0;

	$n += $_->{calls} for grep { ($_->{$key} // '') eq $name } GtRun::rows($j, $table);
	return $n;
}

# The dump holds exactly what the truth says, nothing dropped; with
# opt{drops}, events + dropped do (a busy program may outrun the writer,
# and what is lost must be counted exactly).  It ends properly unless
# opt{early}.
sub exact {
	my ($j, $t, $what, %opt) = @_;

	subtest $what => sub {
		ok($j, 'a readable dump') or return;
		my $k = calls_of($j, 'kernels', 'symbol', GtRun::K_WORKER);
		my $s = calls_of($j, 'syncs', 'api', 'cuStreamSynchronize');
		if ($opt{drops}) {
			is($j->{events} + $j->{dropped}, $t->{launches} + $t->{syncs},
			   'events + dropped = launches + syncs');
			is($k + $s, $j->{events}, 'no other events');
		} else {
			is($k, $t->{launches}, 'launches');
			is($s, $t->{syncs}, 'stream syncs');
			is($j->{events}, $t->{launches} + $t->{syncs}, 'no other events');
			is($j->{dropped}, 0, 'nothing dropped');
		}
		ok($opt{early} ? $j->{ends_early} : !$j->{ends_early},
		   $opt{early} ? 'ends early' : 'ends properly');
	};
}

# The "gputrace: ..." lines of stderr.
sub tracer_lines {
	my ($r) = @_;

	return grep { /^gputrace: / } split /\n/, $r->{stderr};
}

1;
