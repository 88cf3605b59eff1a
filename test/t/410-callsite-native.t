#!/usr/bin/perl
# 410-callsite-native.t - call stacks of a C program (w_stack) under each
# unwinder: the top wait call site is the function that waited, every wait
# has its stack, the pageable copy and the pinned allocation are found at
# their functions, 1000 waits from one place are one stack in the dump,
# the dump says which unwinder it used, and GPUTRACE_STACK_DEPTH=0 takes
# no stacks at all.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

use constant { CHUNK_STACK => 11, CHUNK_MODULES => 12 };

GtRun::require_built(tracer => 1);
plan skip_all => 'w_stack not built (run make test)'
	unless -x GtRun::workload('w_stack');

my $SYNC_NS = 20_000;

# The dump's chunks in order: ([type, payload], ...).
sub chunks {
	my ($path) = @_;
	my $b = GtRun::slurp($path) // return ();
	my $off = unpack('V', substr($b, 12, 4));
	my @c;

	while ($off + 8 <= length $b) {
		my ($type, $size) = unpack('V V', substr($b, $off, 8));
		last if $off + 8 + $size > length $b;
		push @c, [ $type, substr($b, $off + 8, $size) ];
		$off += 8 + $size;
	}
	return @c;
}

sub rows_with {
	my ($j, $kind, $re) = @_;

	return grep { $_->{kind} eq $kind && grep { /$re/ } @{ $_->{frames} } }
		@{ $j->{callsites} || [] };
}

sub sum_calls { my $n = 0; $n += $_->{calls} for @_; return $n }

sub notes { my ($j) = @_; return join("\n", @{ $j->{notes} || [] }) }

my %NAME = (libgcc => 'libgcc', fp => 'frame pointers',
	    libunwind => 'libunwind');

sub check_run {
	my ($unwinder, $n, $threads) = @_;
	my $r = GtRun::run(['w_stack', "--threads=$threads", $n],
			   env => { GPUTRACE_UNWIND => $unwinder,
				    FAKE_CUDA_SYNC_NS => $SYNC_NS });
	my $j = $r->{json};

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($j, 'the analyzer read the dump') or return;
	like(notes($j), qr/^call stacks: \Q$NAME{$unwinder}\E.* unwinder, depth 24/m,
	     'a note says which unwinder took the stacks');
	my @sync = grep { $_->{kind} eq 'sync' } @{ $j->{callsites} };
	ok(@sync, 'there are wait call sites') or return diag(explain($j->{callsites}));
	like($sync[0]{frames}[0], qr/^wait_here_for_test \(w_stack\)$/,
	     'the top wait call site is wait_here_for_test')
		or diag(explain($sync[0]));
	is(sum_calls(rows_with($j, 'sync', qr/^wait_here_for_test /)),
	   $n * (1 + $threads), 'every wait there is counted there');
	my @other = rows_with($j, 'sync', qr/^other_wait_site /);
	is(scalar @other, 1, 'other_wait_site is one call site');
	is($other[0] && $other[0]{calls}, int($n / 10), 'with its waits');
	like(join(' ', @{ $other[0] ? $other[0]{frames} : [] }),
	     qr/other_wait_site \(w_stack\) main \(w_stack\)/,
	     'its frames go on to main');
	my $waits = GtRun::sync($j, 'cuStreamSynchronize')->{calls} +
		    GtRun::sync($j, 'cuCtxSynchronize')->{calls};
	is(sum_calls(@sync), $waits, 'every wait has a call site');
	my @copy = rows_with($j, 'pageable_copy', qr/^copy_here_for_test /);
	is(sum_calls(@copy), 1, 'the pageable copy is at copy_here_for_test');
	my @pin = rows_with($j, 'pinned_alloc', qr/^pin_here_for_test /);
	is(sum_calls(@pin), 1, 'the pinned allocation is at pin_here_for_test');
	ok(!grep({ /not in the dump/ } map { @{ $_->{frames} } } @{ $j->{callsites} }),
	   'every stack an event names is in the dump');
	return $r;
}

sub check_chunks {
	my ($r, $max) = @_;
	my @c = chunks($r->{dump});
	my @stacks = grep { $_->[0] == CHUNK_STACK } @c;
	my ($first_mod) = grep { $c[$_][0] == CHUNK_MODULES } 0 .. $#c;
	my ($first_stack) = grep { $c[$_][0] == CHUNK_STACK } 0 .. $#c;
	my %ids;

	ok(@stacks >= 4 && @stacks <= $max,
	   "few stacks in the dump, whatever the waits (" . @stacks . ")");
	$ids{ unpack('V', $_->[1]) }++ for @stacks;
	is(scalar(keys %ids), scalar(@stacks), 'each stack is written once');
	ok(defined $first_mod && defined $first_stack && $first_mod < $first_stack,
	   'the module map comes before the first stack');
}

for my $u (qw(libgcc fp libunwind)) {
	subtest "GPUTRACE_UNWIND=$u" => sub {
		my $probe = GtRun::run(['w_stack', 1], env => { GPUTRACE_UNWIND => $u });
		if ($u eq 'libunwind' && notes($probe->{json}) !~ /call stacks: libunwind/) {
			like($probe->{stderr}, qr/cannot load 'libunwind.so.8'; using libgcc/,
			     'without libunwind.so.8 it says so and uses libgcc');
			like(notes($probe->{json}), qr/call stacks: libgcc/,
			     'and the note says libgcc');
			return;
		}
		my $r = check_run($u, 200, 4) or return;
		check_chunks($r, 8);
	};
}

subtest '1000 waits from one place are one stack' => sub {
	my $r = check_run('libgcc', 1000, 0) or return;
	my @rows = rows_with($r->{json}, 'sync', qr/^wait_here_for_test /);

	is(scalar @rows, 1, 'one call site');
	is($rows[0] && $rows[0]{calls}, 1000, 'with the 1000 waits');
	check_chunks($r, 6);
};

subtest 'GPUTRACE_STACK_DEPTH=0 takes no stacks' => sub {
	my $r = GtRun::run(['w_stack', 100], env => { GPUTRACE_STACK_DEPTH => 0 });
	my $j = $r->{json};

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	ok($j, 'the analyzer read the dump') or return;
	is_deeply($j->{callsites}, [], 'no call sites');
	is(GtRun::sync($j, 'cuStreamSynchronize')->{calls}, 100, 'the waits are traced');
	is(scalar(grep { $_->[0] == CHUNK_STACK || $_->[0] == CHUNK_MODULES }
		  chunks($r->{dump})), 0, 'no stack or module chunks');
	unlike(notes($j), qr/call stacks/, 'no note about stacks');
};

subtest 'a bad setting keeps the default' => sub {
	my $r = GtRun::run(['w_stack', 10], env => { GPUTRACE_STACK_DEPTH => 'deep',
						      GPUTRACE_UNWIND => 'magic' });

	is($r->{exit}, 0, 'exits 0');
	like($r->{stderr}, qr/ignoring GPUTRACE_STACK_DEPTH='deep' \(want 0..128\), using 24/,
	     'says so for the depth');
	like($r->{stderr}, qr/ignoring GPUTRACE_UNWIND='magic'/, 'and the unwinder');
	ok(@{ ($r->{json} || {})->{callsites} || [] }, 'stacks are taken');
};

done_testing();
