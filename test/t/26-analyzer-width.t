#!/usr/bin/perl
# 26-analyzer-width.t - the report's width: a file or a pipe gets 100
# columns, COLUMNS or a terminal's width is kept to (prose wrapped at
# word boundaries, never cut; kernel names shortened by structure and
# told apart), --wide gives whole demangled names with no width limit,
# and JSON always has them.  On the shipped sample, whose seven
# multi_tensor_apply_kernel rows looked alike when cut at 50 characters.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use JSON::PP;
use List::Util qw(max);
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();

my $sample = "$FindBin::Bin/../../examples/sample-pytorch.bin";
delete $ENV{COLUMNS};

# The rows of the host-side kernel table.
sub kernel_rows {
	my ($text) = @_;
	my ($table) = $text =~ /^Kernels \(host time per launch\)\n(.*?)\n\n/ms;

	return grep { !/^  Kernel / } split /\n/, $table // '';
}

# The verdict, its wrapped lines joined.
sub verdict {
	my ($text) = @_;
	my ($v) = $text =~ /^(Verdict: .*?)\n  \S/ms;

	return ($v // '') =~ s/\n\s+/ /gr;
}

my $res = run_analyzer('--top', '0', $sample);
is($res->{exit}, 0, 'piped: exit 0');
my @rows = kernel_rows($res->{out});
is(scalar(@rows), 24, 'piped: every kernel');
my %seen = map { (/^  (\S.*?)\s{2,}\d/)[0] => 1 } @rows;
is(scalar(keys %seen), 24, 'piped: told apart (seven multi_tensor_apply_kernel among them)');
is_deeply([grep { length($_) > 100 } split /\n/, $res->{out}], [], 'piped: 100 columns');
like(verdict($res->{out}), qr/idle: launching \d+%, cpu_preprocessing \d+%, sync \d+%, launch_latency \d+%$/,
     'piped: the verdict whole');
unlike($res->{out}, qr/\.\.\.$/m, 'piped: no line cut');

$ENV{COLUMNS} = 100;
$res = run_analyzer($sample);
my @long = grep { length($_) > 100 } split /\n/, $res->{out};
is_deeply(\@long, [], 'COLUMNS=100: every line fits');
like(verdict($res->{out}), qr/cpu_preprocessing \d+%, sync \d+%, launch_latency \d+%$/,
     'COLUMNS=100: the verdict wrapped, not cut');
unlike($res->{out}, qr/^(?:Verdict|  Why|  Change|  Next).*\.\.\.$/m, 'COLUMNS=100: no prose cut');

$ENV{COLUMNS} = 80;
$res = run_analyzer('--wide', $sample);
@rows = kernel_rows($res->{out});
ok((grep { /\Qat::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>\E.*\(/ } @rows),
   '--wide: whole demangled names, COLUMNS or not');
ok(max(map { length } @rows) > 300, '--wide: no width limit');
delete $ENV{COLUMNS};

$res = run_analyzer('--json', $sample);
my $j = decode_json($res->{out});
my @names = map { $_->{name} } @{ $j->{kernels} };
is(scalar(grep { /multi_tensor_apply_kernel/ && /\(anonymous namespace\)/ && /\)$/ } @names), 7,
   'JSON: whole names');

SKIP: {
	skip 'no script command (bsdutils)', 2
		unless system('script -V >/dev/null 2>&1') == 0;
	my $cmd = "stty cols 90; exec '" . GtDump::analyzer_path() . "' '$sample'";
	my $out = `script -qec "$cmd" /dev/null 2>&1`;

	$out =~ s/\r//g;
	like($out, qr/^Verdict: /m, 'terminal: a report');
	is_deeply([grep { length($_) > 90 } split /\n/, $out], [], 'terminal of 90 columns: every line fits');
}
done_testing();
