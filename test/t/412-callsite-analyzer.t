#!/usr/bin/perl
# 412-callsite-analyzer.t - the analyzer's call sites from dumps made here,
# whose answers are known: Python frames first, native frames named from
# the module's ELF symbols when its build id matches (else module+offset),
# a later module over the same addresses replacing the old one, stacks
# that read the same merged, only pageable copies counted, unknown stacks
# shown as such; and broken stack or module chunks refused cleanly.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);

use constant { CHUNK_STACK => 11, CHUNK_MODULES => 12, MEM_PAGEABLE => 1,
	       MEM_PINNED => 2 };

my $build = $ENV{GT_BUILD} // "$FindBin::Bin/../../build";
my $elf = "$build/test/w_stack";
plan skip_all => "not built: $elf (run make test)" unless -x $elf;
my ($bid) = `readelf -n '$elf' 2>/dev/null` =~ /Build ID: ([0-9a-f]+)/;
my ($vaddr) = `nm '$elf' 2>/dev/null` =~ /^([0-9a-f]+) T wait_here_for_test$/m;
plan skip_all => 'no readelf or nm' unless $bid && $vaddr;
$vaddr = hex($vaddr);
my $tmp = tempdir(CLEANUP => 1);
my $BASE = 0x5555 << 32;

sub module {
	my ($d, %o) = @_;
	my $id = pack('H*', $o{build_id} // $bid);

	return pack('Q< Q< Q< V C a3 a32', $o{base} // $BASE, $o{start} // $BASE,
		    $o{size} // 0x10_0000, $d->string($o{path} // $elf),
		    length($id), '', $id);
}

sub modules {
	my ($d, @mods) = @_;

	return $d->add_chunk(CHUNK_MODULES, pack('V V', scalar @mods, 0) .
			     join('', map { module($d, %$_) } @mods));
}

sub stack {
	my ($d, $id, $pcs, $py) = @_;
	my $s = pack('V v v', $id, scalar @$pcs, scalar @{ $py // [] });

	$s .= pack('Q<', $_) for @$pcs;
	$s .= pack('V V V V', $d->string($_->[0]), $d->string($_->[2]), $_->[1], 0)
		for @{ $py // [] };
	return $d->add_chunk(CHUNK_STACK, $s);
}

sub base_dump {
	my $d = GtDump->new(pid => 7, start_ns => 1000);

	$d->process(exe => '/bin/app', argv => ['app']);
	$d->op(op => 1, kind => KIND_SYNC, api => 'cuStreamSynchronize');
	$d->op(op => 2, kind => KIND_COPY, api => 'cuMemcpyHtoDAsync',
	       dir => DIR_HTOD, flags => OPF_ASYNC);
	return $d;
}

sub analyze {
	my ($d, @opt) = @_;
	my $path = $d->write("$tmp/d" . int(rand(1e9)) . '.bin');
	my $r = run_analyzer(@opt, $path);

	$r->{json} = eval { JSON::PP->new->decode($r->{out}) } if grep { $_ eq '--json' } @opt;
	return $r;
}

my $pc = $BASE + $vaddr + 4;            # a return address in wait_here_for_test
my $fn = 'wait_here_for_test (w_stack)';

subtest 'frames, names, merging and kinds' => sub {
	my $d = base_dump();
	my $t = 2000;
	my @ev;

	modules($d, {});
	stack($d, 1, [$pc], [[ '/src/train.py', 57, 'Trainer.step' ],
			     [ '/src/pkg/__init__.py', 3, '<module>' ]]);
	stack($d, 2, [0x1234]);
	stack($d, 3, [$pc + 2]);            # same function: merged with 4
	stack($d, 4, [$pc + 6]);
	push @ev, map { { op => 1, t0 => $t += 1000, dur => $_, args => [0, 1] } }
		100, 200, 300;
	push @ev, { op => 1, t0 => $t += 1000, dur => 50, args => [0, 3] },
		  { op => 1, t0 => $t += 1000, dur => 70, args => [0, 4] },
		  { op => 2, t0 => $t += 1000, dur => 90,
		    args => [64, 1, 2, 1, MEM_PAGEABLE, 2] },
		  { op => 2, t0 => $t += 1000, dur => 5000,
		    args => [64, 1, 2, 1, MEM_PINNED, 2] },
		  { op => 1, t0 => $t += 1000, dur => 40, args => [0, 9] },
		  { op => 1, t0 => $t += 1000, dur => 9999, args => [0, 0] };
	$d->events(tid => 1, events => \@ev);
	$d->end(end_ns => $t + 1000);
	my $r = analyze($d, '--json');
	my $cs = $r->{json} && $r->{json}{callsites};

	is($r->{exit}, 0, 'exit 0') or return diag($r->{err});
	is(scalar @$cs, 4, 'four call sites') or diag(explain($cs));
	is_deeply($cs->[0], { kind => 'sync', calls => 3, ns_total => 600,
			      frames => [ 'train.py:57 in Trainer.step',
					  'pkg/__init__.py:3 in <module>', $fn ] },
		  'Python frames first, then the named native one');
	is_deeply($cs->[1], { kind => 'sync', calls => 2, ns_total => 120,
			      frames => [$fn] }, 'stacks that read the same are merged');
	is_deeply($cs->[2], { kind => 'pageable_copy', calls => 1, ns_total => 90,
			      frames => ['0x1234'] },
		  'only the pageable copy counts; an address in no module');
	is_deeply($cs->[3], { kind => 'sync', calls => 1, ns_total => 40,
			      frames => ['<stack 9 is not in the dump>'] },
		  'an unknown stack says so');

	my $text = analyze($d);
	like($text->{out}, qr/^Call sites .*\n  #1 sync: 3 calls, 600 ns in all, 200 ns each\n      train\.py:57 in Trainer\.step\n/m,
	     'the text report lists them, frames under each');
};

subtest 'which file names a frame' => sub {
	my $d = base_dump();
	my $trunc = "$tmp/truncated";
	my $t = 2000;

	open(my $fh, '>:raw', $trunc) or die;
	print $fh substr(GtDump::slurp($elf), 0, 200);
	close($fh);
	modules($d, { build_id => 'deadbeef' });
	stack($d, 1, [$pc]);
	modules($d, {});                    # the same range, now the right file
	stack($d, 2, [$pc]);
	modules($d, { path => $trunc, build_id => '' });
	stack($d, 3, [$pc]);
	modules($d, { path => "$FindBin::Bin/412-callsite-analyzer.t", build_id => '' });
	stack($d, 4, [$pc]);
	system('mkfifo', "$tmp/fifo");
	modules($d, { path => "$tmp/fifo", build_id => '' });
	stack($d, 5, [$pc]);
	$d->events(tid => 1, events => [ map {
		{ op => 1, t0 => $t += 1000, dur => 1000 * $_, args => [0, $_] } } 1 .. 5 ]);
	$d->end(end_ns => $t + 1000);
	my $r = analyze($d, '--json');
	my %first = map { $_->{ns_total} => $_->{frames}[0] } @{ $r->{json}{callsites} };
	my $off = sprintf('0x%x', $vaddr + 4);

	is($r->{exit}, 0, 'exit 0') or return diag($r->{err});
	is($first{1000}, "w_stack+$off", 'another build id: module+offset');
	is($first{2000}, $fn, 'the right build id: the function');
	is($first{3000}, "truncated+$off", 'a cut-off file: module+offset');
	is($first{4000}, "412-callsite-analyzer.t+$off", 'not ELF: module+offset');
	is($first{5000}, "fifo+$off", 'a FIFO: module+offset, without waiting for it');
};

# The program as recorded elsewhere (another machine, another checkout):
# its file is looked for in the directories of --symbols, then of
# GPUTRACE_SYMBOL_PATH ("/" by default: the recorded path itself).
subtest 'files found elsewhere: --symbols and GPUTRACE_SYMBOL_PATH' => sub {
	my $gone = "$tmp/elsewhere/build/test/w_stack";
	my $off = sprintf('w_stack+0x%x', $vaddr + 4);
	my $hex = $bid =~ s/^(..)//r;
	my $t = 2000;
	my %dir = map { $_ => "$tmp/sym-$_" } qw(named byid root wrong);
	my $one = sub {
		my ($path, %o) = @_;
		my $d = base_dump();

		modules($d, { path => $path });
		stack($d, 1, [$pc]);
		$d->events(tid => 1, events => [{ op => 1, t0 => $t, dur => 10, args => [0, 1] }]);
		$d->end(end_ns => $t + 1000);
		local %ENV = %ENV;
		delete $ENV{GPUTRACE_SYMBOL_PATH};
		%ENV = (%ENV, %{ $o{env} // {} });
		my $r = analyze($d, '--json', @{ $o{args} // [] });

		return $r->{json} ? $r->{json}{callsites}[0]{frames}[0] : "exit $r->{exit}: $r->{err}";
	};

	system('mkdir', '-p', "$dir{named}", "$dir{byid}/.build-id/" . substr($bid, 0, 2),
	       "$dir{root}$tmp/elsewhere/build/test", $dir{wrong});
	system('cp', $elf, "$dir{named}/w_stack");
	system('cp', $elf, "$dir{byid}/.build-id/" . substr($bid, 0, 2) . "/$hex.debug");
	system('cp', $elf, "$dir{root}$gone");
	system('cp', "$build/gputrace", "$dir{wrong}/w_stack");  # another build id

	is($one->($gone), $off, 'the recorded file is not there: module+offset');
	is($one->($gone, args => ['--symbols', $dir{named}]), $fn, '--symbols DIR: by file name');
	is($one->($gone, env => { GPUTRACE_SYMBOL_PATH => "/nowhere:$dir{byid}" }), $fn,
	   'GPUTRACE_SYMBOL_PATH: DIR/.build-id/xx/rest.debug, by build id');
	is($one->($gone, env => { GPUTRACE_SYMBOL_PATH => $dir{root} }), $fn,
	   'DIR/RECORDED-PATH: a copy of the machine that ran it');
	is($one->($gone, args => ['--symbols', $dir{wrong}, '--symbols', $dir{named}]), $fn,
	   'a file of the same name with another build id is passed over');
	is($one->($gone, args => ['--symbols', $dir{wrong}]), $off, '... and never used');
	is($one->($elf), $fn, 'by default, the recorded path');
	is($one->($elf, env => { GPUTRACE_SYMBOL_PATH => $dir{wrong} }), $off,
	   'GPUTRACE_SYMBOL_PATH without / does not read the recorded path');
	is($one->($elf, env => { GPUTRACE_SYMBOL_PATH => '' }), $off, 'empty: no file read');
	is($one->($elf, env => { GPUTRACE_SYMBOL_PATH => '' }, args => ['--symbols', '/']), $fn,
	   '--symbols / is the recorded path');
};

sub broken {
	my ($name, $re, $fill) = @_;
	my $d = base_dump();

	$fill->($d);
	my $r = analyze($d, '--json');
	is($r->{exit}, 2, "$name: exit 2");
	is($r->{signal}, 0, "$name: no signal");
	like($r->{err}, qr/^gputrace-analyze: '[^']*' is corrupt at byte \d+: $re\n\z/,
	     "$name: says why in one line");
}

broken('stack id 0', qr/stack id 0 is reserved/,
       sub { stack($_[0], 0, [1]) });
broken('short stack', qr/stack record of 4 bytes is too short/,
       sub { $_[0]->add_chunk(CHUNK_STACK, pack('V', 1)) });
broken('frames past the end', qr/stack record: 5 native and 0 python frames in 16 bytes/,
       sub { $_[0]->add_chunk(CHUNK_STACK, pack('V v v Q<', 1, 5, 0, 1)) });
broken('undefined file name',
       qr/stack record names string 99, which is not defined/,
       sub { $_[0]->add_chunk(CHUNK_STACK, pack('V v v V4', 1, 0, 1, 99, 0, 1, 0)) });
broken('too many modules', qr/modules record: 3 modules in 72 bytes/,
       sub { $_[0]->add_chunk(CHUNK_MODULES, pack('V V', 3, 0) . module($_[0])) });
broken('long build id', qr/module 0: build id of 40 bytes/,
       sub { $_[0]->add_chunk(CHUNK_MODULES, pack('V V', 1, 0) .
			      pack('Q3 V C a3 a32', 1, 1, 1, 0, 40, '', '')) });
broken('short modules', qr/modules record of 4 bytes is too short/,
       sub { $_[0]->add_chunk(CHUNK_MODULES, pack('V', 1)) });

done_testing();
