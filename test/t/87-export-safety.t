#!/usr/bin/perl
# 87-export-safety.t - what the exports (--sqlite, --trace, --perfetto,
# --html) do to the place they write: a file already there survives a
# failed export whole, and is replaced only by a complete one, with no
# temporary file left beside it; a character device or a FIFO is written
# into by the stream formats and refused by SQLite, never removed or
# replaced; "-" is standard output for the stream formats and refused for
# SQLite.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use Fcntl qw(O_RDONLY O_NONBLOCK);
use File::Spec;
use File::Temp qw(tempdir);
use POSIX qw(mkfifo WNOHANG);
use Test::More;

use GtDump qw(:DEFAULT run_analyzer chunk event_bytes);
use GtMore;

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();

use constant T => 7_000_000_000;

my $tmp = tempdir(CLEANUP => 1);
my $analyzer = File::Spec->rel2abs(GtDump::analyzer_path());
my $good = GtMore::gpu_dump("$tmp/good.bin", T, 5_000_000_000);
# The good dump, then events of an op it never defined: a timeline or a
# database is half written when the reader finds out.
my $bad = GtDump->new->write("$tmp/bad.bin", GtDump::slurp($good) .
	chunk(CHUNK_EVENTS, pack('V V Q< V V Q<', 11, 1, T, 1, 0, 0) .
	      event_bytes({ op => 99, t0 => T }, T)));

# Each format, and what its output starts with.
my %start = (sqlite => qr/^SQLite format 3\0/, trace => qr/^\{"displayTimeUnit"/,
	     perfetto => qr/^\n/, html => qr/^<!DOCTYPE html>/);
my @formats = qw(sqlite trace perfetto html);
my %skip;
for my $f (@formats) {
	my $r = run_analyzer("--$f", "$tmp/probe.$f", $good);
	$skip{$f} = $1 if $r->{err} =~ /(built without \S+)/;
}
my @built = grep { !$skip{$_} } @formats;
diag("--$_: $skip{$_}") for grep { $skip{$_} } @formats;

# The files of $dir but those named.
sub others {
	my ($dir, @known) = @_;
	my %known = map { $_ => 1 } @known;

	opendir(my $dh, $dir) or die "$dir: $!\n";
	return [sort grep { !/^\.\.?$/ && !$known{$_} } readdir($dh)];
}

# The analyzer run in $dir: {out, err, exit}.
sub run_in {
	my ($dir, @args) = @_;
	my $pid = fork() // die "fork: $!\n";

	if (!$pid) {
		chdir($dir) or exit(127);
		open(STDOUT, '>', "$tmp/run.out") or exit(127);
		open(STDERR, '>', "$tmp/run.err") or exit(127);
		exec($analyzer, @args) or exit(127);
	}
	waitpid($pid, 0);
	return { exit => $? >> 8, out => GtDump::slurp("$tmp/run.out"),
		 err => GtDump::slurp("$tmp/run.err") };
}

# The analyzer writing into the FIFO $fifo while this process reads it:
# {exit, err, data}.  Killed after 120 s: a blocked open fails the test.
sub through_fifo {
	my ($fifo, @args) = @_;
	my ($data, $status) = ('');

	sysopen(my $r, $fifo, O_RDONLY | O_NONBLOCK) or die "$fifo: $!\n";
	my $pid = fork() // die "fork: $!\n";
	if (!$pid) {
		open(STDOUT, '>', '/dev/null') or exit(127);
		open(STDERR, '>', "$tmp/fifo.err") or exit(127);
		exec($analyzer, @args) or exit(127);
	}
	local $SIG{ALRM} = sub { kill('KILL', $pid) };
	alarm(120);
	for (;;) {
		my $n = sysread($r, my $buf, 1 << 16);
		if ($n) {
			$data .= $buf;
		} elsif (defined $status) {
			last;           # drained after the analyzer ended
		} elsif (waitpid($pid, WNOHANG) == $pid) {
			$status = $?;
		} else {
			select(undef, undef, undef, 0.02);
		}
	}
	alarm(0);
	close($r);
	return { exit => $status >> 8, err => GtDump::slurp("$tmp/fifo.err"),
		 data => $data };
}

for my $f (@built) {
	my $dir = "$tmp/$f";
	mkdir($dir) or die;
	my $out = "$dir/out";

	# A failed export: what was there stays, whole.
	GtDump->new->write($out, "precious\n");
	my $r = run_analyzer("--$f", $out, $bad);
	is($r->{exit}, 2, "--$f of a corrupt dump: exit 2");
	is(GtDump::slurp($out), "precious\n", "--$f: the file already there is untouched");
	is_deeply(others($dir, 'out'), [], '... and nothing left beside it');

	# A good one replaces it, with the mode it had (and its owner, root
	# may give it).
	chmod(0640, $out);
	chown(4321, 4321, $out) if $> == 0;
	$r = run_analyzer("--$f", $out, $good);
	is($r->{exit}, 0, "--$f of a good dump: exit 0") or diag($r->{err});
	like(GtDump::slurp($out), $start{$f}, '... replaces the file');
	is((stat($out))[2] & 07777, 0640, '... keeping its mode');
	is((stat($out))[4], $> == 0 ? 4321 : $>, '... and its owner');
	is_deeply(others($dir, 'out'), [], '... nothing left beside it');

	# Through a symbolic link: the file it points to is replaced.
	symlink('out', "$dir/link") or die;
	GtDump->new->write($out, "precious\n");
	$r = run_analyzer("--$f", "$dir/link", $good);
	is($r->{exit}, 0, "--$f into a symbolic link: exit 0") or diag($r->{err});
	ok(-l "$dir/link", '... the link is still a link');
	like(GtDump::slurp($out), $start{$f}, '... to the new file');
	is_deeply(others($dir, 'out', 'link'), [], '... nothing left beside it');

	# "-": standard output, or refused; never a file named "-".
	$r = run_in($dir, "--$f", '-', $good);
	if ($f eq 'sqlite') {
		is($r->{exit}, 2, '--sqlite -: exit 2');
		like($r->{err}, qr/--sqlite writes a database file, not standard output/,
		     '... says why');
	} else {
		is($r->{exit}, 0, "--$f -: exit 0") or diag($r->{err});
		like($r->{out}, $start{$f}, '... written to standard output');
	}
	ok(!-e "$dir/-", '... no file named -');

	# A FIFO: a stream is written into it, SQLite refuses it.
	my $fifo = "$dir/fifo";
	mkfifo($fifo, 0600) or die "mkfifo: $!\n";
	if ($f eq 'sqlite') {
		$r = run_analyzer('--sqlite', $fifo, $good);
		is($r->{exit}, 2, '--sqlite into a FIFO: exit 2');
		like($r->{err}, qr/'\Q$fifo\E': an SQLite database needs a regular file, not a device or a FIFO/,
		     '... says why') or diag($r->{err});
	} else {
		$r = through_fifo($fifo, "--$f", $fifo, $good);
		is($r->{exit}, 0, "--$f into a FIFO that a program reads: exit 0")
			or diag($r->{err});
		like($r->{data}, $start{$f}, '... the reader gets the output');
		is($r->{data}, GtDump::slurp($out), '... all of it');
	}
	ok(-p $fifo, '... the FIFO is still a FIFO');
	unlink($fifo);
}

# Killed while it writes: the temporary file goes, the old file stays.  The
# analyzer is held in its first write to stderr (the progress bar, forced
# on), which comes after the output is opened: a pipe already full.
for my $f (grep { $_ ne 'html' } @built) {     # html reads, then opens
	my $dir = "$tmp/kill-$f";
	mkdir($dir) or die;
	GtDump->new->write("$dir/out", "precious\n");
	pipe(my $r, my $w) or die "pipe: $!\n";
	my $flags = fcntl($w, Fcntl::F_GETFL(), 0);
	fcntl($w, Fcntl::F_SETFL(), $flags | O_NONBLOCK);
	1 while syswrite($w, 'x' x 4096);
	my $pid = fork() // die "fork: $!\n";
	if (!$pid) {
		fcntl($w, Fcntl::F_SETFL(), $flags);
		open(STDERR, '>&', $w) or exit(127);
		open(STDOUT, '>', '/dev/null') or exit(127);
		$ENV{GPUTRACE_PROGRESS} = 1;
		exec($analyzer, "--$f", "$dir/out", $good) or exit(127);
	}
	my $tries = 0;
	select(undef, undef, undef, 0.01) until @{ others($dir, 'out') } || ++$tries > 3000;
	my $held = others($dir, 'out');
	kill('TERM', $pid);
	waitpid($pid, 0);
	is($? & 127, 15, "--$f killed while it writes (by SIGTERM)");
	is(scalar(@$held), 1, '... it was writing a file beside the old one')
		or diag("@$held");
	is(GtDump::slurp("$dir/out"), "precious\n", '... the old file is untouched');
	is_deeply(others($dir, 'out'), [], '... the temporary file is gone');
	close($r);
	close($w);
}

# A file size limit (ulimit -f) is a write error like a full disk: said,
# exit 2, the old file untouched; no signal.
for my $f (@built) {
	my $dir = "$tmp/fsize-$f";
	mkdir($dir) or die;
	GtDump->new->write("$dir/out", "precious\n");
	my $pid = fork() // die "fork: $!\n";
	if (!$pid) {
		open(STDERR, '>', "$dir/err") or exit(127);
		exec('sh', '-c', 'ulimit -f 1 && exec "$@"', 'sh', $analyzer, "--$f",
		     "$dir/out", $good) or exit(127);
	}
	waitpid($pid, 0);
	is($? & 127, 0, "--$f past ulimit -f: no signal");
	is($? >> 8, 2, '... exit 2');
	like(GtDump::slurp("$dir/err"), qr/cannot write '\Q$dir\E\/out': /, '... says so');
	is(GtDump::slurp("$dir/out"), "precious\n", '... the old file is untouched');
	is_deeply(others($dir, 'out', 'err'), [], '... nothing left beside it');
}

# What the Python program $code prints about @args (stderr too).
sub python {
	my ($code, @args) = @_;

	GtDump->new->write("$tmp/check.py", $code);
	open(my $fh, '-|', 'sh', '-c', 'exec python3 "$@" 2>&1', 'sh',
	     "$tmp/check.py", @args) or die "python3: $!\n";
	local $/;
	my $out = <$fh> // '';
	close($fh);
	chomp($out);
	return $out;
}

# Text that is not UTF-8, with control characters and DEL, in a kernel
# name, the command line, the host, an NVTX message and a note: every
# export is valid UTF-8 (invalid bytes as U+FFFD); Python's sqlite3 reads
# every column of every table; the HTML holds no control character.
SKIP: {
	skip 'no python3', 1 unless system('python3 -c 1') == 0;
	my $bad_text = "\xff\xfe\xc3\x28\xed\xa0\x80\xf5\x80\x80\x80";  # invalid, surrogate, past U+10FFFF
	my $ctl = "\x01\x1b[31m\x7f\r";
	my $d = GtDump->new(pid => 42, start_ns => T);
	$d->process(pid => 42, host => "n1$bad_text", exe => "/bin/tr\xe9in",
		    argv => ["tr\xe9in", "--name=$bad_text", "ctl=$ctl"]);
	GtMore::train_ops($d);
	my $kname = "_Z4st\xffepPf$ctl";
	$d->function(id => 2, name => $kname, handle => 0xf01);
	$d->shape(id => 2, function => 2, grid => [8, 1, 1], block => [32, 1, 1]);
	$d->op(op => 5, kind => GtMore::KIND_NVTX, api => 'nvtxRangePushA',
	       dir => GtMore::NVTX_PUSH, nargs => 4);
	my $msg = $d->string("step $bad_text$ctl");
	my $kid = $d->string($kname);
	GtMore::clock_pair($d, T, T);
	$d->events(tid => 11, events => [
		{ op => 5, t0 => T + 1_000_000, args => [$msg, 0, 0, 0] },
		map { { op => 1, t0 => T + $_ * 2_000_000, dur => 4000, stream => 1,
			args => [2] } } 1 .. 3 ]);
	GtMore::gpu_kernels($d, [map { { host_id => (1 << 40) | ($_ + 1), name => $kid,
		start => T + $_ * 2_000_000 + 10_000, end => T + $_ * 2_000_000 + 900_000 } }
		1 .. 3]);
	$d->note(1, "note $bad_text$ctl");
	$d->end(end_ns => T + 10_000_000);
	my $dump = $d->write("$tmp/text.bin");
	my $dir = "$tmp/text";
	mkdir($dir) or die;

	my $r = run_analyzer('--json', $dump);
	is($r->{exit}, 0, 'a dump of invalid text: --json exit 0') or diag($r->{err});
	GtDump->new->write("$dir/report.json", $r->{out});
	my %out = (json => "$dir/report.json");
	for my $f (@built) {
		$r = run_analyzer("--$f", "$dir/out.$f", $dump);
		is($r->{exit}, 0, "... --$f exit 0") or diag($r->{err});
		$out{$f} = "$dir/out.$f";
	}
	# Whether a file is valid UTF-8 (and JSON, when asked) with U+FFFD in
	# its text, and the control characters it holds (as code points).
	my $check = <<'PY';
import json, re, sys
t = open(sys.argv[1], 'rb').read().decode('utf-8')
if sys.argv[2:]:
    t = json.dumps(json.loads(t), ensure_ascii=False)
print('\ufffd' in t, sorted({'%02x' % ord(c) for c in re.findall('[\x00-\x08\x0b-\x1f\x7f]', t)}))
PY
	for my $f (grep { $out{$_} } qw(json trace html)) {
		my $res = python($check, $out{$f}, $f eq 'html' ? () : 'json');
		like($res, qr/^True /, "--$f: valid UTF-8, invalid bytes as U+FFFD")
			or diag($res);
		like($res, qr/ \[\]$/, "--$f: no control character") or diag($res)
			if $f eq 'html';
	}
	if ($out{sqlite}) {
		my $py = <<'PY';
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
texts = []
for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").fetchall():
    for row in db.execute('SELECT * FROM "%s"' % t):
        texts += [v for v in row if isinstance(v, str)]
print(len(texts), sum('\ufffd' in v for v in texts),
      sum('\x1b[31m\x7f' in v for v in texts))
PY
		my $res = python($py, $out{sqlite});
		like($res, qr/^\d+ \d+ \d+$/, "--sqlite: Python's sqlite3 reads every text of every table")
			or diag($res);
		my ($n, $fffd, $ctl) = split ' ', $res;
		ok(($fffd // 0) >= 5, "... the invalid bytes as U+FFFD ($fffd texts)");
		ok(($ctl // 0) >= 3, "... control characters kept as they were ($ctl texts)");
	}
}

# A demangling bomb: a kernel name of a few hundred bytes whose each
# parameter refers twice to the one before (f(A, B<A, A>, B<B<A, A>,
# B<A, A> >...)): $n parameters demangle to about 2^$n bytes.  The
# demangled name is bounded (the mangled one stands for it), and so is
# the work: counted in CPU time, never wall time.
sub seq36 {
	my ($k) = @_;
	my $s = '';

	do { $s = (0 .. 9, 'A' .. 'Z')[$k % 36] . $s; $k = int($k / 36) } while $k;
	return $s;
}

sub bomb_dump {
	my ($n, $path) = @_;
	my $name = '_Z1f1A1BIS_S_E';
	my $d = GtDump->new(pid => 42, start_ns => T);

	$name .= 'S0_IS' . seq36($_ - 1) . '_S' . seq36($_ - 1) . '_E' for 2 .. $n;
	$d->process(pid => 42, argv => ['bomb']);
	$d->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel');
	$d->function(id => 1, name => $name, handle => 0xf00);
	$d->shape(id => 1, function => 1);
	my $kid = $d->string($name);
	GtMore::clock_pair($d, T, T);
	$d->events(tid => 1, events => [map { { op => 1, t0 => T + $_ * 10_000,
		dur => 1000, stream => 1, args => [1] } } 1 .. 3]);
	GtMore::gpu_kernels($d, [map { { host_id => (1 << 40) | ($_ + 1), name => $kid,
		start => T + $_ * 10_000 + 100, end => T + $_ * 10_000 + 5000 } } 1 .. 3]);
	$d->end(end_ns => T + 1_000_000);
	return ($d->write($path), $name);
}

{
	# 24 parameters: some 200 MB each time the name is demangled, unbounded
	my ($dump, $name) = bomb_dump(24, "$tmp/bomb24.bin");
	my $dir = "$tmp/bomb";
	mkdir($dir) or die;
	my $r = run_analyzer('--json', $dump);
	is($r->{exit}, 0, "a kernel name of " . length($name) . " bytes that doubles 24 times: exit 0")
		or diag($r->{err});
	ok(length($r->{out}) < 1 << 20, '... --json under 1 MB (' . length($r->{out}) . ' bytes)');
	like($r->{out}, qr/\Q$name\E/, '... the mangled name stands for the demangled one');
	for my $f (@built) {
		$r = run_analyzer("--$f", "$dir/out.$f", $dump);
		is($r->{exit}, 0, "... --$f exit 0") or diag($r->{err});
		ok(-s "$dir/out.$f" < 2 << 20, "... --$f under 2 MB (" . (-s "$dir/out.$f") . ' bytes)');
	}

	# 60 parameters (2^60 bytes): the work of all the outputs, in CPU time
	# (ulimit -t: a demangler that ran away is killed, not waited for)
	($dump, $name) = bomb_dump(60, "$tmp/bomb60.bin");
	my @cpu0 = (times)[2, 3];
	for my $args (['--json'], map { ["--$_", "$dir/big.$_"] } @built) {
		my $pid = fork() // die "fork: $!\n";
		if (!$pid) {
			open(STDOUT, '>', '/dev/null') or exit(127);
			open(STDERR, '>', "$dir/err") or exit(127);
			exec('sh', '-c', 'ulimit -t 20 && exec "$@"', 'sh', $analyzer,
			     @$args, $dump) or exit(127);
		}
		waitpid($pid, 0);
		is($?, 0, "a name of " . length($name) . " bytes that doubles 60 times: $args->[0] exits 0")
			or diag(GtDump::slurp("$dir/err"));
	}
	my @cpu1 = (times)[2, 3];
	my $cpu = $cpu1[0] + $cpu1[1] - $cpu0[0] - $cpu0[1];
	ok($cpu < 10, sprintf('... all of them in %.2f s of CPU time (under 10)', $cpu));
}

# A character device, when this test may make one: a node of its own for
# the device /dev/null is (1, 3), so that a failure cannot take the
# machine's /dev/null away.
SKIP: {
	my $null = "$tmp/null";
	skip 'not root: no device node of our own (the FIFO stands in above)', 1
		unless $> == 0 && system('mknod', $null, 'c', 1, 3) == 0 && -c $null;
	for my $f (@built) {
		my $r = run_analyzer("--$f", $null, $f eq 'sqlite' ? $bad : $good);
		if ($f eq 'sqlite') {
			is($r->{exit}, 2, '--sqlite into a device: exit 2');
			like($r->{err}, qr/an SQLite database needs a regular file/,
			     '... says why');
		} else {
			is($r->{exit}, 0, "--$f into a device: exit 0") or diag($r->{err});
		}
		ok(-c $null, '... the device is still there');
		is((stat($null))[6], (stat('/dev/null'))[6], '... the same device');
	}
	my $r = run_analyzer('--sqlite', $null, $good);
	is($r->{exit}, 2, '--sqlite of a good dump into a device: exit 2 all the same');
	ok(-c $null, '... the device is still there');
}

done_testing();
