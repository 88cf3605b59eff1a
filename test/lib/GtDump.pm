# SPDX-License-Identifier: MIT
#
# GtDump.pm - write synthetic gputrace dumps, byte for byte as
# include/gputrace/format.h describes them, so that tests can feed the
# analyzer dumps whose right answers they know.
#
#   my $d = GtDump->new(pid => 42, start_ns => 1000);
#   $d->process(host => 'node1', exe => '/bin/app', argv => ['app', '-x']);
#   $d->op(op => 1, kind => KIND_LAUNCH, api => 'cuLaunchKernel');
#   $d->function(id => 1, name => '_Z6vecAddPfS_S_i', handle => 0xf00);
#   $d->shape(id => 1, function => 1);
#   $d->events(tid => 7, events => [
#       { op => 1, t0 => 2000, dur => 500, args => [1] } ]);
#   $d->end(end_ns => 9000);
#   $d->write("$dir/app.gtd");
#
# Every method appends chunks in call order; string() interns a string and
# writes its chunk the first time.  raw() appends any bytes, header()
# and chunk() build pieces by hand for broken dumps.  run_analyzer() runs
# $GT_BUILD/gputrace-analyze and captures what it says.
package GtDump;

use strict;
use warnings;
use Exporter 'import';
use File::Temp qw(tempdir);
use Time::HiRes ();

use constant {
	FORMAT_VERSION => 1,
	ENDIAN_MARK => 0x01020304,
	CHUNK_MAX => 16 << 20,

	CHUNK_PROCESS => 1, CHUNK_STRING => 2, CHUNK_OP => 3,
	CHUNK_FUNCTION => 4, CHUNK_SHAPE => 5, CHUNK_STREAM => 6,
	CHUNK_EVENTS => 7, CHUNK_DROPS => 8, CHUNK_END => 9,
	CHUNK_NOTE => 10,

	KIND_LAUNCH => 1, KIND_GRAPH => 2, KIND_COPY => 3, KIND_SET => 4,
	KIND_SYNC => 5,

	DIR_NONE => 0, DIR_HTOD => 1, DIR_DTOH => 2, DIR_DTOD => 3,
	DIR_HTOH => 4, DIR_PTOP => 5, DIR_OTHER => 6,

	OPF_ASYNC => 1, OPF_PTSZ => 2,

	KIND_HOSTSAMPLE => 9, HOST_RUNNING => 1, HOST_WAITING => 2,
	CHUNK_STACK_ => 11, CHUNK_SAMPLE_ => 15,
};

our @EXPORT = qw(
	FORMAT_VERSION ENDIAN_MARK CHUNK_MAX
	CHUNK_PROCESS CHUNK_STRING CHUNK_OP CHUNK_FUNCTION CHUNK_SHAPE
	CHUNK_STREAM CHUNK_EVENTS CHUNK_DROPS CHUNK_END CHUNK_NOTE
	KIND_LAUNCH KIND_GRAPH KIND_COPY KIND_SET KIND_SYNC
	DIR_NONE DIR_HTOD DIR_DTOH DIR_DTOD DIR_HTOH DIR_PTOP DIR_OTHER
	OPF_ASYNC OPF_PTSZ
);
our @EXPORT_OK = qw(varint zigzag header chunk event_bytes run_analyzer
		    analyzer_path measure_analyzer KIND_HOSTSAMPLE HOST_RUNNING
		    HOST_WAITING);

# Per-kind varints after the common five.
my %nargs = (
	KIND_LAUNCH() => 1, KIND_GRAPH() => 1, KIND_COPY() => 6,
	KIND_SET() => 2, KIND_SYNC() => 2, KIND_HOSTSAMPLE() => 3,
);

# LEB128 of an unsigned 64-bit integer.
sub varint {
	my ($v) = @_;
	my $s = '';

	while ($v >= 0x80) {
		$s .= chr(($v & 0x7f) | 0x80);
		$v >>= 7;
	}
	return $s . chr($v);
}

# zigzag(signed) as an unsigned 64-bit integer.
sub zigzag {
	my ($v) = @_;
	my $z;
	{
		use integer;
		$z = ($v << 1) ^ ($v >> 63);
	}
	return unpack('Q<', pack('q<', $z));
}

# The 64-byte file header; any field can be overridden.
sub header {
	my (%o) = @_;
	my %h = (
		magic => 'GPUTRACE', version => FORMAT_VERSION,
		min_reader => 1, header_size => 64, endian => ENDIAN_MARK,
		clock_id => 1, start_ns => 0, start_realtime_ns => 0,
		pid => 0, %o,
	);

	return pack('a8 v v V V V Q< Q< V V5', $h{magic}, $h{version},
		    $h{min_reader}, $h{header_size}, $h{endian},
		    $h{clock_id}, $h{start_ns}, $h{start_realtime_ns},
		    $h{pid}, 0, 0, 0, 0, 0);
}

# A chunk: {type, size} then the payload; size can be forced.
sub chunk {
	my ($type, $payload, $size) = @_;

	return pack('V V', $type, $size // length($payload)) . $payload;
}

sub new {
	my ($class, %o) = @_;
	my $self = bless {
		header => {%o}, body => '', strings => {}, next_str => 1,
		ops => {}, nevents => 0,
	}, $class;

	$self->{header}{start_ns} //= 0;
	return $self;
}

sub raw {
	my ($self, $bytes) = @_;

	$self->{body} .= $bytes;
	return $self;
}

sub add_chunk {
	my ($self, $type, $payload) = @_;

	return $self->raw(chunk($type, $payload));
}

# The id of a string, writing its chunk the first time; undef gives 0.
sub string {
	my ($self, $text) = @_;

	return 0 unless defined $text;
	return $self->{strings}{$text} if exists $self->{strings}{$text};
	my $id = $self->{next_str}++;
	$self->{strings}{$text} = $id;
	$self->add_chunk(CHUNK_STRING, pack('V', $id) . $text);
	return $id;
}

sub process {
	my ($self, %o) = @_;
	my @argv = @{ $o{argv} // [] };
	my $p = pack('V4', $o{pid} // $self->{header}{pid} // 0,
		     $o{ppid} // 1, $o{rank} // 0xffffffff, scalar @argv);

	$p .= pack('V/a*', $_) for ($o{host} // 'localhost',
				    $o{exe} // ($argv[0] // ''), @argv);
	return $self->add_chunk(CHUNK_PROCESS, $p);
}

# op => id, kind => KIND_*, api => name, symbol => name (default api),
# dir => DIR_*, flags => OPF_*.
sub op {
	my ($self, %o) = @_;
	my $api = $self->string($o{api});
	my $sym = $self->string($o{symbol} // $o{api});

	$self->{ops}{ $o{op} } = $o{kind};
	$self->{op_nargs}{ $o{op} } = $o{nargs} // $nargs{ $o{kind} } // 0;
	return $self->add_chunk(CHUNK_OP, pack('v C C v C C V V', $o{op},
		$o{kind}, $o{dir} // 0, $o{flags} // 0,
		$o{nargs} // $nargs{ $o{kind} } // 0, 0, $api, $sym));
}

# id, name (raw symbol; undef: unknown), handle.
sub function {
	my ($self, %o) = @_;
	my $name = $self->string($o{name});

	return $self->add_chunk(CHUNK_FUNCTION,
				pack('V V Q<', $o{id}, $name, $o{handle} // 0));
}

sub shape {
	my ($self, %o) = @_;

	return $self->add_chunk(CHUNK_SHAPE, pack('V2 V3 V3 V V',
		$o{id}, $o{function}, @{ $o{grid} // [1, 1, 1] },
		@{ $o{block} // [1, 1, 1] }, $o{shared} // 0, 0));
}

sub stream {
	my ($self, %o) = @_;

	return $self->add_chunk(CHUNK_STREAM,
				pack('V V Q<', $o{id}, 0, $o{handle} // 0));
}

# The packed bytes of one event; $prev is the t0 before it.
sub event_bytes {
	my ($e, $prev) = @_;
	my $s = varint($e->{op}) . varint(zigzag($e->{t0} - $prev)) .
		varint($e->{dur} // 0) . varint($e->{result} // 0) .
		varint($e->{stream} // 0);

	$s .= varint($_) for @{ $e->{args} // [] };
	return $s;
}

# tid, base_ns (default: the first t0), events => [{op, t0, dur, result,
# stream, args => [...]}], count (forces the header's count).
sub events {
	my ($self, %o) = @_;
	my @ev = @{ $o{events} };
	my $base = $o{base_ns} // (@ev ? $ev[0]{t0} : 0);
	my ($prev, $packed) = ($base, '');

	for my $e (@ev) {
		my $kind = $self->{ops}{ $e->{op} } // 0;
		my $n = $self->{op_nargs}{ $e->{op} } // $nargs{$kind} // 0;
		my @args = @{ $e->{args} // [] };

		push @args, (0) x ($n - @args) if @args < $n;
		$packed .= event_bytes({ %$e, args => \@args }, $prev);
		$prev = $e->{t0};
	}
	$self->{nevents} += @ev;
	return $self->add_chunk(CHUNK_EVENTS, pack('V V Q< V V Q<', $o{tid} // 1,
		$o{count} // scalar @ev, $base, $o{buffer} // 1, 0,
		$o{first_seq} // 0) . $packed);
}

# id, native => [pc, ...] innermost first, python => [[func, file, line],
# ...] innermost first (a GT_CHUNK_STACK; its strings written first).
sub stack {
	my ($self, %o) = @_;
	my @nat = @{ $o{native} // [] };
	my @py = map { [$self->string($_->[0]), $self->string($_->[1]),
			$_->[2] // 0] } @{ $o{python} // [] };
	my $p = pack('V v v', $o{id}, scalar @nat, scalar @py);

	$p .= pack('Q<', $_) for @nat;
	$p .= pack('V4', $_->[1], $_->[0], $_->[2], 0) for @py;
	return $self->add_chunk(CHUNK_STACK_, $p);
}

# A /proc sample of the process at t: its CPU time (proc) and its
# children's (child), cumulative ns (a GT_CHUNK_SAMPLE, host scope).
sub cpu_sample {
	my ($self, %o) = @_;
	my @items = ([32, $o{proc}], [33, 0], [34, $o{child} // 0], [35, 0]);
	my $p = pack('Q< V V', $o{t}, 0xffffffff, scalar @items);

	$p .= pack('v v V q<', $_->[0], 0, 0, $_->[1]) for @items;
	return $self->add_chunk(CHUNK_SAMPLE_, $p);
}

sub drops {
	my ($self, %o) = @_;

	return $self->add_chunk(CHUNK_DROPS,
				pack('V V Q<', $o{tid} // 0, 0, $o{count}));
}

sub end {
	my ($self, %o) = @_;

	return $self->add_chunk(CHUNK_END, pack('Q< Q< Q<', $o{end_ns},
		$o{events} // $self->{nevents}, $o{dropped} // 0));
}

sub note {
	my ($self, $level, $text) = @_;

	return $self->add_chunk(CHUNK_NOTE, pack('V', $level) . $text);
}

sub bytes {
	my ($self) = @_;

	return header(%{ $self->{header} }) . $self->{body};
}

sub write {
	my ($self, $path, $bytes) = @_;

	open(my $fh, '>:raw', $path) or die "cannot write '$path': $!\n";
	print $fh $bytes // $self->bytes;
	close($fh) or die "cannot write '$path': $!\n";
	return $path;
}

sub analyzer_path {
	my $build = $ENV{GT_BUILD} // 'build';

	return "$build/gputrace-analyze";
}

sub slurp {
	my ($path) = @_;

	open(my $fh, '<:raw', $path) or return '';
	local $/;
	return scalar <$fh>;
}

# Run the analyzer with @args in folder $dir, its output thrown away, its
# stderr in $dir/err, killed after 300 s: (seconds of CPU time, which a
# busy machine does not stretch as it does wall time: wall time without
# /usr/bin/time; peak RSS in KiB or undef without it; exit status).
sub measure_analyzer {
	my ($dir, @args) = @_;
	my @cmd = ('timeout', '-s', 'KILL', 300, analyzer_path(), @args);
	my $t0 = Time::HiRes::time();
	my ($rss, $cpu);

	@cmd = ('/usr/bin/time', '-f', 'RSS %M CPU %U %S', '-o', "$dir/rss", @cmd)
		if -x '/usr/bin/time';
	unlink("$dir/rss");
	my $rc = system(join(' ', map { "'$_'" } @cmd) . " >/dev/null 2>$dir/err");
	my $t = Time::HiRes::time() - $t0;
	if (open(my $fh, '<', "$dir/rss")) {
		for (<$fh>) {
			($rss, $cpu) = ($1, $2 + $3) if /RSS (\d+) CPU ([\d.]+) ([\d.]+)/;
		}
	}
	return ($cpu // $t, $rss, $rc >> 8);
}

# Run the analyzer with @args; returns {out, err, exit, signal}.  A leading
# { vm_kb => N } limits its address space (ulimit -v).
sub run_analyzer {
	my $opt = ref $_[0] eq 'HASH' ? shift : {};
	my @cmd = (analyzer_path(), @_);
	my $dir = tempdir(CLEANUP => 1);

	@cmd = ('sh', '-c', "ulimit -v $opt->{vm_kb} && exec \"\$@\"", 'sh',
		@cmd) if $opt->{vm_kb};
	my $pid = fork() // die "fork: $!\n";
	if (!$pid) {
		open(STDOUT, '>', "$dir/out") or die;
		open(STDERR, '>', "$dir/err") or die;
		exec(@cmd) or exit(127);
	}
	waitpid($pid, 0);
	return { out => slurp("$dir/out"), err => slurp("$dir/err"),
		 exit => $? >> 8, signal => $? & 127 };
}

1;
