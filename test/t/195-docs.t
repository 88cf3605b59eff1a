#!/usr/bin/perl
# 195-docs.t - the documentation holds together: README.md stays short,
# docs/ has its seven documents, none tells how it was made (a date, an
# issue, a session; a commit in the README), every relative link of
# README.md and docs/*.md names a file that exists and, with #anchor, a
# heading of it; the man pages render without warnings (where man is
# installed), and the README says how to read them before make install.
use strict;
use warnings;
use FindBin;
use Test::More;

my $root = "$FindBin::Bin/../..";

sub slurp {
	my ($path) = @_;
	open(my $fh, '<', $path) or return undef;
	local $/;
	return scalar <$fh>;
}

# GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to -.
sub anchor {
	my ($h) = @_;

	$h = lc $h;
	$h =~ s/[`*]//g;
	$h =~ s/[^\w\- ]//g;
	$h =~ s/ /-/g;
	return $h;
}

sub anchors {
	my ($text) = @_;
	my %a;

	$text =~ s/^```.*?^```//msg;
	$a{anchor($1)} = 1 while $text =~ /^#+\s+(.+?)\s*$/mg;
	return \%a;
}

my $readme = slurp("$root/README.md");
my $lines = () = $readme =~ /\n/g;
cmp_ok($lines, '<=', 200, "README.md: $lines lines");

my @docs = qw(settings how-it-works diagnosis exports format validation architecture);
is_deeply([grep { !-f "$root/docs/$_.md" } @docs], [], "docs/: @docs");

# The documents describe the product, not how it was made: no dated log,
# no commit in the README (a measured figure in docs/ names its build), no
# issue or session anywhere.
is_deeply([$readme =~ /(\b20\d\d-\d\d-\d\d\b|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b)/g], [],
	  'README.md: no date, no commit');
for my $doc ('README.md', map { s{^\Q$root\E/}{}r } glob("$root/docs/*.md")) {
	is_deeply([slurp("$root/$doc") =~ /\b(issue \d+|[Ss]ession|\b20\d\d-\d\d-\d\d\b)/g], [],
		  "$doc: no issue, session or date");
}

for my $doc ('README.md', map { s{^\Q$root\E/}{}r } glob("$root/docs/*.md")) {
	my $text = slurp("$root/$doc");
	(my $dir = $doc) =~ s{[^/]*$}{};
	my @bad;

	$text =~ s/^```.*?^```//msg;
	while ($text =~ /\]\(([^)\s]+)\)/g) {
		my $link = $1;
		next if $link =~ m{^[a-z]+:};
		my ($file, $frag) = split /#/, $link, 2;
		my $target = $file eq '' ? "$root/$doc" : "$root/$dir$file";
		if (!-e $target) {
			push @bad, "$link (no file)";
		} elsif (defined $frag && !anchors(slurp($target) // '')->{$frag}) {
			push @bad, "$link (no heading)";
		}
	}
	is_deeply(\@bad, [], "$doc: every link works");
}

# Before make install, `man gputrace` finds no page: the README says how
# to read each from the checkout, with a command that works.
my $readme = slurp("$root/README.md") // '';
for my $page (map { s{^\Q$root\E/}{}r } glob("$root/docs/man/*.1")) {
	like($readme, qr/`man \Q$page\E`/, "README: how to read $page before make install");
}

SKIP: {
	skip 'no man', 4 unless system('man --version >/dev/null 2>&1') == 0;
	for my $page (glob("$root/docs/man/*.1")) {
		my $warn = qx{LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l '$page' 2>&1 >/dev/null};
		is($warn, '', "$page renders without warnings");
	}
	for my $page (map { s{^\Q$root\E/}{}r } glob("$root/docs/man/*.1")) {  # from the top
		my $out = qx{cd '$root' && MANWIDTH=80 man '$page' 2>/dev/null};
		like($out, qr/^NAME/m, "man $page, in the checkout, shows the page");
	}
}

done_testing();
