# SPDX-License-Identifier: MIT
#
# GtRead.pm - read a dump as include/gputrace/format.h describes it, for
# tests that look at what the library wrote without the analyzer: notes,
# strings, ops, stacks and events (each with its op's kind and arguments).
#
#   my $d = GtRead::read_dump($path) or die;
#   for my $e (@{ $d->{events} }) { ... $e->{kind}, $e->{args}[0] ... }
#   my $s = $d->{stacks}{$id};   # { native => [pcs], python => [[file, func, line]] }
#
# Only what the tests need is decoded; other chunks are skipped.
package GtRead;

use strict;
use warnings;

use GtRun;

use constant {
	CHUNK_STRING => 2, CHUNK_OP => 3, CHUNK_EVENTS => 7, CHUNK_NOTE => 10,
	CHUNK_STACK => 11,
	KIND_HOSTSAMPLE => 9,
};

# One LEB128 varint of $$b at $$at (moved past it).
sub varint {
	my ($b, $at) = @_;
	my ($v, $shift) = (0, 0);

	while ($$at < length $$b) {
		my $c = ord(substr($$b, $$at++, 1));
		$v |= ($c & 0x7f) << $shift;
		return $v unless $c & 0x80;
		$shift += 7;
	}
	return $v;
}

sub unzigzag { my ($z) = @_; return ($z & 1) ? -(($z + 1) >> 1) : $z >> 1 }

sub op_chunk {
	my ($d, $p) = @_;
	my ($op, $kind, $dir, $flags, $nargs, $res, $api, $sym) =
		unpack('v C C v C C V V', $p);

	$d->{ops}{$op} = { kind => $kind, nargs => $nargs, api => $d->{strings}{$api},
			   symbol => $d->{strings}{$sym} };
}

sub stack_chunk {
	my ($d, $p) = @_;
	my ($id, $nn, $np) = unpack('V v v', $p);
	my @native = unpack("Q<$nn", substr($p, 8, 8 * $nn));
	my @python;

	for my $i (0 .. $np - 1) {
		my ($file, $func, $line) = unpack('V V V', substr($p, 8 + 8 * $nn + 16 * $i, 12));
		push @python, [ $d->{strings}{$file}, $d->{strings}{$func}, $line ];
	}
	$d->{stacks}{$id} = { native => \@native, python => \@python };
}

sub events_chunk {
	my ($d, $p) = @_;
	my ($tid, $count, $base) = unpack('V V Q<', $p);
	my $at = 32;
	my $t = $base;

	for (1 .. $count) {
		my $op = varint(\$p, \$at);
		my %e = (tid => $tid, op => $op);
		$t += unzigzag(varint(\$p, \$at));
		$e{t0} = $t;
		$e{dur} = varint(\$p, \$at);
		$e{result} = varint(\$p, \$at);
		$e{stream} = varint(\$p, \$at);
		my $o = $d->{ops}{$op} or return;
		$e{kind} = $o->{kind};
		$e{args} = [ map { varint(\$p, \$at) } 1 .. $o->{nargs} ];
		push @{ $d->{events} }, \%e;
	}
}

# The dump at $path as { notes, strings, ops, stacks, events, complete };
# undef when it cannot be read.
sub read_dump {
	my ($path) = @_;
	my $b = GtRun::slurp($path) // return undef;
	return undef unless length $b >= 64 && substr($b, 0, 8) eq 'GPUTRACE';
	my $off = unpack('V', substr($b, 12, 4));
	my $d = { notes => [], strings => {}, ops => {}, stacks => {}, events => [],
		  pid => unpack('V', substr($b, 40, 4)) };

	while ($off + 8 <= length $b) {
		my ($type, $size) = unpack('V V', substr($b, $off, 8));
		last if $off + 8 + $size > length $b;
		my $p = substr($b, $off + 8, $size);
		$off += 8 + $size;
		if ($type == CHUNK_STRING) {
			$d->{strings}{unpack('V', $p)} = substr($p, 4);
		} elsif ($type == CHUNK_NOTE) {
			push @{ $d->{notes} }, substr($p, 4);
		} elsif ($type == CHUNK_OP) {
			op_chunk($d, $p);
		} elsif ($type == CHUNK_STACK) {
			stack_chunk($d, $p);
		} elsif ($type == CHUNK_EVENTS) {
			events_chunk($d, $p);
		} elsif ($type == 9) {
			$d->{complete} = 1;
		}
	}
	return $d;
}

# The host samples of a dump: { tid, t0, dur, stack, state, incall }.
sub host_samples {
	my ($d) = @_;

	return map { { tid => $_->{tid}, t0 => $_->{t0}, dur => $_->{dur},
		       stack => $_->{args}[0], state => $_->{args}[1],
		       incall => $_->{args}[2] } }
		grep { $_->{kind} == KIND_HOSTSAMPLE } @{ $d->{events} };
}

1;
