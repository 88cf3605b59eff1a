#!/usr/bin/perl
# 904-diagnosis-replay.t - the what-if by replay: on synthetic dumps whose
# kernels are joined to their launches, the replay of the recorded steps,
# each fix's replayed gain worked out by hand, the verdict drawn from it,
# the report's section and timeline and the JSON's numbers; without
# joined GPU records the rules' verdict stands; and on dumps recorded on
# an H200 by test/gpu/check_diagnosis.py (examples/diagnose), the verdict
# and the gain against what each workload's fixed twin measured.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use IO::Uncompress::Gunzip qw(gunzip $GunzipError);
use JSON::PP;
use Test::More;

use GtDiag;
use GtDump qw(run_analyzer);

plan skip_all => 'gputrace-analyze not built'
	unless -x GtDump::analyzer_path();

my $US = 1000;
my $MS = 1000 * $US;

sub fix {
	my ($j, $name) = @_;
	my ($f) = grep { $_->{fix} eq $name } @{ $j->{whatif_replay}{fixes} };

	return $f // {};
}

# ---- a per-step sync: three kernels of 690 us, the host waits ------------
# Steps 1-18 lie in the GPU records: 18 ms.  Without syncs (the first
# step's kept) the host takes 330 us a step and the GPU 690 us back to
# back from 1.7 ms on: 1.7 + 16 x 0.69 = 12.74 ms.
sub sync_run {
	my (%o) = @_;

	return GtDiag->new(join => $o{join})->sync_steps;
}

{
	my $g = sync_run(join => 1);
	my $j = $g->analyze;
	my $r = $j->{whatif_replay};
	my $v = $j->{verdict}[0];

	ok($r->{replayed} && $r->{used} && $r->{gpu_records}, 'sync: replayed on GPU records');
	is($r->{steps}, 18, 'sync: the 18 steps inside the GPU records');
	is($r->{measured_step_ns}, $MS, 'sync: 1 ms a step recorded');
	is($r->{replayed_step_ns}, $MS, 'sync: 1 ms a step replayed');
	is($r->{error}, 0, 'sync: no error');
	is(fix($j, 'no_sync')->{step_ns}, int(12740 * $US / 18), 'sync: 12.74 ms without syncs');
	ok(abs(fix($j, 'no_sync')->{gain} - (1 - 12740 / 18000)) < 1e-6, 'sync: its gain');
	ok(!fix($j, 'pinned_async')->{applies}, 'sync: no copies to pin');
	is($v->{class}, 'communication', 'sync: verdict communication & sync');
	ok($v->{replayed}, 'sync: the verdict is replayed');
	ok(abs($v->{est_gain} - (1 - 12740 / 18000)) < 1e-6, 'sync: the gain is the replay\'s');
	ok($v->{est_gain_low} < $v->{est_gain} && $v->{est_gain} < $v->{est_gain_high},
	   'sync: a band around it');

	my $text = $g->report;
	my @lines = split /\n/, $text;
	like($text, qr/^  Change \(replayed: step time -29% \(-28% to -30%\)\)/m,
	     'text: the replayed gain in the headline');
	like($text, qr/^  Why: replayed with no per-step syncs: the step goes from 1\.00 ms to 707\.78 us$/m,
	     'text: why, from the replay');
	like($text, qr/^  What-if \(replayed\): 18 steps of 1\.00 ms on the host/m,
	     'text: the what-if section');
	like($text, qr/^  no per-step syncs +communication +707\.78 us +-29%$/m,
	     'text: the fix, its step time and gain');
	like($text, qr/^   with no per-step syncs: host step 330\.00 us$/m,
	     'text: the step after the fix');
	like($text, qr/^    thread 1 +\|L-[-W]+ +\|$/m, 'text: the host row after the fix');
	like($text, qr/^    GPU 0 stream 7 +\|K+\.+\|$/m,
	     'text: the GPU row as recorded, named as the trace names it');
	ok(!grep({ length > 100 } @lines), 'text: 100 columns at most');

	my $html = tempdir(CLEANUP => 1) . '/replay.html';
	my $res = run_analyzer('--html', $html, $g->dump_path);
	my $page = GtDump::slurp($html) // '';

	is($res->{exit}, 0, 'html: written');
	like($page, qr{<h2>What-if \(replayed\)</h2>}, 'html: the what-if section');
	like($page, qr{<td>no per-step syncs</td><td>communication</td><td>707\.78 us</td>},
	     'html: the fix and its step time');
	my ($svg) = $page =~ m{(<svg class="whatif".*?</svg>)}s;
	ok($svg && $svg =~ /host step 330\.00 us/, 'html: the step after the fix drawn');
	# before: 3 launches, CPU, wait, CPU, 3 kernels; after: the same less
	# the wait, the next step's launches cut off at the scale's end
	my $rects = () = ($svg // '') =~ /<rect /g;
	ok($rects >= 16, 'html: calls and kernels as rectangles') or diag($rects);
}

# ---- without joined GPU records: the rules decide -----------------------
{
	my $j = sync_run(join => 0)->analyze;

	ok($j->{whatif_replay}{replayed} && !$j->{whatif_replay}{gpu_records},
	   'unjoined: replayed on host-side estimates');
	ok(!$j->{whatif_replay}{used}, 'unjoined: not used for the verdict');
	like($j->{whatif_replay}{note}, qr/rules' verdict stands/, 'unjoined: says so');
	ok(!$j->{verdict}[0]{replayed}, 'unjoined: the rules\' gain');
}

# ---- launch-bound: tiny kernels, a launch every 10 us --------------------
# As one graph: a kernel of 2 us every RP_GRAPH_GAP_NS (0.1 us) more.
{
	my $g = GtDiag->new(join => 1);
	for my $i (0 .. 1999) {
		my $t = $i * 10 * $US;
		$g->launch(1, $t, 4 * $US);
		$g->kernel($t + 7 * $US, $t + 9 * $US);
	}
	my $j = $g->analyze;
	my $v = $j->{verdict}[0];

	is($v->{class}, 'kernel_efficiency', 'launch-bound: kernel efficiency');
	ok($v->{replayed}, 'launch-bound: replayed');
	ok(abs($v->{est_gain} - (1 - 2.1 / 10)) < 0.01, 'launch-bound: 2.1 us a kernel as a graph')
		or diag($v->{est_gain});
}

# ---- long steps: 250 ms each, the span still holds three ----------------
# (a span is at most 200 ms of steps, but never fewer than three: a loop
# accumulating gradients over many micro-batches has steps that long)
{
	my $g = GtDiag->new(join => 1);
	$g->stack(1, ['train.py', 'train_step', 57], ['train.py', 'main', 80]);
	for my $s (0 .. 19) {
		my $b = $s * 250 * $MS;

		$g->launch(1, $b, 5 * $US, fn => 1);
		$g->launch(1, $b + 10 * $US, 5 * $US, fn => 2);
		$g->sync(1, $b + 20 * $US, 150 * $MS, stack => 1);
		$g->kernel($b + 10 * $US, $b + 75 * $MS);
		$g->kernel($b + 75 * $MS, $b + 150 * $MS);
	}
	my $r = $g->analyze->{whatif_replay};

	ok($r->{replayed}, 'long steps: replayed') or diag(explain($r));
	cmp_ok($r->{steps} // 0, '>=', 3, 'long steps: three of them or more in the span');
}

# ---- dumps recorded on an H200 -------------------------------------------
my $dumps = "$FindBin::Bin/../dumps";
my $tmpd = tempdir(CLEANUP => 1);

sub h200 {
	my ($name) = @_;
	my $r = run_analyzer('--json', "$dumps/$name");

	is($r->{exit}, 0, "$name: analyzed") or diag($r->{err});
	return decode_json($r->{out} || '{}');
}

# item_sync.py: .item() every step, then host bookkeeping while the GPU
# idles.  Its twin without .item() measured -36%.
my $j = h200('h200-item-sync.bin');
ok($j->{whatif_replay}{used} && $j->{whatif_replay}{error} < 0.05, 'item-sync: replayed');
is($j->{verdict}[0]{class}, 'communication', 'item-sync: communication & sync, not data supply');
ok($j->{verdict}[0]{est_gain} > 0.15, 'item-sync: the sync costs more than 15%');

# loader_cpu.py --workers 0: the batch is made in the training loop.
$j = h200('h200-loader-workers0.bin');
is($j->{verdict}[0]{class}, 'data_supply', 'loader-workers0: data supply');
ok($j->{verdict}[0]{replayed}, 'loader-workers0: replayed');

# cuda/pageable.cu: a cudaMemcpy of pageable memory every step; its pinned
# twin measured -84%.
$j = h200('h200-cuda-pageable-joined.bin');
is($j->{verdict}[0]{class}, 'memory_batch', 'cuda-pageable: memory & batch');
ok(abs($j->{verdict}[0]{est_gain} - 0.84) <= 0.10, 'cuda-pageable: within 0.10 of the twin')
	or diag($j->{verdict}[0]{est_gain});

# amp_channels_last.py --amp: a timm ResNet-50 in bf16 and channels_last,
# batch 128, its GPU busy 68% (the host launching meanwhile 26%).  Its
# own fix, CUDA graphs, replays to under 10%, and nothing else gains as
# much: healthy, kernel efficiency after it with that replayed gain.
{
	my $gz = "$FindBin::Bin/../h200/resnet-bf16-cl.bin.gz";
	my $bin = "$tmpd/resnet-bf16-cl.bin";

	gunzip($gz => $bin) or die "gunzip $gz: $GunzipError";
	my $r = run_analyzer('--json', $bin);
	my $k = decode_json($r->{out} || '{}');
	my ($ke) = grep { $_->{class} eq 'kernel_efficiency' } @{ $k->{verdict} || [] };

	is($k->{verdict}[0]{class}, 'healthy', 'resnet-bf16-cl: healthy');
	ok($ke && $ke->{replayed} && $ke->{est_gain} < 0.10,
	   'resnet-bf16-cl: kernel efficiency after it, its replayed gain under 10%')
		or diag(explain($ke));
	like(fix($k, 'cuda_graphs')->{class} // '', qr/^kernel_efficiency$/,
	     'resnet-bf16-cl: the CUDA graphs fix was replayed');
}

done_testing();
