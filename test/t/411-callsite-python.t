#!/usr/bin/perl
# 411-callsite-python.t - Python frames in call stacks: a script waits on
# the fake driver through ctypes from two known lines, one with the GIL
# released (ctypes.CDLL, as PyTorch's .item() releases it) and one with it
# held (ctypes.PyDLL).  Each wait's call site starts with its Python line;
# GPUTRACE_PYTHON=api finds only the one made with the GIL held, and
# GPUTRACE_PYTHON=0 none.  Skipped without python3.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);
my $script = "$FindBin::Bin/../workloads/w_stack_ctypes.py";
my ($python) = grep { -x } map { "$_/python3" } split(/:/, $ENV{PATH} // '');
plan skip_all => 'no python3' unless $python;

# The lines of the script's two waits, from their marks.
my %line;
{
	open(my $fh, '<', $script) or die "cannot read '$script': $!\n";
	while (<$fh>) {
		$line{$1} = $. if /# LINE-(RELEASED|HELD)/;
	}
}
is(scalar keys %line, 2, 'the script marks its two waits');

sub run_py {
	my (%env) = @_;
	my $r = GtRun::run([$python, $script, 50], env => \%env);

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($r->{json}, 'the analyzer read the dump') or diag(GtRun::describe($r));
	return $r->{json};
}

# The sync call site whose first frame matches, and its calls.
sub site {
	my ($j, $re) = @_;
	my @rows = grep { $_->{kind} eq 'sync' && $_->{frames}[0] =~ $re }
		@{ ($j && $j->{callsites}) || [] };

	return @rows == 1 ? $rows[0] : undef;
}

my $released = qr/^w_stack_ctypes\.py:$line{RELEASED} in Trainer\.step_released$/;
my $held = qr/^w_stack_ctypes\.py:$line{HELD} in Trainer\.step_held$/;
my $notes;

subtest 'default: frames read directly where the layout is known' => sub {
	my $j = run_py() or return;
	$notes = join("\n", @{ $j->{notes} });
	like($notes, qr/python frames: (read directly|through the C API)/,
	     'a note says how Python frames are read');
	my $h = site($j, $held);
	ok($h, 'the wait with the GIL held starts at its Python line')
		or diag(explain($j->{callsites}));
	is($h && $h->{calls}, 50, 'with its 50 waits');
	like($h ? $h->{frames}[1] : '', qr/^w_stack_ctypes\.py:\d+ in main$/,
	     'the next frame is the caller, main');
	if ($notes =~ /read directly/) {
		my $r = site($j, $released);
		ok($r, 'the wait with the GIL released starts at its Python line')
			or diag(explain($j->{callsites}));
		is($r && $r->{calls}, 50, 'with its 50 waits');
	}
};

subtest 'GPUTRACE_PYTHON=api: only with the GIL held' => sub {
	my $j = run_py(GPUTRACE_PYTHON => 'api') or return;
	like(join("\n", @{ $j->{notes} }), qr/python frames: through the C API/,
	     'the note says so');
	ok(site($j, $held), 'the wait with the GIL held has its line');
	ok(!grep({ /^w_stack_ctypes\.py:$line{RELEASED} / } map { @{ $_->{frames} } }
		 @{ $j->{callsites} }), 'the wait without it has none');
};

subtest 'GPUTRACE_PYTHON=0: no Python frames' => sub {
	my $j = run_py(GPUTRACE_PYTHON => 0) or return;
	my @py = grep { /\.py:\d+ in / } map { @{ $_->{frames} } } @{ $j->{callsites} };
	is(scalar @py, 0, 'none');
	ok(@{ $j->{callsites} }, 'native stacks are still taken');
};

done_testing();
