#!/usr/bin/perl
# 190-install.t - the build and the installed tree: the library's build
# names a missing CUDA header and where it comes from; make demo runs with
# no CUDA headers (the sample dump); make install DESTDIR=... PREFIX=...
# puts the library, both commands, their man pages, the format headers and
# gputrace.pc (for that prefix) in place, the man pages render without a
# warning, the installed gputrace finds the installed library, and make
# uninstall removes it all.
use strict;
use warnings;
use File::Path qw(make_path);
use File::Temp qw(tempdir);
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtRun;

GtRun::require_built(tracer => 1);
my $ROOT = "$FindBin::Bin/../..";
my $B = GtRun::build_dir();
my $tmp = tempdir('gt-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my ($VERSION) = GtRun::slurp("$ROOT/Makefile") =~ /^VERSION\s*:?=\s*(\S+)/m;

# make ARGS in the source tree with this build folder: (exit status, output).
sub make {
	my (@args) = @_;
	my $cmd = join(' ', 'make', '--no-print-directory', '-C', "'$ROOT'", "B='$B'",
		       map { "'$_'" } @args);
	my $out = qx{$cmd 2>&1};

	return ($? >> 8, $out);
}

subtest 'a missing CUDA header is named, with where it comes from' => sub {
	my ($rc, $out) = make('CUDA_HOME=/nonexistent', 'cuda-headers');
	isnt($rc, 0, 'no headers: the check fails');
	like($out, qr{^cuda\.h not found under CUDA_HOME=/nonexistent: install the CUDA toolkit \(cuda-driver-dev\) or set CUDA_HOME}m,
	     'naming cuda.h');

	make_path("$tmp/cuda/include");
	for my $h (qw(cuda.h cudaTypedefs.h)) {
		open(my $fh, '>', "$tmp/cuda/include/$h") or die;
		close($fh);
	}
	($rc, $out) = make("CUDA_HOME=$tmp/cuda", 'cuda-headers');
	like($out, qr{^cupti\.h not found under CUDA_HOME=\Q$tmp\E/cuda: install the CUDA toolkit \(cuda-cupti-dev\)}m,
	     'the first one missing: cupti.h');
	($rc, $out) = make('cuda-headers');
	is($rc, 0, 'all there with the default CUDA_HOME') or diag($out);
};

SKIP: {
	skip 'a GPU here: make demo would trace', 1
		if system('nvidia-smi -L >/dev/null 2>&1') == 0;
	subtest 'make demo and make analyzer with no CUDA headers' => sub {
		my ($rc, $out) = make('CUDA_HOME=/nonexistent', 'analyzer');
		is($rc, 0, 'make analyzer') or diag($out);
		($rc, $out) = make('CUDA_HOME=/nonexistent', 'demo');
		is($rc, 0, 'make demo') or diag($out);
		like($out, qr/analyzing examples\/sample-pytorch\.bin/, 'on the sample dump');
		like($out, qr/^Verdict: /m, 'its report');
	};
}

subtest 'make install and uninstall' => sub {
	my $dest = "$tmp/dest";
	my $p = "$dest/opt/gt";
	my ($rc, $out) = make("DESTDIR=$dest", 'PREFIX=/opt/gt', 'install');
	my @files = (qw(lib/libgputrace.so bin/gputrace bin/gputrace-analyze
			share/man/man1/gputrace.1 share/man/man1/gputrace-analyze.1
			include/gputrace/format.h include/gputrace/varint.h
			lib/pkgconfig/gputrace.pc));

	is($rc, 0, 'make install') or return diag($out);
	ok(-e "$p/$_", $_) for @files;
	like(GtRun::slurp("$p/share/man/man1/gputrace.1"), qr/^\.TH GPUTRACE 1 "" "gputrace \Q$VERSION\E"/m,
	     'the man page with the version');
	SKIP: {
		skip 'no man', 4 unless system('man --version >/dev/null 2>&1') == 0;
		for my $page (qw(gputrace gputrace-analyze)) {
			my $text = qx{MANWIDTH=80 man --warnings -l '$p/share/man/man1/$page.1' 2>&1};
			like($text, qr/^NAME\n\s+\Q$page\E\s+-\s/m, "man -l $page.1: rendered");
			unlike($text, qr/warning/i, "man -l $page.1: no warning");
		}
	}

	local $ENV{PKG_CONFIG_PATH} = "$p/lib/pkgconfig";
	SKIP: {
		skip 'no pkg-config', 2 unless system('pkg-config --version >/dev/null 2>&1') == 0;
		is(qx{pkg-config --modversion gputrace}, "$VERSION\n", 'pkg-config: the version');
		like(qx{pkg-config --cflags gputrace}, qr{^-I/opt/gt/include\s*$}, 'and the prefix');
	}
	open(my $fh, '>', "$tmp/use.c") or die;
	print $fh "#include <gputrace/format.h>\nint main(void) { return GT_FORMAT_VERSION == 0; }\n";
	close($fh);
	is(system("cc -I'$p/include' -o '$tmp/use' '$tmp/use.c' && '$tmp/use'"), 0,
	   'a program built against the installed format.h');

	my $r = GtRun::run(["$p/bin/gputrace", 'record', '--', '/usr/bin/env'], trace => 0);
	like($r->{stdout}, qr{^LD_PRELOAD=\Q$p\E/lib/libgputrace\.so$}m,
	     'the installed gputrace preloads the installed library');
	like(qx{'$p/bin/gputrace' analyze --version}, qr/^gputrace-analyze \Q$VERSION\E /,
	     'and finds the installed analyzer');

	($rc, $out) = make("DESTDIR=$dest", 'PREFIX=/opt/gt', 'uninstall');
	is($rc, 0, 'make uninstall') or diag($out);
	is_deeply([grep { -e "$p/$_" } @files], [], 'nothing left');
};

done_testing();
