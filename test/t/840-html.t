#!/usr/bin/perl
# 840-html.t - --html: one self-contained page (nothing fetched: no
# external script, style, image or font), with the verdict, the timeline,
# step times, charts and tables; rendered by headless Chromium (skipped,
# said so, where it is not installed) to check that a browser sees those
# elements; and the report of several ranks.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);
use GtMore;

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();

use constant { T => 7_000_000_000, MS => 1_000_000 };

my $dir = tempdir(CLEANUP => 1);
my $render = "$FindBin::Bin/../html/render.sh";
my $path = GtMore::gpu_dump("$dir/gpu.bin", T, 5_000_000_000);
my $html = "$dir/report.html";
my $res = run_analyzer('--html', $html, $path);

is($res->{exit}, 0, 'exit 0') or diag($res->{err});
my $page = GtDump::slurp($html);
like($page, qr/^<!DOCTYPE html>/, 'an HTML document');
like($page, qr{</html>\n\z}, 'complete');
unlike($page, qr{<script|<link|<img|<iframe|url\(|src=}i, 'nothing to fetch');
unlike($page, qr{https?://}, 'no address at all');
like($page, qr{<section id="verdict">}, 'verdict');
like($page, qr{<svg class="timeline"}, 'timeline');
like($page, qr{<rect class="busy"[^>]*height="[1-9]}, 'a GPU busy bar');
like($page, qr{<rect class="host"[^>]*fill="#c44e52"><title>waits for the GPU}, 'host waits drawn');
like($page, qr{id="chart-$_"}, "chart $_") for qw(idle kernels copies);
like($page, qr{<table id="table-$_"}, "table $_") for qw(kernels copy-classes waits nvtx);
like($page, qr{<td>step</td><td class="n">2</td>}, 'the kernel row');
like($page, qr{1 copy of pageable host memory}, 'the pageable-copy finding, in the singular');

SKIP: {
	my $dom = `'$render' dom '$html'`;
	skip 'no chromium (Debian package chromium): the page was not rendered', 8
		if ($? >> 8) == 77;
	ok(length($dom) > 1000, 'Chromium rendered the page') or diag($dom);
	like($dom, qr{<section id="verdict">}, 'the browser sees the verdict');
	my @rects_file = $page =~ /<rect/g;
	my @rects_dom = $dom =~ /<rect/g;
	is(scalar(@rects_dom), scalar(@rects_file), 'every SVG shape parsed');
	like($dom, qr{<svg class="bars"}, 'charts');
	like($dom, qr{<table id="table-kernels">.*<td>step</td>}s, 'tables');
	my @tables = $dom =~ /<table id=/g;
	ok(@tables >= 4, 'four tables or more');
	system($render, 'png', $html, "$dir/shot.png");
	ok(-s "$dir/shot.png" > 20_000, 'a screenshot with something in it');
	open(my $fh, '<:raw', "$dir/shot.png");
	read($fh, my $sig, 8);
	is($sig, "\x89PNG\r\n\x1a\n", 'a PNG');
}

# several ranks
my @p = GtMore::job(dir => $dir, ranks => 3, slow => 1, late_ns => 3 * MS, steps => 20);
$res = run_analyzer('--html', "$dir/ranks.html", @p);
is($res->{exit}, 0, 'ranks: exit 0') or diag($res->{err});
$page = GtDump::slurp("$dir/ranks.html");
like($page, qr{<section id="ranks">}, 'ranks section');
like($page, qr{rank 1 held the others back}, 'the rank-skew finding');
like($page, qr{id="chart-stragglers"}, 'the waits chart');
my @details = $page =~ /<details class="rank"/g;
is(scalar(@details), 3, 'one folded report per rank');
$res = run_analyzer('--html', "$dir/nowhere/x.html", $path);
is($res->{exit}, 2, 'unwritable: exit 2');

done_testing();
