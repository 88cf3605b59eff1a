#!/usr/bin/perl
# make-corpus.pl - write the broken dumps of test/corpus/: each one must
# make gputrace-analyze fail with exit status 2 and a one-line message.
# The odd dumps of test/corpus/odd/ are readable but extreme (times near
# 2^64, redefinitions): every output mode must finish on them.
# Run it again after changing it and commit the .bin files with it:
#
#	perl test/corpus/make-corpus.pl [DIR]   (default: test/corpus)
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";

use GtDump qw(:DEFAULT header chunk varint);

my $dir = shift // $FindBin::Bin;

# A good start: the header, the name of one op, op 1 (a launch).
sub good { header(start_ns => 1000, pid => 7) }
sub str { chunk(CHUNK_STRING, pack('V', $_[0]) . $_[1]) }
sub op {
	my ($id, $kind, $api) = @_;
	return chunk(CHUNK_OP, pack('v C C V V V', $id, $kind, 0, 0, $api,
				    $api));
}
sub with_op { good() . str(1, 'cuLaunchKernel') . op(1, KIND_LAUNCH, 1) }
sub events {
	my ($count, $packed, $tid) = @_;
	return chunk(CHUNK_EVENTS, pack('V V Q< V V Q<', $tid // 1, $count, 1000,
				       1, 0, 0) . $packed);
}
# A launch event: op, dt0, dur, result, stream, shape.
sub launch { join '', map { varint($_) } ($_[0] // 1, 2, 3, 0, 0, 1) }
sub randbytes { join '', map { chr(int(rand(256))) } 1 .. $_[0] }

srand(20251129);
my $end = chunk(CHUNK_END, pack('Q<3', 5000, 1, 0));

my %corpus = (
	'empty' => '',
	'short-header' => substr(good(), 0, 30),
	'magic-only' => 'GPUTRACE',
	'bad-magic' => header(magic => 'GPUTRACX'),
	'random' => 'x' . randbytes(199),
	'new-version' => header(version => 2, min_reader => 2),
	'version-zero' => header(version => 0),
	'big-endian' => header(endian => 0x04030201),
	'bad-endian' => header(endian => 0xdeadbeef),
	'header-size-small' => header(header_size => 32),
	'header-size-huge' => header(header_size => 0xffffffff),
	'header-size-past-eof' => header(header_size => 128),
	'chunk-huge' => good() . pack('V V', CHUNK_EVENTS, 0xffffffff),
	'chunk-over-limit' => good() . pack('V V', 99, CHUNK_MAX + 1) . 'x',
	'string-undefined' => good() . op(1, KIND_LAUNCH, 5),
	'string-id-zero' => good() . str(0, 'zero'),
	'string-short' => good() . chunk(CHUNK_STRING, 'ab'),
	'function-string-undefined' => with_op()
		. chunk(CHUNK_FUNCTION, pack('V V Q<', 1, 9, 0x1000)),
	'process-short' => good() . chunk(CHUNK_PROCESS, 'x' x 10),
	'process-argc-huge' => good() . chunk(CHUNK_PROCESS,
		pack('V4 (V/a*)2', 7, 1, 0, 0xffffffff, 'host', 'exe')),
	'process-string-overflow' => good() . chunk(CHUNK_PROCESS,
		pack('V4 V a4 V/a*', 7, 1, 0, 0, 1000, 'host', 'exe')),
	'op-short' => good() . chunk(CHUNK_OP, 'abcd'),
	'op-bad-kind' => good() . str(1, 'cuFoo') . op(1, 42, 1)
		. events(1, launch()),
	'unknown-op' => with_op() . events(1, launch(7)),
	'op-id-huge' => with_op() . events(1, launch(70000)),
	'events-short' => with_op() . chunk(CHUNK_EVENTS, 'x' x 8),
	'events-count-huge' => with_op() . events(0xffffffff, launch()),
	'events-count-over' => with_op() . events(3, launch() . launch()),
	'events-count-short' => with_op() . events(2,
		join('', map { varint($_) } (1, 2, 1 << 50, 0, 0, 1))),
	'events-trailing' => with_op() . events(1, launch() . launch()),
	'events-zero-trailing' => with_op() . events(0, launch()),
	'events-bad-varint' => with_op()
		. events(1, "\xff" x 10 . "\x01" . varint(0) x 5),
	'events-varint-cut' => with_op()
		. events(1, launch() =~ s/.\z/\x80/sr),
	'events-garbage' => with_op() . events(4, randbytes(40)),
	'drops-short' => good() . chunk(CHUNK_DROPS, 'x' x 12),
	'end-short' => good() . chunk(CHUNK_END, 'x' x 8),
	'after-end' => with_op() . events(1, launch()) . $end
		. chunk(CHUNK_NOTE, pack('V', 0) . 'late'),
);

# Odd but readable: a clock pair and GPU records near the end of time,
# events and windows as long as the clock allows, a kernel defined twice.
no warnings 'portable';
my $TOP = 0xffffffff6e58e219;
my $launcher = good() . str(1, 'cuLaunchKernel')
	. chunk(CHUNK_OP, pack('v C C v C C V V', 1, KIND_LAUNCH, 0, 0, 1, 0,
			       1, 1));
sub clock_pair { chunk(19, pack('Q< Q< V V', $_[0], $_[1], 100, 0)) }
sub gpu_kernel {
	my ($start, $end) = @_;

	return chunk(13, pack('V4', 1, 1, 88, 0)
		. pack('Q<5 V4 l<6 V2', 0, $start, $end, 0, 0, 1, 7, 0, 0,
		       1, 1, 1, 32, 1, 1, 0, 0));
}
sub window { chunk(18, pack('Q< Q< V V', $_[0], $_[1], 1, 0)) }
my $kernel = $launcher . str(2, '_Z1fv') . str(3, '_Z1gv')
	. chunk(CHUNK_SHAPE, pack('V2 V3 V3 V V', 1, 1, 1, 1, 1, 32, 1, 1, 0, 0));
sub func { chunk(CHUNK_FUNCTION, pack('V V Q<', 1, $_[0], 0x1000)) }

my %odd = (
	'clock-wrap' => good() . clock_pair(5000, $TOP)
		. gpu_kernel(5000, 6000),
	'gpu-end-of-time' => good() . clock_pair(0, 0)
		. gpu_kernel(1000, 0xffffffffffffff00) . $end,
	'window-end-of-time' => good() . window(1000, 0xfffffffffffffff0)
		. window(0xfffffffffffffff0, 0xffffffffffffffff),
	'window-end-of-time-late' => good()
		. window(0xfffffffffffffff0, 0xffffffffffffffff)
		. window(1000, 0xfffffffffffffff0),
	'header-only' => good(),
	'events-end-of-time' => $launcher . chunk(CHUNK_EVENTS,
		pack('V V Q< V V Q<', 1, 2, 0xfffffffffffff000, 1, 0, 0)
		. join('', map { varint($_) } (1, 0, 0xff0, 0, 0, 1,
					     1, 2, 0xffffffffffffffff, 0, 0, 1))),
	'function-redefined' => $kernel . func(2) . events(1, launch())
		. func(3) . events(1, launch()) . func(2) . $end,
);
for my $name (sort keys %corpus) {
	GtDump->new->write("$dir/$name.bin", $corpus{$name});
}
mkdir("$dir/odd");
for my $name (sort keys %odd) {
	GtDump->new->write("$dir/odd/$name.bin", $odd{$name});
}
