#!/usr/bin/perl
# 416-hostsample-python.t - host stack samples of a Python program
# (w_hostcpu.py) that burns CPU in a known method between waits on the fake
# driver through ctypes: where the library reads Python frames directly
# (CPython 3.11, 3.12), its samples come at the rate asked of the thread's
# CPU time and name that method first, its caller next.  Without direct
# reads the samples are still taken, without Python frames.  Skipped
# without python3.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRead;
use GtRun;

GtRun::require_built(tracer => 1);
my $script = "$FindBin::Bin/../workloads/w_hostcpu.py";
my ($python) = grep { -x } map { "$_/python3" } split(/:/, $ENV{PATH} // '');
plan skip_all => 'no python3' unless $python;

my $MS = 400;
my $r = GtRun::run([$python, $script, $MS],
		   env => { FAKE_CUDA_SYNC_NS => 1000, GPUTRACE_HOST_HZ => 100 });
my $d = $r->{dump} && GtRead::read_dump($r->{dump});
my ($cpu) = $r->{stdout} =~ /^cpu ns=(\d+)$/m;

is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
ok($d && $d->{complete}, 'a complete dump') or BAIL_OUT('no dump');
ok($cpu, 'the script said its CPU time') or diag($r->{stdout});
ok($r->{json}, 'the analyzer reads it') or diag($r->{analyze_err});

my ($note) = grep { /^host sampler: / } @{ $d->{notes} };
my @s = GtRead::host_samples($d);
my $want = $cpu / 1e7;
like($note // '', qr/^host sampler: 100 Hz/, 'the note says how samples are taken');
# a busy machine delivers a CPU timer's expiries late and together (its
# overrun): the count may fall far short, the samples' CPU time does not
my $sampled = 0;
$sampled += $_->{dur} for @s;
cmp_ok(scalar @s, '>=', 1, 'samples');
cmp_ok(scalar @s, '<=', int(1.25 * $want) + 2, "no more than 5/4 of $want");
cmp_ok($sampled, '>=', 0.75 * $cpu - 2e7, 'their CPU time >= 3/4 of the script\'s');
cmp_ok($sampled, '<=', 1.25 * $cpu + 2e7, 'and <= 5/4');

SKIP: {
	skip 'python frames are not read directly here', 3
		unless ($note // '') =~ /python frames: read directly/;
	my ($named, $caller) = (0, 0);
	for my $s (@s) {
		my $py = ($d->{stacks}{ $s->{stack} } // {})->{python} // [];
		next unless @$py && $py->[0][1] eq 'Trainer.burn_python_here';
		$named++;
		$caller++ if @$py > 1 && $py->[1][1] eq 'Trainer.step';
	}
	cmp_ok($named, '>=', 0.9 * @s, '9 in 10 name Trainer.burn_python_here first');
	is($caller, $named, 'then its caller, Trainer.step');
	like(($d->{stacks}{ $s[0]{stack} } // { python => [['']] })->{python}[0][0],
	     qr/w_hostcpu\.py$/, 'in the script\'s file');
}

# libgcc's unwinder parses unwind tables at every frame, slowly in a
# handler: a Python program read directly keeps the interrupted
# instruction alone, unless GPUTRACE_HOST_NATIVE asks for more
SKIP: {
	skip 'python frames are not read directly here', 2
		unless ($note // '') =~ /python frames: read directly/;
	for my $case ([undef, qr/ 1 native frame \(libgcc's unwinder is slow in a handler\)/],
		      [8, qr/ 8 native frames;/]) {
		my $g = GtRun::run([$python, $script, 100],
				   env => { FAKE_CUDA_SYNC_NS => 1000, GPUTRACE_HOST_HZ => 100,
					    GPUTRACE_UNWIND => 'libgcc',
					    GPUTRACE_HOST_NATIVE => $case->[0] });
		my $gd = $g->{dump} && GtRead::read_dump($g->{dump});
		my ($n) = grep { /^host sampler: / } @{ $gd ? $gd->{notes} : [] };
		like($n // '', $case->[1], 'libgcc, GPUTRACE_HOST_NATIVE ' .
		     ($case->[0] // 'unset') . ': the note says the native frames kept');
	}
}

done_testing();
