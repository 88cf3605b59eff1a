#!/usr/bin/perl
# 76-files.t - the dump is created with mode 0600 whatever the umask
# (narrower where the umask takes bits away, never wider), never through
# a symbolic link planted at its path and never over an existing file (a
# new name instead), only where GPUTRACE_OUTPUT says: nothing is written
# in the working directory, HOME or TMPDIR.  Links among the directories
# of the path are followed, as for any path.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);

my %FAST = (FAKE_CUDA_SYNC_NS => 1000, FAKE_CUDA_COPY_NS => 1000);

sub put {
	my ($path, $text) = @_;
	open(my $fh, '>', $path) or die "$path: $!";
	print $fh $text;
	close($fh);
}

sub traced_into {
	my ($dir, $template, $umask) = @_;
	my $wl = GtRun::workload('w_cudart');

	$umask //= '000';
	return GtRun::run(['/bin/sh', '-c', "umask $umask && exec '$wl' 3 1"],
			  env => \%FAST, output => "$dir/$template");
}

subtest 'mode 0600 with umask 000' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my $r = traced_into($dir, 't.bin');

	ok(-f "$dir/t.bin", 'the dump') or diag(GtRun::describe($r));
	is((stat("$dir/t.bin"))[2] & 07777, 0600, 'mode 0600');
};

subtest 'umask 277: mode 0400, narrower, never wider' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my $r = traced_into($dir, 't.bin', '277');

	ok(-f "$dir/t.bin", 'the dump') or diag(GtRun::describe($r));
	is((stat("$dir/t.bin"))[2] & 07777, 0400, 'mode 0400');
};

subtest 'a link among the directories is followed' => sub {
	my $dir = tempdir(CLEANUP => 1);
	mkdir("$dir/real") or die;
	symlink("$dir/real", "$dir/via") or die;
	my $r = traced_into($dir, 'via/t.bin');

	ok(-f "$dir/real/t.bin", 'the dump is in the directory the link names')
		or diag(GtRun::describe($r));
};

subtest 'a symbolic link at the path is not followed' => sub {
	my $dir = tempdir(CLEANUP => 1);
	put("$dir/victim", "precious\n");
	symlink("$dir/victim", "$dir/t.bin") or die;
	symlink("$dir/nowhere", "$dir/u.bin") or die;
	my $r = traced_into($dir, 't.bin');
	my $r2 = traced_into($dir, 'u.bin');

	is(GtRun::slurp("$dir/victim"), "precious\n", 'the link\'s target is untouched');
	ok(-l "$dir/t.bin", 'the link is still a link');
	ok(-f "$dir/t.1.bin" && !-l "$dir/t.1.bin", 'the dump is t.1.bin, a file')
		or diag(join ' ', glob("$dir/*"));
	is($r->{line} && $r->{line}{path}, "$dir/t.1.bin", 'the stderr line names it');
	ok(!-e "$dir/nowhere", 'a dangling link\'s target is not created');
	ok(-f "$dir/u.1.bin", 'that dump is u.1.bin');
};

subtest 'an existing file is never overwritten' => sub {
	my $dir = tempdir(CLEANUP => 1);
	put("$dir/t.bin", "mine\n");
	put("$dir/t.1.bin", "mine too\n");
	my $r = traced_into($dir, 't.bin');

	is(GtRun::slurp("$dir/t.bin"), "mine\n", 't.bin untouched');
	is(GtRun::slurp("$dir/t.1.bin"), "mine too\n", 't.1.bin untouched');
	ok(-s "$dir/t.2.bin", 'the dump is t.2.bin') or diag(join ' ', glob("$dir/*"));
	my ($j) = GtRun::analyze("$dir/t.2.bin");
	ok($j && $j->{events} > 0, 'and readable');
};

subtest 'nothing is written anywhere else' => sub {
	my ($out, $cwd, $home, $tmp) = map { tempdir(CLEANUP => 1) } 1 .. 4;
	my $r = GtRun::run(['w_fork', 'busy', 20, 10], output => "$out/d-%p.bin",
			   cwd => $cwd, env => { %FAST, HOME => $home, TMPDIR => $tmp });
	my @files = map { s{.*/}{}r } glob("$out/*");

	is($r->{exit}, 0, 'exits 0') or diag(GtRun::describe($r));
	is(scalar(@files), 2, 'two dumps (parent, child), where GPUTRACE_OUTPUT says');
	is(scalar(grep { !/^d-\d+\.bin$/ } @files), 0, 'and nothing else there')
		or diag("@files");
	my @stray = grep { !m{/(stdout|stderr|fake-counts\.txt)$} }
		    map { glob("$_/* $_/.[!.]*") } $cwd, $home, $tmp;
	is(scalar(@stray), 0, 'nothing in the working directory, HOME or TMPDIR')
		or diag("@stray");
};

done_testing();
