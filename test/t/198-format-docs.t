#!/usr/bin/perl
# 198-format-docs.t - docs/format.md's table of event kinds is the one
# test/tools/event_docs.c prints from format.h's declaration (the same
# declaration the writer's encoder and the reader's indices come from), so
# the document cannot drift from the format; `make format-docs` updates it.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

my $root = "$FindBin::Bin/../..";
my $gen = GtRun::build_dir() . '/test/event_docs';
plan skip_all => "not built: $gen (run make test)" unless -x $gen;

my $want = `$gen`;
is($? >> 8, 0, 'event_docs runs');
like($want, qr/^\| `GT_KIND_LAUNCH` \| 1 \| kernel launch \| 0 `SHAPE`/m,
     'it lists the kinds with their arguments');
my @rows = $want =~ /^\| `GT_KIND_/mg;
cmp_ok(scalar @rows, '>=', 8, 'every kind has a row');
unlike($want, qr/^\|(?:[^|\n]*\|){5,}/m, 'no row has a stray column separator');

open(my $fh, '<', "$root/docs/format.md") or die "docs/format.md: $!";
my $doc = do { local $/; <$fh> };
my ($have) = $doc =~ /<!-- event kinds: [^\n]*-->\n(.*?)<!-- end of event kinds -->/s;
ok(defined $have, 'docs/format.md has the table\'s place');
is($have, $want, 'docs/format.md holds the generated table (make format-docs)');

done_testing();
