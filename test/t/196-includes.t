#!/usr/bin/perl
# 196-includes.t - the include graph follows the data flow.  Each file of
# analyzer/ and preload/ has a stage (the tables below), and a file may
# include only headers of its own stage or an earlier one:
#
#   analyzer:  lib < reader < model < passes < diagnosis < report/export
#              < commands
#   preload:   base < record < sources < hooks < process
#
# so that no cycle runs between the stages.  An include of a later stage is
# a violation.  The violations the code has today are listed in @ALLOWED:
# that list may only shrink.  An include it names that is gone fails too,
# so that its line is deleted with the include; a new violation fails.
# A file no rule gives a stage fails: add it to the tables.
use strict;
use warnings;
use FindBin;
use Test::More;

my $root = "$FindBin::Bin/../..";

my @ANALYZER_STAGES = qw(lib reader model passes diagnosis report commands);
my @PRELOAD_STAGES = qw(base record sources hooks process);

# The stage of each file: the first rule whose pattern matches its path
# wins.  Each folder of analyzer/ and preload/ holds files of one stage:
# a folder named after a stage gives it, the others are named below.
my @RULES = (
	[qr{^include/}, 'lib'],
	[qr{^analyzer/(lib|reader|model|passes|diagnosis|report)/}, '$1'],
	[qr{^analyzer/pipeline/}, 'diagnosis'],
	[qr{^analyzer/export/}, 'report'],
	[qr{^analyzer/cmd/}, 'commands'],
	[qr{^preload/(base|record|hooks|process)/}, '$1'],
	[qr{^preload/(gpu|nccl|nvtx|stack|env)/}, 'sources'],
);

# The violations of today, each "FILE -> HEADER": delete a line when its
# include goes; never add one.
my @ALLOWED = (
	# The model's rows ask the GPU pass for times.
	'analyzer/model/model_rows.c -> analyzer/passes/gpu.h',
	# The reader of the environment chunks fills the env pass's structures.
	'analyzer/reader/dump_env.c -> analyzer/passes/env.h',
	# Driver functions the library calls untraced are reached through
	# the cuGetProcAddress wrappers' code (procaddr.c).
	'preload/env/env_cuda.c -> preload/hooks/procaddr.h',
	'preload/record/functions.c -> preload/hooks/procaddr.h',
	# The recording side reaches up: the ring notices a child made without
	# fork(), the writer feeds the step detector, starts the sampler, arms
	# the signal watch and reads the hooks' tables; a GPU window is asked
	# for by a signal.
	'preload/record/ring.c -> preload/process/fork.h',
	'preload/gpu/gpu_window.c -> preload/process/signals.h',
	'preload/record/writer.c -> preload/process/signals.h',
	'preload/record/writer.c -> preload/hooks/hooks.h',
	'preload/record/writer.c -> preload/env/sampler.h',
	'preload/record/writer.c -> preload/gpu/steps.h',
);

sub stage_of {
	my ($path) = @_;

	for my $r (@RULES) {
		next unless $path =~ $r->[0];
		return $r->[1] eq '$1' ? $1 : $r->[1];
	}
	return undef;
}

sub rank_of {
	my ($stage) = @_;

	for my $list (\@ANALYZER_STAGES, \@PRELOAD_STAGES) {
		my ($i) = grep { $list->[$_] eq $stage } 0 .. $#$list;
		return $i if defined $i;
	}
	return 0;       # lib: before all
}

sub sources {
	my @files = map { s{^\Q$root\E/}{}r }
		glob("$root/analyzer/*.[ch] $root/analyzer/*/*.[ch] "
		     . "$root/preload/*.[ch] $root/preload/*/*.[ch] "
		     . "$root/preload/*.def $root/preload/*/*.def");
	return sort @files;
}

# The files of the repository "X" names from $file: next to it, from the
# top (-iquote .) or under include/ (-Iinclude).
sub resolve {
	my ($file, $name) = @_;
	my $dir = $file =~ s{/[^/]*$}{}r;

	for my $p ("$dir/$name", $name, "include/$name") {
		return $p =~ s{[^/]+/\.\./}{}gr if -f "$root/$p";
	}
	return undef;
}

sub includes {
	my ($file) = @_;
	my @inc;

	open(my $fh, '<', "$root/$file") or die "$file: $!\n";
	while (<$fh>) {
		push @inc, $1 if /^\s*#\s*include\s+"([^"]+)"/;
	}
	return @inc;
}

my @files = sources();
ok(@files > 100, scalar(@files) . ' files of analyzer/ and preload/');

my @unstaged = grep { !defined stage_of($_) } @files;
is("@unstaged", '', 'every file has a stage') or
	diag('give these a stage in the tables of 196-includes.t: ' . "@unstaged");

my %found;
for my $file (@files) {
	my $from = stage_of($file) // next;

	for my $name (includes($file)) {
		my $h = resolve($file, $name) // next;
		my $to = stage_of($h) // next;

		$found{"$file -> $h"} = "$from includes $to"
			if rank_of($to) > rank_of($from);
	}
}

my %allowed = map { $_ => 1 } @ALLOWED;
my @new = grep { !$allowed{$_} } sort keys %found;
my @gone = grep { !$found{$_} } @ALLOWED;

is(scalar(@new), 0, 'no include from an earlier stage to a later one')
	or diag(join("\n", map { "$_ ($found{$_})" } @new));
is(scalar(@gone), 0, 'every allowed violation is still there')
	or diag("gone: delete from \@ALLOWED in 196-includes.t:\n" . join("\n", @gone));
note(scalar(keys %found) . ' known violations left');

done_testing();
