#!/usr/bin/perl
# 26-report-figures.t - every figure the text report prints is one the
# data supports, under the name of what it is, at 80 and 100 columns and
# piped to a file:
#   - a gain in time per sample (a larger batch) is never called a step
#     time, and says its batch factor; the what-if table says "per sample";
#   - the verdict list says what it is ordered by and is in that order;
#     "Next" gives one kind of figure;
#   - a copy's bandwidth is bytes over GPU time, never over host time,
#     never above the PCIe link the dump records;
#   - one GPU memory total, the same in the verdict and the environment;
#   - streams named as the trace names them; no "host step 0 ns";
#   - the HTML calls a replayed gain "replayed", as the text does;
#   - no two different kernels under the same name in a table, and no
#     line longer than the width.
# On the shipped sample and on synthetic dumps.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);
use GtDiag;
use GtMore;

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();

my $sample = "$FindBin::Bin/../../examples/sample-pytorch.bin";
my $dir = tempdir(CLEANUP => 1);
my $US = 1000;

# The text report at a width (undef: piped, COLUMNS unset).
sub report {
	my ($path, $width, @opt) = @_;
	local $ENV{COLUMNS} = $width if defined $width;
	delete $ENV{COLUMNS} unless defined $width;
	my $r = run_analyzer(@opt, $path);

	die "analyzer failed ($r->{exit}): $r->{err}" if $r->{exit} || $r->{signal};
	return $r->{out};
}

# The kernel names of each table whose first column is "Kernel": a row
# is "  NAME  numbers", or NAME on a line of its own above its numbers.
sub kernel_tables {
	my ($text) = @_;
	my @tables;

	for my $block (split /\n\n/, $text) {
		my @lines = split /\n/, $block;
		my ($at) = grep { $lines[$_] =~ /^  Kernel / } 0 .. $#lines;
		my @names;

		next unless defined $at;
		for (my $i = $at + 1; $i < @lines; $i++) {
			last if $lines[$i] =~ /^  \.\.\. \d+ more$/;
			my ($inline) = $lines[$i] =~ /^  (\S.*?) {2,}\S/;
			my ($own) = $lines[$i] =~ /^  (\S.*)$/;

			if (defined $inline) {
				push @names, $inline;
			} elsif (defined $own && ($lines[$i + 1] // '') =~ /^ {3,}\S/) {
				push @names, $own;
				$i++;
			}
		}
		push @tables, \@names;
	}
	return @tables;
}

sub too_long {
	my ($text, $w) = @_;

	return [grep { length($_) > $w } split /\n/, $text];
}

# Every table's kernels told apart, every line within the width.
sub check_layout {
	my ($what, $text, $w) = @_;
	my @tables = kernel_tables($text);

	ok(scalar(@tables), "$what: kernel tables");
	for my $t (@tables) {
		my %seen;
		my @twice = grep { $seen{$_}++ } @$t;

		is_deeply(\@twice, [], "$what: no two kernels named alike among " .
			  scalar(@$t)) or diag(join("\n", @$t));
	}
	is_deeply(too_long($text, $w), [], "$what: no line over $w columns");
}

# The verdict list: its header, and each class's ranking figure.
sub verdict_list {
	my ($text) = @_;
	my ($list) = $text =~ /^(  Verdict, .*?)\n\n/ms;
	my (@groups, $key);

	$list = ($list // '') =~ s/\n {6,}(?=\S)/ /gr;     # wrapped lines joined
	for (split /\n/, $list) {
		if (/^  Verdict, ordered by (replayed gain|score)/ ||
		    /^  Classes .*ordered by (score)/) {
			push @groups, { key => $1, values => [] };
		} elsif (/^  \d+\. .*?: (?:replayed: (?:step time|time per sample) -(\d+)%|score ([\d.]+))/) {
			push @{ $groups[-1]{values} }, $1 // $2 if @groups;
		}
	}
	return @groups;
}

# ---- the shipped sample ---------------------------------------------------
my $j = decode_json(run_analyzer('--json', $sample)->{out});
my ($batch) = grep { $_->{fix} eq 'larger_batch' && $_->{applies} }
	@{ $j->{whatif_replay}{fixes} };

for my $w (80, 100, undef) {
	my $what = 'sample at ' . ($w // 'piped');
	my $text = report($sample, $w);
	my $flat = $text =~ s/\n {4,}(?=\S)/ /gr;          # prose unwrapped

	check_layout($what, $text, $w // 100);
	check_layout("$what, --top 0", report($sample, $w, '--top', '0'), $w // 100);

	# A larger batch: its gain per sample, its factor, never a step time.
	SKIP: {
		skip 'the replay finds no larger batch', 5 unless $batch;
		my $k = sprintf('%.0f', $batch->{k});
		my ($line) = $flat =~ /^(  \d+\. memory & batch configuration.*)$/m;

		like($line // '', qr/time per sample -\d+%.* with a batch ${k}x larger/,
		     "$what: the batch's gain in time per sample, with its factor");
		unlike($line // '', qr/step time/, "$what: not called a step time");
		like($flat, qr/^  a batch ${k}x larger +memory_batch +\S+ \S+ +-\d+% per sample$/m,
		     "$what: the what-if row says per sample");
		unlike($flat, qr/the step, per sample/, "$what: no per-sample step");
		if ($j->{verdict}[0]{class} eq 'memory_batch') {
			my ($change) = $flat =~ /^  Change \((.*?)\): /m;

			like($change // '', qr/time per sample/, "$what: the headline per sample");
		} else {
			pass("$what: another headline");
		}
	}

	# One ranking key, printed, and kept to.
	my @groups = verdict_list($text);

	ok(scalar(@groups), "$what: the list says what it is ordered by");
	for my $g (@groups) {
		my @v = @{ $g->{values} };

		is_deeply(\@v, [sort { $b <=> $a } @v], "$what: ordered by $g->{key} (@v)");
	}
	my ($next) = $flat =~ /^  Next\b(.*)$/m;
	ok(!$next || ($next =~ /score/ xor $next =~ /step time|per sample/),
	   "$what: Next gives one kind of figure") or diag($next);

	# One memory total; bandwidth within the link; streams as the trace.
	my %totals = map { $_ => 1 } ($flat =~ /of ([\d.]+ GiB) \(CUDA's total\)/g,
				      $flat =~ /, ([\d.]+ GiB) memory \(CUDA's total\)/g);
	my @all = $flat =~ /([\d.]+ GiB)(?: memory)? \((?:CUDA|NVML)'s total\)/g;

	is(scalar(keys %totals), 1, "$what: one GPU memory total (" . join(', ', keys %totals) . ')');
	is(scalar(@all), 2, "$what: said where it is given, with its source");
	unlike($text, qr/^  \S+ +\S+ +(?:pinned|pageable) .*?(?:35[0-9]|[4-9]\d\d|\d{4,})\.\d\d GB\/s/m,
	       "$what: no host-device copy above what PCIe carries");
}

# The sample's streams as its trace names them; its three figures of GPU
# use, each named for what it measures over which time.
{
	my $text = report($sample, 100);
	my $flat = $text =~ s/\n {4,}(?=\S)/ /gr;

	like($flat, qr/^  GPU busy [\d.]+% of \S+ \S+: a compute kernel running, over the GPU-timed steady state/m,
	     'sample: GPU busy, what and over which time');
	like($flat, qr/^  GPU active [\d.]+% of \S+ \S+ \(\S+ \S+\): any kernel, copy or memset running, over every GPU-timed window/m,
	     'sample: GPU active, what and over which time');
	like($flat, qr/^  nvidia-smi utilization \d+%: NVML's .*sampled over the whole run/m,
	     'sample: nvidia-smi utilization, what and over which time');
	like($flat, qr/^  GPU 0: nvidia-smi utilization \d+% mean/m,
	     'sample: the same name in the machine state');
	my @streams = $text =~ /^    (GPU \d+ stream \d+|stream \S+) +\|/mg;

	run_analyzer('--trace', "$dir/t.json", $sample);
	my %tracks = map { $_ => 1 } GtDump::slurp("$dir/t.json") =~ /"name":"(GPU \d+ stream \d+)"/g;
	ok(scalar(@streams), 'sample: streams drawn');
	is_deeply([grep { !$tracks{$_} } @streams], [], 'sample: streams named as the trace names them')
		or diag("text: @streams; trace: " . join(', ', sort keys %tracks));

	run_analyzer('--html', "$dir/r.html", $sample);
	my $html = GtDump::slurp("$dir/r.html");
	my ($change) = $text =~ /^  Change \((\w+):/m;

	ok($change, 'sample: the headline names its kind of gain');
	like($html, qr/Change: [^<]*\(\Q$change\E: /, "sample: the HTML calls it $change too");
	unlike($html, qr/\best\./, 'sample: no "est." in the HTML');
}

# ---- kernels alike in most of themselves ------------------------------------
{
	my $d = GtDump->new(start_ns => 1_000_000_000);
	my @names;

	$d->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel');
	for my $i (0 .. 15) {
		push @names, "void at::native::vectorized_elementwise_kernel<4, at::native::"
			. "BinaryFunctor<float, float, float, at::native::binary_internal::"
			. "Op${i}Functor<float> >, std::array<char*, 3ul> >(int, at::native::"
			. "BinaryFunctor<float, float, float, at::native::binary_internal::"
			. "Op${i}Functor<float> >, std::array<char*, 3ul>)";
	}
	for my $ab (qw(nn nt tn tt)) {
		for my $k (qw(off on)) {
			push @names, "sm90_xmma_gemm_f32f32_tf32f32_f32_${ab}_n_tilesize128x256x32_"
				. "warpgroupsize2x1x1_execute_segment_k_${k}_kernel__5x_cublas";
		}
	}
	my @ev;
	for my $i (0 .. $#names) {
		$d->function(id => $i + 1, name => $names[$i], handle => 0x100 + $i);
		$d->shape(id => $i + 1, function => $i + 1);
		push @ev, map { { op => 1, t0 => 1_000_000_000 + (10 * $i + $_) * $US,
				  dur => (1 + $i) * $US, args => [$i + 1] } } 0 .. 2;
	}
	$d->events(tid => 1, events => \@ev);
	$d->end(end_ns => 1_000_000_000 + 10 * @names * $US + $US);
	my $path = $d->write("$dir/alike.gtd");

	for my $w (80, 100, undef) {
		my $text = report($path, $w, '--top', '0');
		my ($t) = kernel_tables($text);

		is(scalar(@$t), scalar(@names), 'alike at ' . ($w // 'piped') . ': every kernel');
		check_layout('alike at ' . ($w // 'piped'), $text, $w // 100);
	}
}

# ---- copies: bandwidth from GPU time, within the link -------------------
# Pinned uploads of 256 MiB whose calls return in 10 us (async); the GPU
# records time the first two at 1 ms (268 GB/s: more than PCIe gen3 x16
# carries, 15.8 GB/s), the others are not recorded; device 0's link is
# gen3 x16.
{
	my $T = 1_000_000_000;
	my $MiB = 1 << 20;
	my $d = GtDump->new(pid => 42, start_ns => $T);

	$d->process(pid => 42, host => 'n1', exe => '/bin/train', argv => ['train']);
	$d->op(op => 1, kind => KIND_COPY, api => 'cuMemcpyHtoDAsync', dir => DIR_HTOD,
	       flags => OPF_ASYNC, nargs => 6);
	$d->add_chunk(GtDiag::CHUNK_ENV, GtDiag::info_chunk(0, 0, [38, 3], [39, 3],
							     [40, 16], [41, 16]));
	GtMore::clock_pair($d, $T, $T);
	GtMore::window($d, 1, $T + $US);
	$d->add_chunk(GtDiag::CHUNK_GPU, pack('V4', GtDiag::GPU_STATE, 1, 32, 0) .
		      pack('V8', 1, 2, 0, 0, 0, 0, 0, 0));
	$d->events(tid => 1, buffer => 1, events => [ map {
		{ op => 1, t0 => $T + (10 + 5 * $_) * 1_000_000, dur => 10 * $US,
		  args => [256 * $MiB, 0x1000, 0x2000, 1, GtDiag::MEM_PINNED, 0] } } 0 .. 3 ]);
	GtMore::gpu_copies($d, [ map {
		{ host_id => (1 << 40) | $_, bytes => 256 * $MiB,
		  start => $T + (10 + 5 * $_) * 1_000_000 + 20 * $US,
		  end => $T + (10 + 5 * $_) * 1_000_000 + 1_020 * $US } } 0 .. 1 ]);
	GtMore::window($d, 1, $T + $US, $T + 100_000_000);
	$d->end(end_ns => $T + 100_000_000);
	my $text = report($d->write("$dir/copies.gtd"), 100);
	my @bw = $text =~ /^  (?:\S+ +)?HtoD .*?([\d.]+) GB\/s$/mg;

	like($text, qr/^Copies \(GPU time, in windows\)\n.*\n  cuMemcpyHtoDAsync +HtoD +pinned +2 /m,
	     'copies: two timed by the GPU') or diag($text);
	is_deeply([grep { $_ > 15.8 } @bw], [], 'copies: no bandwidth above the PCIe gen3 x16 link')
		or diag($text);
	like($text, qr/more than the PCIe gen3 x16 link carries \(15\.\d GB\/s\)/,
	     'copies: the doubtful records flagged');
	unlike($text, qr/Effective/, 'copies: no bandwidth from host time');
}

# ---- a fix that leaves a step no host time of its own -------------------
# Launches 12 us apart, 5 a step of 100 us: CUDA graphs merge the span's
# launches into one graph launch, the drawn step has no host time left.
{
	my $g = GtDiag->new(join => 1, window => [0, 1_000_000_000]);

	for my $k (0 .. 199) {
		my $b = 1_000_000 + $k * 100 * $US;

		for my $i (0 .. 4) {
			$g->launch(1, $b + $i * 12 * $US, 6 * $US, fn => 1 + $i % 2);
			$g->kernel($b + $i * 12 * $US + 8 * $US, $b + $i * 12 * $US + 9 * $US);
		}
	}
	my $text = report($g->dump_path, 100);

	like($text, qr/^   with CUDA graphs: /m, 'graphs: drawn');
	unlike($text, qr/host step 0 ns/, 'graphs: no host step of 0 ns');
	unlike($text, qr/\b0 ns -\d+%|-\d+% \(-0% to -0%\)/, 'graphs: no zero figure as measured');
}

done_testing();
