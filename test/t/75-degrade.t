#!/usr/bin/perl
# 75-degrade.t - when something is missing or wrong, the program runs as
# it does without the tracer (same exit status, output and driver calls)
# and the tracer says so in one line on stderr: no libcuda, no GPU, GPU
# tracing asked for without CUPTI or NVML, an output directory that cannot
# be written, a file size limit, settings that do not parse, a template
# too long to keep, a thread buffer larger than all of them together.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtRun;
use GtSafety;

GtRun::require_built(tracer => 1);

my %FAST = (FAKE_CUDA_SYNC_NS => 1000, FAKE_CUDA_COPY_NS => 1000);

# The traced run's counts of the calls the tracer traces, for those the
# untraced run made (the tracer calls some other entry points itself:
# kernel names, devices, lookups).
sub program_calls {
	my ($r, $plain) = @_;
	my %traced = map { $_ => 1 } GtRun::traced_symbols();
	my %c;

	for my $sym (keys %{$plain->{counts}}) {
		$c{$sym} = $traced{$sym} ? $r->{counts}{$sym} // 0 : $plain->{counts}{$sym};
	}
	return \%c;
}

# Run args traced and not: same exit, stdout and driver calls.
sub same_as_untraced {
	my ($args, %opt) = @_;
	my $r = GtRun::run($args, %opt, env => { %FAST, %{$opt{env} || {}} });
	my $plain = GtRun::run($args, env => { %FAST, %{$opt{env} || {}} }, trace => 0);

	is($r->{signal}, 0, 'no crash') or diag(GtRun::describe($r));
	is($r->{exit}, $plain->{exit}, "exit status $plain->{exit}, as without the tracer");
	is($r->{stdout}, $plain->{stdout}, 'the same output');
	is_deeply(program_calls($r, $plain), $plain->{counts},
		  'the driver saw each traced call of the program') or
		diag(explain($r->{counts}));
	return ($r, $plain);
}

subtest 'no libcuda' => sub {
	my ($r, $plain) = same_as_untraced(['w_cudart', 3, 1],
		env => { LD_LIBRARY_PATH => '/nonexistent' });

	isnt($plain->{exit}, 0, 'the program itself fails (dlopen)');
	is($r->{stderr}, $plain->{stderr}, 'nothing more on stderr');
	is(scalar(@{$r->{dumps}}), 0, 'no dump');
};

subtest 'no GPU (cuInit fails)' => sub {
	my ($r, $plain) = same_as_untraced(['w_cudart', 3, 1],
		env => { FAKE_CUDA_NO_DEVICE => 1 });

	is($plain->{exit}, 90, 'the program itself fails (cuInit)');
	is($r->{stderr}, $plain->{stderr}, 'nothing more on stderr');
};

subtest 'GPU tracing asked for, no CUPTI, no NVML here' => sub {
	my ($r) = same_as_untraced(['w_cudart', 5, 1], env => {
		GPUTRACE_GPU => 'all', GPUTRACE_SAMPLE_MS => 10,
		GPUTRACE_CUPTI_LIB => '/nonexistent/libcupti.so',
	});
	my @lines = grep { !/wrote/ } GtSafety::tracer_lines($r);
	my %seen;

	cmp_ok(scalar(@lines), '<=', 3, 'at most a line per missing part')
		or diag($r->{stderr});
	is(scalar(grep { $seen{$_}++ } @lines), 0, 'no line twice');
	ok($r->{json}, 'the host events are still in the dump')
		or diag($r->{analyze_err});
	GtRun::check_totals($r) if $r->{json};
};

my $tmp = tempdir(CLEANUP => 1);
open(my $fh, '>', "$tmp/a-file") or die;
close($fh);
for my $out ("$tmp/a-file/t-%p.bin", '/proc/gputrace-test/t-%p.bin',
	     "$tmp/missing-dir/t-%p.bin") {
	subtest "output cannot be created: $out" => sub {
		my ($r) = same_as_untraced(['w_cudart', '--exit=4', 3, 1], output => $out);
		my @lines = GtSafety::tracer_lines($r);

		is(scalar(@lines), 1, 'one line on stderr') or diag($r->{stderr});
		like($lines[0] // '', qr/^gputrace: cannot create '[^']+': .+; tracing off$/,
		     'saying what and why');
		is(scalar(@{$r->{dumps}}), 0, 'no dump anywhere');
	};
}

subtest 'file size limit (ulimit -f): never killed by SIGXFSZ' => sub {
	my $sh = "ulimit -f 16 && exec '${\ GtRun::workload('w_cudart')}' 2000 1";
	my ($r) = same_as_untraced(['/bin/sh', '-c', $sh]);
	my @lines = grep { !/wrote/ } GtSafety::tracer_lines($r);

	is(scalar(@lines), 1, 'one line on stderr, besides the wrote line') or diag($r->{stderr});
	like($lines[0] // '', qr/file size limit/, 'saying why');
	ok(-s $r->{dumps}[0] <= 16 * 1024, 'the dump stays within the limit')
		if @{$r->{dumps}};
};

my @bad = (
	[ GPUTRACE_BUFFER_MB => 'lots' ], [ GPUTRACE_FLUSH_MS => 0 ],
	[ GPUTRACE_THREAD_BUFFER_KB => -5 ], [ GPUTRACE => 'yes' ],
	[ GPUTRACE_MAX_FUNCTIONS => '1e9' ],
);
for my $b (@bad) {
	my ($name, $value) = @$b;
	my $shown = length($value) > 20 ? substr($value, 0, 8) . '...' : $value;

	subtest "$name=$shown is ignored" => sub {
		my ($r) = same_as_untraced(['w_cudart', 3, 1], env => { $name => $value });
		my @lines = grep { !/wrote/ } GtSafety::tracer_lines($r);

		is(scalar(@lines), 1, 'one line on stderr') or diag($r->{stderr});
		like($lines[0] // '', qr/^gputrace: ignoring \Q$name\E/, 'naming it');
		ok($r->{json}, 'tracing goes on with the default') or return;
		GtRun::check_totals($r);
	};
}

subtest 'a GPUTRACE_OUTPUT of 1024 bytes or more: tracing off' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my ($r) = same_as_untraced(['w_cudart', 3, 1], cwd => $dir,
				   output => "$dir/" . ('x' x 2000) . '-%p.bin');
	my @lines = GtSafety::tracer_lines($r);

	is(scalar(@lines), 1, 'one line on stderr') or diag($r->{stderr});
	like($lines[0] // '', qr/^gputrace: GPUTRACE_OUTPUT is longer than 1023 bytes; tracing off$/,
	     'saying so');
	is(scalar(@{$r->{dumps}}), 0, 'no dump, not even under the default name')
		or diag("@{$r->{dumps}}");
	is(scalar(() = glob("$dir/*.bin")), 0, 'nothing in the working directory');
};

subtest 'GPUTRACE_THREAD_BUFFER_KB larger than GPUTRACE_BUFFER_MB' => sub {
	my ($r) = same_as_untraced(['w_cudart', 100, 1], env => {
		GPUTRACE_THREAD_BUFFER_KB => 524288, GPUTRACE_BUFFER_MB => 1 });
	my @lines = grep { !/wrote/ } GtSafety::tracer_lines($r);

	is(scalar(@lines), 1, 'one line on stderr') or diag($r->{stderr});
	like($lines[0] // '', qr/^gputrace: GPUTRACE_THREAD_BUFFER_KB is larger than GPUTRACE_BUFFER_MB; using 1024 KB$/,
	     'saying the thread buffer is cut to the total');
	ok($r->{json}, 'a dump') or return diag(GtRun::describe($r));
	cmp_ok($r->{json}{events}, '>', 0, 'with events');
	GtRun::check_totals($r);
};

done_testing();
