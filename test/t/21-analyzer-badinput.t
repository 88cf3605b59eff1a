#!/usr/bin/perl
# 21-analyzer-badinput.t - every broken dump in test/corpus/ makes
# gputrace-analyze fail cleanly: exit status 2, one line on stderr, no
# signal, nothing on stdout, also with little address space.  A large good
# dump reads in bounded memory.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Compare qw(compare);
use File::Temp qw(tempdir);
use Test::More;

use GtDump qw(:DEFAULT run_analyzer analyzer_path varint zigzag chunk);

my $corpus = "$FindBin::Bin/../corpus";
my @files = sort glob("$corpus/*.bin");
my $tmp = tempdir(CLEANUP => 1);
my $VM_KB = 32 * 1024;

# AddressSanitizer reserves terabytes of shadow: no ulimit -v under it.
sub sanitized {
	open(my $fh, '<:raw', analyzer_path()) or return 0;
	local $/;
	my $bin = <$fh>;
	return index($bin, '__asan_init') >= 0;
}
my $limit = sanitized() ? undef : $VM_KB;

ok(@files >= 30, 'the corpus has its broken dumps') or diag(scalar @files);

for my $f (@files) {
	(my $name = $f) =~ s{.*/}{};
	for my $opt ({}, $limit ? { vm_kb => $limit } : ()) {
		my $how = $opt->{vm_kb} ? " (ulimit -v $opt->{vm_kb})" : '';
		my $r = run_analyzer($opt, '--json', $f);

		is($r->{signal}, 0, "$name$how: no signal");
		is($r->{exit}, 2, "$name$how: exit status 2");
		like($r->{err}, qr/^gputrace-analyze: '[^\n]*\Q$name\E' [^\n]*[^.\n]\n\z/,
		     "$name$how: one line on stderr") or diag($r->{err});
		is($r->{out}, '', "$name$how: nothing on stdout");
	}
}

my $r = run_analyzer("$tmp/missing.gtd");
is($r->{exit}, 2, 'missing file: exit 2');
like($r->{err}, qr/^gputrace-analyze: cannot open '.*missing\.gtd': /,
     'missing file: says so');
$r = run_analyzer($tmp);
is($r->{exit}, 2, 'a directory: exit 2');
like($r->{err}, qr/^gputrace-analyze: no gputrace dumps in /,
     'a directory (read as a folder of dumps) without dumps: says so');

# The script and the committed files agree.
system($^X, "$corpus/make-corpus.pl", $tmp) == 0 or die "make-corpus.pl failed\n";
my @made = map { s{.*/}{}r } sort glob("$tmp/*.bin");
is_deeply(\@made, [map { s{.*/}{}r } @files], 'make-corpus.pl makes the corpus');
is(scalar(grep { compare("$tmp/$_", "$corpus/$_") } @made), 0,
   'corpus files are what make-corpus.pl writes');
my @odd = map { s{.*/}{}r } sort glob("$tmp/odd/*.bin");
is_deeply(\@odd, [map { s{.*/}{}r } sort glob("$corpus/odd/*.bin")],
	  'make-corpus.pl makes the odd dumps');
is(scalar(grep { compare("$tmp/odd/$_", "$corpus/odd/$_") } @odd), 0,
   'odd dumps are what make-corpus.pl writes');

# Mutations of a good dump: flipped bytes, cuts, bad sizes, spliced
# bytes.  Each must give a report (0) or a clean failure (2).
{
	my $d = GtDump->new(start_ns => 1000, pid => 5);
	$d->process(host => 'h', exe => '/x', argv => ['x', '-y']);
	$d->op(op => 0, kind => KIND_LAUNCH, api => 'cuLaunchKernel');
	$d->op(op => 1, kind => KIND_COPY, api => 'cuMemcpyHtoD',
	       dir => DIR_HTOD);
	$d->op(op => 2, kind => KIND_SYNC, api => 'cuCtxSynchronize');
	$d->function(id => 1, name => '_Z1fPfi', handle => 0x10);
	$d->shape(id => 1, function => 1);
	$d->events(tid => 1, events => [map { {
		op => $_ % 3, t0 => 2000 + 100 * $_, dur => 10 * $_,
		args => [1, 2, 3, 4] } } 0 .. 29]);
	$d->drops(tid => 1, count => 2);
	$d->end(end_ns => 9000);
	my $good = $d->bytes;
	my ($bad, %seen) = (0);

	srand(7);
	for my $i (1 .. 200) {
		my $m = $good;
		my $at = 64 + int(rand(length($m) - 64));
		my $how = $i % 4;
		if ($how == 0) {
			substr($m, $at, 1) = chr(int(rand(256)));
		} elsif ($how == 1) {
			$m = substr($m, 0, $at);
		} elsif ($how == 2) {
			substr($m, $at, 4) = pack('V', (0, 1 << 24, 0xffffffff,
						     int(rand(2**32)))[$i % 8 / 2]);
		} else {
			substr($m, $at, 0) = substr($m, int(rand(length $m)), 9);
		}
		my $path = GtDump->new->write("$tmp/mut.gtd", $m);
		my $r = run_analyzer('--json', $path);
		$seen{$r->{exit}}++;
		my $ok = !$r->{signal} && ($r->{exit} == 0 ||
			($r->{exit} == 2 && $r->{err} =~ /\A[^\n]+\n\z/));
		$bad++ unless $ok;
		diag("mutation $i: exit $r->{exit} signal $r->{signal}: $r->{err}")
			unless $ok;
	}
	is($bad, 0, '200 mutated dumps: a report or a clean failure');
	ok($seen{0} && $seen{2}, 'mutations gave both reports and failures');
}

# 3 million events: 300 copies of one chunk of 10000 launches.
SKIP: {
	skip('AddressSanitizer build: no ulimit -v', 3) unless $limit;
	my $d = GtDump->new(start_ns => 1000);
	$d->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel');
	$d->function(id => 1, name => '_Z1kv', handle => 1);
	$d->shape(id => 1, function => 1);
	my $chunk = pack('V V Q< V V Q<', 1, 10_000, 1000, 1, 0, 0)
		. (varint(1) . varint(zigzag(1)) . varint(3000) . "\0\0\x01")
		x 10_000;
	$d->raw(chunk(CHUNK_EVENTS, $chunk)) for 1 .. 300;
	$d->end(end_ns => 10_000_000, events => 3_000_000);
	my $path = $d->write("$tmp/big.gtd");
	$r = run_analyzer({ vm_kb => $limit }, '--json', $path);
	is($r->{exit}, 0, "3M events under ulimit -v $limit: exit 0")
		or diag($r->{err});
	like($r->{out}, qr/"events": 3000000,/, '3M events counted');
	like($r->{out}, qr/"launch_ns_p99": 3000,/, 'their p99');
}

done_testing();
