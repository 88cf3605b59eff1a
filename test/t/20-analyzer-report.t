#!/usr/bin/perl
# 20-analyzer-report.t - gputrace-analyze on synthetic dumps whose answers
# are known: counts, bytes, names, percentiles, sorting, text and JSON.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use List::Util qw(max sum);
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);

my $dir = tempdir(CLEANUP => 1);
my $START = 1_000_000_000;

# All the kinds of calls, spread over two threads and three chunks.
sub full_dump {
	my $d = GtDump->new(pid => 4242, start_ns => $START);

	$d->process(pid => 4242, ppid => 1, rank => 3, host => 'node7',
		    exe => '/usr/bin/app', argv => ['app', '--steps', '3']);
	$d->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel');
	$d->op(op => 8, kind => KIND_LAUNCH, api => 'cuLaunchKernel',
	       symbol => 'cuLaunchKernel_ptsz', flags => OPF_ASYNC | OPF_PTSZ);
	$d->op(op => 2, kind => KIND_COPY, api => 'cuMemcpyHtoD',
	       symbol => 'cuMemcpyHtoD_v2', dir => DIR_HTOD);
	$d->op(op => 10, kind => KIND_COPY, api => 'cuMemcpyHtoD',
	       symbol => 'cuMemcpyHtoD_v2_ptds', dir => DIR_HTOD);
	$d->op(op => 3, kind => KIND_COPY, api => 'cuMemcpyHtoDAsync',
	       symbol => 'cuMemcpyHtoDAsync_v2', dir => DIR_HTOD,
	       flags => OPF_ASYNC);
	$d->op(op => 4, kind => KIND_COPY, api => 'cuMemcpyDtoH',
	       dir => DIR_DTOH);
	$d->op(op => 9, kind => KIND_COPY, api => 'cuMemcpy', dir => DIR_NONE);
	$d->op(op => 5, kind => KIND_SET, api => 'cuMemsetD8');
	$d->op(op => 6, kind => KIND_SYNC, api => 'cuStreamSynchronize');
	$d->op(op => 7, kind => KIND_GRAPH, api => 'cuGraphLaunch');

	$d->function(id => 1, name => '_Z6vecAddPfS_S_i', handle => 0x1000);
	$d->function(id => 2, name => 'scale', handle => 0x2000);
	$d->function(id => 3, name => undef, handle => 0xdead);
	$d->function(id => 4, name => '_Z6vecAddPfS_S_i', handle => 0x1001);
	$d->function(id => 5, name => 'beta', handle => 0x5000);
	$d->function(id => 6, name => 'alpha', handle => 0x6000);
	$d->shape(id => $_->[0], function => $_->[1], grid => [$_->[0], 1, 1])
		for [1, 1], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5], [7, 6];
	$d->stream(id => 1, handle => 0x7f00);

	# vecAdd: 100 launches of 1..100 us over shapes 1, 2, 5, ops 1, 8
	my $t = $START + 1000;
	my @ev;
	for my $i (1 .. 100) {
		push @ev, { op => $i % 2 ? 1 : 8, t0 => $t, dur => 1000 * $i,
			    stream => 1, args => [(1, 2, 5)[$i % 3]] };
		$t += 200_000;
	}
	$d->events(tid => 100, events => [@ev[0 .. 49]]);
	$d->events(tid => 100, events => [@ev[50 .. 99]]);

	my @t2 = map { $START + 50_000 + 1000 * $_ } 0 .. 40;
	$d->events(tid => 200, base_ns => $START, events => [
		(map { { op => 1, t0 => $t2[$_], dur => 20_000, args => [3] } }
		 0 .. 9),
		(map { { op => 1, t0 => $t2[10 + $_], dur => 100, args => [4] } }
		 0 .. 2),
		{ op => 1, t0 => $t2[13], dur => 777, args => [6] },
		{ op => 1, t0 => $t2[14], dur => 777, args => [7] },
		{ op => 2, t0 => $t2[15], dur => 10, args => [100, 1, 2, 1] },
		{ op => 10, t0 => $t2[16], dur => 20, args => [200, 1, 2, 1] },
		{ op => 2, t0 => $t2[17], dur => 30, args => [300, 1, 2, 1] },
		{ op => 3, t0 => $t2[18], dur => 5, args => [1 << 20, 1, 2, 1] },
		{ op => 3, t0 => $t2[19], dur => 5, args => [1 << 20, 1, 2, 1] },
		{ op => 4, t0 => $t2[20], dur => 1000, args => [4096, 2, 1, 1] },
		{ op => 9, t0 => $t2[21], dur => 7, args => [8, 3, 4, 1] },
		{ op => 5, t0 => $t2[22], dur => 3, args => [64, 9] },
		{ op => 5, t0 => $t2[23], dur => 3, args => [64, 9] },
		# out of order: a negative dt0
		{ op => 6, t0 => $t2[26], dur => 100, args => [1] },
		{ op => 6, t0 => $t2[24], dur => 200, args => [1] },
		{ op => 6, t0 => $t2[25], dur => 300, args => [1] },
		{ op => 6, t0 => $t2[27], dur => 50_000, args => [1] },
		{ op => 7, t0 => $t2[28], dur => 400, args => [0xabc] },
		{ op => 7, t0 => $t2[29], dur => 600, args => [0xabc] },
	]);
	$d->drops(tid => 200, count => 5);
	$d->drops(tid => 0, count => 2);
	return $d;
}

sub analyze_json {
	my ($path, @args) = @_;
	my $r = run_analyzer('--json', @args, $path);

	is($r->{exit}, 0, "--json $path exits 0") or diag($r->{err});
	my $j = eval { decode_json($r->{out}) };
	ok($j, 'output is one JSON object') or diag($@, $r->{out});
	return ($j // {}, $r);
}

sub row {
	my ($rows, %want) = @_;
	for my $row (@$rows) {
		return $row unless grep {
			!defined $row->{$_} || $row->{$_} ne $want{$_}
		} keys %want;
	}
	return undef;
}

sub near {
	my ($got, $want, $name) = @_;
	ok(abs($got - $want) <= $want * 0.01, "$name: $got within 1% of $want");
}

# --- the full dump, with an end record --------------------------------------
my $full = full_dump();
$full->end(end_ns => $START + 30_000_000, dropped => 3);
my $path = $full->write("$dir/full.gtd");
my ($j, $r) = analyze_json($path);

is($r->{err}, '', 'nothing on stderr');
is($j->{format_version}, 1, 'format_version');
is_deeply($j->{process}{pid}, 4242, 'pid');
is($j->{process}{command}, 'app --steps 3', 'command is argv joined');
is($j->{host}, 'node7', 'host');
is($j->{rank}, 3, 'rank');
is($j->{wall_ns}, 30_000_000, 'wall from the end record');
is($j->{events}, 100 + 30, 'every event counted');
is($j->{dropped}, 7, 'dropped: sum of drops beats the end record');
ok(!$j->{ends_early}, 'does not end early');
is($j->{threads}, 2, 'two threads');
is($j->{streams}, 1, 'one stream');

my $k = $j->{kernels};
is(scalar @$k, 5, 'five kernel rows (same symbol over functions merged)');
is($k->[0]{name}, 'vecAdd(float*, float*, float*, int)', 'demangled name');
is($k->[0]{symbol}, '_Z6vecAddPfS_S_i', 'raw symbol');
is($k->[0]{calls}, 100, 'vecAdd calls over shapes, functions, ops');
is($k->[0]{launch_ns_total}, 5_050_000, 'vecAdd total');
near($k->[0]{launch_ns_p50}, 50_000, 'vecAdd p50');
near($k->[0]{launch_ns_p99}, 99_000, 'vecAdd p99');
is($k->[1]{name}, 'scale', 'extern "C" name kept');
is($k->[1]{symbol}, 'scale', 'extern "C" symbol');
is($k->[1]{launch_ns_total}, 200_000, 'scale total');
is($k->[1]{launch_ns_p50}, 20_000, 'scale p50 exact for equal values');
is_deeply([map { $_->{name} } @$k[2, 3]], ['alpha', 'beta'],
	  'equal cost sorted by name');
is($k->[4]{name}, '<unknown 0xdead>', 'unnamed function shows its handle');
is($k->[4]{calls}, 3, 'unknown kernel calls');
is($k->[4]{launch_ns_total}, 300, 'unknown kernel total');
my @tot = map { $_->{launch_ns_total} } @$k;
is_deeply(\@tot, [sort { $b <=> $a } @tot], 'kernels sorted by cost');

my $c = $j->{copies};
is(scalar @$c, 4, 'four copy classes');
is_deeply(row($c, api => 'cuMemcpyHtoD', async => JSON::PP::false),
	  { api => 'cuMemcpyHtoD', direction => 'HtoD',
	    async => JSON::PP::false, memory => 'unknown', calls => 3,
	    bytes => 600, host_ns_total => 60 }, 'sync HtoD merged over two ops');
is_deeply(row($c, api => 'cuMemcpyHtoDAsync'),
	  { api => 'cuMemcpyHtoDAsync', direction => 'HtoD',
	    async => JSON::PP::true, memory => 'unknown', calls => 2,
	    bytes => 2 << 20, host_ns_total => 10 }, 'async HtoD');
is(row($c, api => 'cuMemcpyDtoH')->{direction}, 'DtoH', 'DtoH');
is(row($c, api => 'cuMemcpy')->{direction}, 'other', 'no direction: other');
is($c->[0]{api}, 'cuMemcpyDtoH', 'costliest copy first');

is_deeply($j->{sets}, [{ api => 'cuMemsetD8', async => JSON::PP::false,
			 calls => 2, bytes => 128, host_ns_total => 6 }],
	  'memsets');
my $s = $j->{syncs}[0];
is_deeply([@$s{qw(api calls wait_ns_total wait_ns_max)}],
	  ['cuStreamSynchronize', 4, 50_600, 50_000], 'waits');
is_deeply([@{ $j->{graphs}[0] }{qw(handle calls launch_ns_total)}],
	  [0xabc, 2, 1000], 'graph launches');

# --- the text report ---------------------------------------------------------
$r = run_analyzer($path);
is($r->{exit}, 0, 'text report exits 0');
my @lines = split /\n/, $r->{out};
ok(!grep({ length > 100 } @lines), 'text fits in 100 columns');
like($r->{out}, qr/^gputrace report: app --steps 3$/m, 'command line');
like($r->{out}, qr/pid 4242  host node7  rank 3  wall 30\.00 ms  events 130/,
     'header line');
like($r->{out}, qr/^warning: 7 events were dropped/m, 'drops warned');
like($r->{out}, qr/^  vecAdd\s+100\s+5\.05 ms/m,
     'kernel row with human times, short name (no parameter list)');
like($r->{out}, qr/^Graph launches/m, 'graph table');
like($r->{out}, qr/^Memsets/m, 'memset table');
like($r->{out}, qr/^  cuMemcpyHtoDAsync\s+HtoD\s+unknown\s+async\s+2\s+2\.00 MiB\s+10 ns/m,
     'copy row with human bytes');
like($r->{out}, qr/^  cuStreamSynchronize\s+4\s+50\.60 us/m, 'wait row');
my ($kernels) = $r->{out} =~ /^Kernels.*?\n(.*?)\n\n/ms;
my @names = map { /^  (\S+)/ ? $1 : () } split /\n/, $kernels;
is_deeply(\@names, ['Kernel', 'vecAdd', 'scale', 'alpha', 'beta',
		    '<unknown'], 'text rows sorted like JSON');

$r = run_analyzer('--top', '2', $path);
like($r->{out}, qr/^  \.\.\. 3 more$/m, '--top 2 hides the other 3 kernels');
$r = run_analyzer('--top', '0', $path);
unlike($r->{out}, qr/more$/m, '--top 0 shows all');
$r = run_analyzer('--top', 'x', $path);
is($r->{exit}, 2, 'bad --top is a usage error');

# --- long names are cut, not wrapped ------------------------------------------
my $long = GtDump->new(start_ns => $START);
my $tmpl = '_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_';
$long->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel');
$long->op(op => 2, kind => KIND_COPY, api => 'cuMemcpy' . ('X' x 120));
$long->function(id => 1, name => $tmpl, handle => 1);
$long->function(id => 2, name => "bad\x01name\xff\"q\\", handle => 2);
$long->shape(id => 1, function => 1);
$long->shape(id => 2, function => 2);
$long->events(tid => 1, events => [
	{ op => 1, t0 => $START + 10, dur => 5, args => [1] },
	{ op => 1, t0 => $START + 20, dur => 4, args => [2] },
	{ op => 1, t0 => $START + 30, dur => 3, args => [99] },
	{ op => 2, t0 => $START + 40, dur => 3, args => [1, 2, 3, 4] }]);
$long->end(end_ns => $START + 100);
$path = $long->write("$dir/long.gtd");
{
	local $ENV{COLUMNS} = 100;      # a terminal that wide (a pipe's too)
	$r = run_analyzer($path);
}
@lines = split /\n/, $r->{out};
ok(!grep({ length > 100 } @lines), 'long names still fit in 100 columns')
	or diag($r->{out});
like($r->{out}, qr/^  vectorized_elementwise_kernel<4, FillFunctor<\.\.\.>, Array<\.\.\.>>  /m,
     'long demangled name shortened: no return type, namespaces and nested templates folded');
ok(!grep({ /[^\x20-\x7e]/ } @lines), 'text report is printable ASCII');
($j) = analyze_json($path);
is($j->{kernels}[0]{name},
   'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, '
   . 'at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, '
   . 'at::detail::Array<char*, 1>)', 'template kernel demangled in full');
my $bad = row($j->{kernels}, symbol => "bad\x01name\x{fffd}\"q\\");
ok($bad, 'control bytes and bad UTF-8 escaped in valid JSON');
ok(row($j->{kernels}, name => '<unknown shape 99>'), 'unknown shape named');

# --- ends early: no end record ---------------------------------------------------
my $early = full_dump();
$path = $early->write("$dir/early.gtd");
($j, $r) = analyze_json($path);
like($r->{err}, qr/^warning: '\Q$path\E' ends early \(no end record\): the program did not finish tracing, or its disk filled\n\z/,
     'ends-early warning on stderr');
ok($j->{ends_early}, 'ends_early is true');
is($j->{events}, 130, 'all events of a dump without an end');
is($j->{wall_ns}, 1000 + 99 * 200_000 + 100_000,
   'wall runs to the last t1 without an end record');
is($j->{dropped}, 7, 'drops without an end record');
$r = run_analyzer($path);
is($r->{exit}, 0, 'text report of a dump that ends early exits 0');
like($r->{out}, qr/^warning: the dump ends early/m, 'text report warns too');

# --- ends early: the last chunk is cut short --------------------------------------
# Without its end record the full dump ends with two 24-byte drops chunks,
# after the third events chunk.
my $whole = full_dump()->bytes;
my $len = length $whole;
for my $case ([$len - 5, 130, 5, 'inside the last chunk'],
	      [$len - 48 + 3, 130, 0, 'inside a chunk header'],
	      [$len - 48 - 10, 100, 0, 'inside an events chunk']) {
	my ($at, $events, $dropped, $what) = @$case;
	$path = GtDump->new->write("$dir/cut.gtd", substr($whole, 0, $at));
	($j, $r) = analyze_json($path);
	like($r->{err}, qr/ends early/, "cut $what: ends early");
	is($j->{events}, $events, "cut $what: events of whole chunks");
	is($j->{dropped}, $dropped, "cut $what: drops of whole chunks");
}
my $bytes = $full->bytes;
$path = GtDump->new->write("$dir/cutend.gtd", substr($bytes, 0, -3));
($j, $r) = analyze_json($path);
is($j->{events}, 130, 'cut inside the end record: events kept');
ok($j->{ends_early}, 'cut inside the end record: ends early');

# --- the end record's drop count wins when larger --------------------------------
my $drops = GtDump->new(start_ns => 10);
$drops->drops(tid => 1, count => 4);
$drops->end(end_ns => 50, events => 0, dropped => 40);
($j) = analyze_json($drops->write("$dir/drops.gtd"));
is($j->{dropped}, 40, 'dropped = max(end record, sum of drops)');
is($j->{wall_ns}, 40, 'wall with no events');
is_deeply([$j->{kernels}, $j->{copies}, $j->{syncs}], [[], [], []],
	  'empty tables are empty arrays');

# --- forward compatibility: bigger header, longer chunks, unknown types -----------
my $fwd = GtDump->new(start_ns => 0, header_size => 72);
$fwd->raw(pack('Q<', 0));                    # the header's 8 new bytes
$fwd->string('cuCtxSynchronize');
$fwd->add_chunk(CHUNK_OP, pack('v C C v C C V V', 1, KIND_SYNC, 0, 0, 2, 0, 1, 1)
		. "new fields");
$fwd->add_chunk(99, 'a chunk type from the future');
$fwd->note(1, 'recorder said hello');
my $long_note = join(' ', ('word') x 40) . " \e[31mred\e[0m";
$fwd->note(0, $long_note);
$fwd->{ops}{1} = KIND_SYNC;
$fwd->events(tid => 3, events => [{ op => 1, t0 => 5, dur => 9, args => [0] }]);
$fwd->end(end_ns => 20);
($j, $r) = analyze_json($fwd->write("$dir/fwd.gtd"));
is($j->{syncs}[0]{api}, 'cuCtxSynchronize', 'longer op chunk read');
is($j->{events}, 1, 'unknown chunk type skipped');
is_deeply($j->{notes}, ['recorder said hello', $long_note], 'notes kept');
$r = run_analyzer("$dir/fwd.gtd");
like($r->{out}, qr/^note: recorder said hello$/m, 'notes in the text report');
like($r->{out}, qr/^note: word word[^\n]*\n {6}word(?:[^\n]*\n {6})*[^\n]*red/m,
     'a long note wrapped, not cut');
unlike($r->{out}, qr/\e/, 'a note\'s control characters made printable');

# --- usage ----------------------------------------------------------------------
$r = run_analyzer();
is($r->{exit}, 2, 'no dump: exit 2');
like($r->{err}, qr/^usage: gputrace-analyze/, 'usage on stderr');
$r = run_analyzer('a', 'b');
is($r->{exit}, 2, 'two dumps: exit 2');
$r = run_analyzer('--bogus', 'a');
is($r->{exit}, 2, 'unknown option: exit 2');
$r = run_analyzer('--help');
is($r->{exit}, 0, '--help exits 0');
like($r->{out}, qr/--top N/, '--help lists --top');

done_testing();
