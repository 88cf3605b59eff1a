#!/usr/bin/perl
# 27-analyzer-busy.t - "GPU busy" is one figure: the verdict, the GPU
# timeline, JSON (diagnosis and gpu), --diff (text and JSON) and the HTML
# report give the same share for the same dump, and say what it is (a
# compute kernel running, over the GPU-timed steady state); GPU work of
# any kind (copies too) is "GPU active", apart.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);
use GtMore;

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();

my $root = "$FindBin::Bin/../..";
my $dir = tempdir(CLEANUP => 1);
my @dumps = ("$root/examples/sample-pytorch.bin", glob("$root/test/dumps/*.bin"),
	     GtMore::gpu_dump("$dir/synthetic.bin", 7_000_000_000, 0));
my $means = qr/a compute kernel running, over the GPU-timed steady state \(or run\)/;

# Every busy share a dump's outputs give, as "12.3": {where => share}.
sub shares {
	my ($p) = @_;
	my (%s, $res, $j);

	$res = run_analyzer($p);
	($s{verdict}) = $res->{out} =~ /^Verdict: .* - GPU busy ([\d.]+)% of /m;
	($s{why}) = $res->{out} =~ /^  Why: .*GPU busy ([\d.]+)%/m
		if $res->{out} =~ /^  Why: .*GPU busy/m;
	($s{timeline}) = $res->{out} =~ /^  GPU busy ([\d.]+)% of \S+ \S+: $means/m
		if $res->{out} =~ /^GPU timeline/m;
	$j = decode_json(run_analyzer('--json', $p)->{out});
	$s{json_diagnosis} = sprintf('%.1f', 100 * $j->{diagnosis}{busy_share});
	$s{json_gpu} = sprintf('%.1f', 100 * $j->{gpu}{busy_share});
	$res = run_analyzer('--diff', $p, $p);
	($s{diff}) = $res->{out} =~ /^  GPU busy\s+([\d.]+)%\s+[\d.]+%/m;
	$s{diff_says} = $res->{out} =~ /^  GPU busy: $means$/m ? 'said' : undef;
	$j = decode_json(run_analyzer('--diff', '--json', $p, $p)->{out});
	$s{diff_json} = sprintf('%.1f', 100 * $j->{measures}{gpu_busy_share}{before});
	run_analyzer('--html', "$dir/r.html", $p);
	($s{html}) = GtDump::slurp("$dir/r.html") =~ /GPU busy ([\d.]+)% \($means\)/;
	return \%s;
}

for my $p (@dumps) {
	my $name = $p =~ s{.*/}{}r;
	my $s = shares($p);
	my $said = delete $s->{diff_says};
	my @missing = grep { !defined $s->{$_} } sort keys %$s;

	is_deeply(\@missing, [], "$name: every output gives GPU busy") or diag(explain($s));
	my %values = map { $_ => 1 } grep { defined } values %$s;
	is(scalar(keys %values), 1, "$name: all agree (" . join(', ', keys %values) . ')')
		or diag(explain($s));
	ok($said, "$name: --diff says what GPU busy is");
}

# Copies are not busy: the pageable-copy dump's GPU mostly copied.
my ($pageable) = grep { /pageable/ } @dumps;
SKIP: {
	skip 'no pageable dump', 2 unless $pageable;
	my $j = decode_json(run_analyzer('--json', $pageable)->{out});

	cmp_ok($j->{gpu}{busy_share}, '<', 0.05, 'pageable: hardly busy');
	cmp_ok($j->{gpu}{active_share}, '>', 0.9, 'pageable: but active, copying');
}
done_testing();
