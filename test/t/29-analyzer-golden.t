#!/usr/bin/perl
# 29-analyzer-golden.t - every output of the analyzer, byte for byte, on the
# sample dump and a fixed corpus of synthetic dumps, against the expected
# files of test/golden/expected/: the text report, --wide, --json, --trace,
# --sqlite (as sqlite3's .dump), --html and --diff (each dump after the
# sample) for each dump, --diff --json, several ranks (text and JSON), and
# the message and exit status of every broken dump of test/corpus/.
#
# It proves that a change of the code changed no output.  When an output
# changes on purpose, `make golden-update` (GT_GOLDEN_UPDATE=1) writes the
# expected files again, and the diff of test/golden/expected/ shows what
# changed (test/golden/README.md).
#
# Dumps are named by paths relative to the repository, so no output holds
# where the repository is (and the repository's path is not replaced: a
# dump may hold that very string, recorded elsewhere); what would still
# differ from one machine to the next (the temporary folder, the version)
# is replaced by @TMP@ and @VERSION@.  Native frames are named from the
# symbol files of test/golden/symbols/ only (GPUTRACE_SYMBOL_PATH), never
# from the files the dumps name: those are in the checkout that recorded
# them, or this machine's system libraries, which differ elsewhere.  An output of more than 64 KiB is
# kept as its SHA-256, its size and its line count.
use strict;
use warnings;
use Cwd qw(abs_path);
use Digest::SHA qw(sha256_hex);
use File::Path qw(make_path remove_tree);
use File::Temp qw(tempdir);
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtDump;

my $root = abs_path("$FindBin::Bin/../..");
my $analyzer = abs_path(GtDump::analyzer_path()) // '';
my $expected = "$root/test/golden/expected";
my $update = $ENV{GT_GOLDEN_UPDATE};
my $big = 64 * 1024;
my $tmp = tempdir(CLEANUP => 1);

plan skip_all => 'analyzer not built' unless -x $analyzer;
$ENV{GT_BUILD} = $analyzer =~ s{/[^/]*$}{}r;
chdir($root) or die "cd $root: $!\n";
delete @ENV{qw(GPUTRACE_PROGRESS COLUMNS)};
$ENV{GPUTRACE_SYMBOL_PATH} = 'test/golden/symbols';
$ENV{LC_ALL} = 'C';
$ENV{TZ} = 'UTC';

my $sample = 'examples/sample-pytorch.bin';

# The fixed corpus: the dumps of two H200 runs, one small valid dump for
# each part of the format and the dumps of the fake workloads
# (test/fuzz/make-seeds.pl), what fuzzing found, and odd dumps.
my @dumps = ($sample, map { "test/dumps/$_.bin" } qw(h200-cuda-pageable h200-tiny-batch));
push @dumps, map { "test/fuzz/seeds/$_.bin" } qw(
	chunk-copies-stack chunk-env-sample chunk-gpu chunk-launch chunk-nccl
	chunk-nvtx chunk-redefine copies cudart direct-ptsz killed threads
	w_nvtx w_pinned w_stack
	regress-alloc-months-later regress-buckets-far-apart
	regress-diff-huge-time regress-empty-chunk regress-huge-cores
	regress-huge-time regress-idle-huge-share regress-outside-huge-share
	regress-per-step-huge regress-warmup-mean-huge
	chunk-hostsample regress-sample-stack-redefined);
# Dumps with host samples: their collapsed stacks (--folded) too.
my %folded = map { ("test/fuzz/seeds/$_.bin" => 1) }
	qw(chunk-hostsample regress-sample-stack-redefined);
push @dumps, map { "test/corpus/odd/$_.bin" } qw(
	clock-wrap events-end-of-time function-redefined gpu-end-of-time
	header-only window-end-of-time-late window-end-of-time);

# Several ranks: the two H200 runs, one NCCL dump as two ranks, the sample
# with another run.
my %ranks = (
	'h200-pair' => ['test/dumps/h200-tiny-batch.bin', 'test/dumps/h200-cuda-pageable.bin'],
	'nccl-twice' => ['test/fuzz/seeds/chunk-nccl.bin', 'test/fuzz/seeds/chunk-nccl.bin'],
	'sample-tiny' => [$sample, 'test/dumps/h200-tiny-batch.bin'],
);

my $version = (`$analyzer --version` =~ /^\S+ (\S+)/) ? $1 : 'no version';
my $have_sqlite = system("$analyzer --sqlite $tmp/probe.db $sample >/dev/null 2>&1") == 0
	&& system('sqlite3 -version >/dev/null 2>&1') == 0;

sub slurp { return GtDump::slurp($_[0]) }

sub normalize {
	my ($s) = @_;

	$s =~ s/\Q$tmp\E/\@TMP\@/g;
	$s =~ s/(?<![\d.])\Q$version\E(?![\d.])/\@VERSION\@/g;
	return $s;
}

# Runs the analyzer: its standard output, then what it said on stderr and
# its exit status when there was something to say.
sub analyze {
	my (@args) = @_;
	my $r = GtDump::run_analyzer(@args);
	my $s = $r->{out};

	$s .= "--- stderr\n$r->{err}" if $r->{err} ne '';
	$s .= "--- exit $r->{exit} signal $r->{signal}\n" if $r->{exit} || $r->{signal};
	return $s;
}

# An export to a file: the file, then the command's own output.
sub export {
	my ($opt, $dump) = @_;
	my $out = "$tmp/out";

	unlink($out);
	my $said = analyze($opt, $out, $dump);
	return ($opt eq '--sqlite' && -e $out ? `sqlite3 $out .dump` : slurp($out))
		. ($said eq '' ? '' : "--- command\n$said");
}

sub outputs {
	my ($dump) = @_;
	my %o = (
		'text.txt' => sub { analyze($dump) },
		'wide.txt' => sub { analyze('--wide', $dump) },
		'report.json' => sub { analyze('--json', $dump) },
		'trace.json' => sub { export('--trace', $dump) },
		'report.html' => sub { export('--html', $dump) },
		'diff.txt' => sub { analyze('--diff', $sample, $dump) },
	);

	$o{'sqlite.sql'} = sub { export('--sqlite', $dump) } if $have_sqlite;
	$o{'folded.txt'} = sub { export('--folded', $dump) } if $folded{$dump};
	return %o;
}

sub expected_of {
	my ($name) = @_;

	return slurp("$expected/$name") if -e "$expected/$name";
	return slurp("$expected/$name.sha256") if -e "$expected/$name.sha256";
	return undef;
}

sub kept_form {
	my ($s) = @_;
	my $lines = () = $s =~ /\n/g;

	return $s if length($s) <= $big;
	return sprintf("sha256 %s\nbytes %d\nlines %d\n", sha256_hex($s), length($s), $lines);
}

sub write_expected {
	my ($name, $s) = @_;
	my $kept = kept_form($s);
	my $path = "$expected/$name" . ($kept eq $s ? '' : '.sha256');

	make_path($path =~ s{/[^/]*$}{}r);
	open(my $fh, '>:raw', $path) or die "$path: $!\n";
	print $fh $kept;
	close($fh) or die "$path: $!\n";
}

sub show_difference {
	my ($name, $want, $got) = @_;

	open(my $fh, '>:raw', "$tmp/want") or die;
	print $fh $want;
	close($fh);
	open($fh, '>:raw', "$tmp/got") or die;
	print $fh $got;
	close($fh);
	my @lines = `diff -u $tmp/want $tmp/got` =~ /(.*\n)/g;

	diag(join('', @lines > 40 ? @lines[0 .. 39] : @lines));
}

sub check {
	my ($name, $s) = @_;
	my $got = kept_form(normalize($s));

	if ($update) {
		write_expected($name, normalize($s));
		pass("$name written");
		return;
	}
	my $want = expected_of($name);
	if (!defined $want) {
		fail("$name: no expected output (make golden-update)");
		return;
	}
	is($got eq $want ? 'same' : 'differs', 'same', $name)
		or show_difference($name, $want, $got);
}

remove_tree($expected) if $update;

for my $dump (@dumps) {
	my $stem = $dump =~ s{^.*/}{}r =~ s/\.bin$//r;
	my %o = outputs($dump);

	check("$stem/$_", $o{$_}->()) for sort keys %o;
}

check('diff/sample-tiny.json', analyze('--diff', '--json', $sample,
				       'test/dumps/h200-tiny-batch.bin'));
for my $set (sort keys %ranks) {
	check("ranks/$set.txt", analyze(@{$ranks{$set}}));
	check("ranks/$set.json", analyze('--json', @{$ranks{$set}}));
}

my $errors = '';
for my $bad (sort glob('test/corpus/*.bin')) {
	$errors .= "== $bad\n" . analyze($bad);
}
check('corpus-errors.txt', $errors);

done_testing();
