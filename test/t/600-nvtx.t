#!/usr/bin/perl
# 600-nvtx.t - NVTX through the real nvtx3 headers (w_nvtx), traced with
# LD_PRELOAD alone: the library makes itself NVTX's injection, and every
# push/pop, start/end, mark, domain, registered string and name arrives,
# with the right nesting, threads and kernels inside.  Also: another tool
# named in NVTX_INJECTION64_PATH keeps it, and the library loaded only as
# an injection (not preloaded) declines without harm.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);
plan skip_all => 'w_nvtx not built' unless -x GtRun::workload('w_nvtx');

my ($STEPS, $THREADS) = (5, 4);

sub truth {
	my ($r) = @_;
	my %t = $r->{stdout} =~ /(\w+)=(\d+)/g;
	return \%t;
}

sub nvtx_row {
	my ($j, $name, $domain) = @_;
	my @r = grep { $_->{name} eq $name && $_->{domain} eq ($domain // '') }
		@{ $j->{nvtx} || [] };
	return @r == 1 ? $r[0] : undef;
}

subtest 'ranges, marks, domains and names' => sub {
	my $r = GtRun::run(['w_nvtx', $STEPS, $THREADS],
			   env => { NVTX_INJECTION64_PATH => undef });
	my $j = $r->{json};
	my $t = truth($r);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($j, 'the analyzer read the dump') or return;
	is($t->{levels_ok}, 1, 'push and pop returned the nesting levels');
	my $k = GtRun::kernel($j, GtRun::K_WORKER);
	is($k && $k->{calls}, $t->{launches}, 'every launch');
	is($j->{events}, $t->{launches} + $t->{nvtx_events},
	   'events = launches + NVTX calls');
	is($j->{dropped}, 0, 'nothing dropped');

	my %want = (	# name, domain => calls, kernels inside
		"step\0" => [$STEPS, 3 * $STEPS], "inner\0" => [$STEPS, $STEPS],
		"worker\0" => [$THREADS * $STEPS, $THREADS * $STEPS],
		"worker-inner\0" => [$THREADS * $STEPS, 0],
		"wide-\xc5\xb5\0" => [2, 0], "ex-range\0" => [1, 0],
		"aten::mm\0" => [2, 0], "startend\0" => [2, 0], "cross\0" => [1, 0],
		"shared\0" => [1, 0], "shared\0mydomain" => [1, 0],
		"registered\0mydomain" => [4, 0],
	);
	my %got = map { ("$_->{name}\0$_->{domain}" => [$_->{calls}, $_->{kernels}]) }
		@{ $j->{nvtx} };
	is_deeply(\%got, \%want, 'range names, calls and kernels inside')
		or diag(explain($j->{nvtx}));
	is(scalar(grep { $_->{unclosed} } @{ $j->{nvtx} }), 0, 'none left open');
	is($j->{nvtx_info}{unmatched}, 0, 'every pop and end matched');

	my ($step, $inner) = (nvtx_row($j, 'step'), nvtx_row($j, 'inner'));
	cmp_ok($step->{wall_ns_total}, '>', $inner->{wall_ns_total},
	       'an outer range lasts longer than the one nested in it');
	my ($w, $wi) = (nvtx_row($j, 'worker'), nvtx_row($j, 'worker-inner'));
	cmp_ok($w->{wall_ns_total}, '>', $wi->{wall_ns_total}, 'on every thread');
	is(nvtx_row($j, 'ex-range')->{category}, 1, 'the category of an Ex range');

	my %marks = map { ("$_->{name}\0$_->{domain}" => $_->{calls}) }
		@{ $j->{nvtx_info}{marks} };
	is_deeply(\%marks, { "tick\0" => 3, "dmark\0mydomain" => 1 }, 'marks');
	is_deeply($j->{nvtx_info}{categories},
		  [{ domain => '', category => 1, name => 'phase' }],
		  'category names');
	my @th = @{ $j->{nvtx_info}{threads} };
	is(scalar(@th), 1, 'one thread named');
	is($th[0]{name}, 'main-thread', 'its name');
	cmp_ok($th[0]{tid}, '>', 0, 'and its id');
	unlike($r->{stderr}, qr/NVTX/, 'nothing said about NVTX');
};

subtest 'the text report' => sub {
	my $r = GtRun::run(['w_nvtx', 2, 1], env => { NVTX_INJECTION64_PATH => undef });
	my $out = qx{'${\ GtRun::analyzer()}' '$r->{dump}'};

	like($out, qr/^NVTX ranges/m, 'has an NVTX section');
	like($out, qr/^\s+step\s+2\s/m, 'a row per range name');
	like($out, qr/registered \[mydomain\]/, 'the domain beside the name');
	like($out, qr/marks: tick x3/, 'marks');
};

subtest 'another tool holds NVTX_INJECTION64_PATH' => sub {
	my $r = GtRun::run(['w_nvtx', 2, 1],
			   env => { NVTX_INJECTION64_PATH => '/nonexistent/libother.so' });
	my $j = $r->{json};

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	like($r->{stderr}, qr/NVTX_INJECTION64_PATH names '\/nonexistent\/libother.so'/,
	     'says so once');
	is(truth($r)->{levels_ok}, 0, 'NVTX stayed without a tool');
	is(scalar(@{ $j->{nvtx} || [] }), 0, 'no ranges recorded');
	is(GtRun::kernel($j, GtRun::K_WORKER)->{calls}, truth($r)->{launches},
	   'CUDA calls still traced');
};

subtest 'loaded as an NVTX injection only, not preloaded' => sub {
	my $r = GtRun::run(['w_nvtx', 2, 1], trace => 0,
			   env => { NVTX_INJECTION64_PATH => GtRun::lib() });

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(truth($r)->{levels_ok}, 0, 'the injection declined');
	is(scalar(@{ $r->{dumps} }), 0, 'no dump');
};

subtest 'GPUTRACE=0' => sub {
	my $r = GtRun::run(['w_nvtx', 2, 1], env => { GPUTRACE => 0,
						     NVTX_INJECTION64_PATH => undef });

	is($r->{exit}, 0, 'exits 0');
	is(truth($r)->{levels_ok}, 0, 'NVTX is not taken');
	is(scalar(@{ $r->{dumps} }), 0, 'no dump');
};

done_testing();
