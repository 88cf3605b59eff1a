#!/usr/bin/perl
# 199-settings-docs.t - every setting of preload/base/settings.def (the one
# table the library reads its GPUTRACE_* settings from) has a row in
# docs/settings.md with the same default, and the document's table names
# no setting the library does not read.
use strict;
use warnings;
use FindBin;
use Test::More;

my $root = "$FindBin::Bin/../..";

sub slurp {
	my ($path) = @_;
	open(my $fh, '<', $path) or die "$path: $!";
	local $/;
	return scalar <$fh>;
}

my %decl;       # name -> [kind, default shown]
for (slurp("$root/preload/base/settings.def") =~ /^GT_SETTING\((.*)\)$/mg) {
	my ($id, $name, $kind, $def, $min, $max, $words) =
		/^(\w+), "([^"]+)", (\w+), ([^,]+), ([^,]+), ([^,]+), "([^"]*)"$/
		or BAIL_OUT("settings.def: cannot read '$_'");
	my $shown = $kind eq 'NUM' ? $def
		  : $kind eq 'WORD' ? (split /\|/, $words)[$def] : undef;
	$decl{$name} = [$kind, $shown];
}
cmp_ok(scalar keys %decl, '>=', 30, 'settings.def declares the settings');

my %doc;        # name -> default cell
for (split /\n/, slurp("$root/docs/settings.md")) {
	next unless /^\| `(GPUTRACE\w*)` \|([^|]*)\|/;
	my ($name, $cell) = ($1, $2);
	$cell =~ s/^\s+|\s+$//g;
	$doc{$name} = $cell;
}
for my $name (sort keys %decl) {
	my ($kind, $shown) = @{$decl{$name}};

	ok(exists $doc{$name}, "$name has a row in docs/settings.md") or next;
	next unless defined $shown && $doc{$name} =~ /^`([^`]*)`\s*$/;
	is($1, $shown, "$name: the document's default is the library's");
}
for my $name (sort keys %doc) {
	ok(exists $decl{$name}, "$name in docs/settings.md is read by the library");
}

done_testing();
