#!/usr/bin/perl
# 810-sqlite.t - --sqlite on synthetic dumps: one table per record kind,
# rows that say what the dump says (launches joined to their kernels by
# name, GPU kernels on the host clock and joined to their launch by id),
# the indexes the obvious queries use, several dumps in one database,
# the host events inserted by batches.
# Read back with the sqlite3 command (Debian package sqlite3).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);
use GtMore;

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();
plan skip_all => 'no sqlite3 command (apt-get install sqlite3)'
	unless system('sqlite3 -version >/dev/null 2>&1') == 0;

use constant { T => 7_000_000_000, MS => 1_000_000 };

my $dir = tempdir(CLEANUP => 1);
my $path = GtMore::gpu_dump("$dir/gpu.bin", T, 5_000_000_000);
my $db = "$dir/out.db";
my $res = run_analyzer('--sqlite', $db, $path);

plan skip_all => 'built without SQLite' if $res->{err} =~ /built without SQLite/;
is($res->{exit}, 0, 'exit 0') or diag($res->{err});

sub q1 {
	my ($sql, $file) = @_;
	my $out = `sqlite3 -separator '|' '${\($file // $db)}' "$sql" 2>&1`;

	chomp($out);
	return $out;
}

my %tables = map { $_ => 1 } split /\n/, q1("SELECT name FROM sqlite_master WHERE type='table'");
ok($tables{$_}, "table $_") for qw(dumps processes strings ops kernels shapes launches
	copies syncs nccl_calls nvtx_events samples env gpu_kernels gpu_copies
	gpu_windows clock_pairs nccl_comms nccl_ops stacks stack_frames modules);
is(q1('SELECT count(*) FROM launches'), 2, 'two launches');
is(q1("SELECT count(*), min(grid_x), min(block_x) FROM kernel_launches WHERE kernel = 'step'"),
   '2|64|256', 'launches by kernel name, with their shape');
is(q1('SELECT name, start_ns - ' . T . ', end_ns - start_ns FROM gpu_kernels'),
   'step|10020000|1000000', 'GPU kernel on the host clock');
is(q1('SELECT l.t0 - ' . T . ' FROM gpu_kernels g JOIN launches l ON l.dump = g.dump ' .
      'AND l.event_id = g.host_id'), 10 * MS, 'joined to its launch');
is(q1('SELECT bytes, memory, dur FROM copies'), '4096|pageable|2000000', 'the copy');
is(q1('SELECT group_concat(call) FROM (SELECT call FROM nvtx_events ORDER BY t0)'),
   'push,mark,pop', 'NVTX events in time order');
is(q1("SELECT s.text FROM nvtx_events n JOIN strings s ON s.dump = n.dump AND " .
      "s.id = n.message WHERE n.call = 'push'"), 'train_step', 'NVTX message by string');
is(q1('SELECT value FROM samples WHERE key = 1'), 42, 'the utilization sample');
is(q1('SELECT host, pid FROM processes'), 'n1|42', 'the process');
is(q1('SELECT count(*) FROM gpu_windows'), 2, 'window opened and closed');
is(q1('SELECT count(*) FROM api_calls'), 4, 'api_calls view: launches, copy, sync');

# The indexes docs/exports.md promises: each of these queries searches an
# index (or the table's key) rather than scanning its table.
my @indexed = ((map { ["SELECT * FROM $_ WHERE t0 BETWEEN 1 AND 2", "$_ by time"] }
		qw(launches graph_launches copies memsets syncs host_allocs nccl_calls
		   nvtx_events other_events)),
	       ['SELECT * FROM launches WHERE function = 3', 'launches by function'],
	       ["SELECT * FROM kernels WHERE name = 'step'", 'kernels by name'],
	       ["SELECT * FROM gpu_kernels WHERE name = 'step'", 'GPU kernels by name'],
	       (map { (["SELECT * FROM $_ WHERE start_ns > 5", "$_ by start"],
		       ["SELECT * FROM $_ WHERE dump = 0 AND host_id = 7", "$_ by host_id"]) }
		qw(gpu_kernels gpu_copies)));
for (@indexed) {
	my ($sql, $what) = @$_;
	like(q1("EXPLAIN QUERY PLAN $sql"),
	     qr/SEARCH \w+ USING (?:COVERING )?(?:INDEX|INTEGER PRIMARY KEY|PRIMARY KEY)/,
	     "$what uses an index");
}
like(q1("EXPLAIN QUERY PLAN SELECT * FROM launches WHERE t0 BETWEEN 1 AND 2"),
     qr/USING INDEX launches_t0/, 'events by time: the t0 index');

# several dumps, and a database written again
my @p = GtMore::job(dir => $dir, ranks => 3, slow => 1, late_ns => 3 * MS, steps => 5);
$res = run_analyzer('--sqlite', $db, @p);
is($res->{exit}, 0, 'three dumps: exit 0') or diag($res->{err});
is(q1('SELECT count(*) FROM dumps'), 3, 'three dumps, the old database replaced');
is(q1('SELECT dump, count(*) FROM nccl_calls GROUP BY dump ORDER BY dump'),
   "0|5\n1|5\n2|5", 'the NCCL calls of each');
is(q1("SELECT datatype, count FROM nccl_calls LIMIT 1"), 'ncclFloat32|1048576',
   'NCCL arguments');
is(q1('SELECT count(DISTINCT uid_hash) FROM nccl_comms'), 1, 'one communicator');

# Every table but dumps names its dump in a column `dump`; dumps has `id`.
# The documentation says just that.
my @no_dump = grep { $_ ne 'dumps' && q1("SELECT count(*) FROM pragma_table_info('$_') "
					  . "WHERE name = 'dump'") ne '1' } sort keys %tables;
is_deeply(\@no_dump, [], 'every table but dumps has a dump column');
is(q1("SELECT group_concat(name) FROM pragma_table_info('dumps') WHERE name IN ('id', 'dump')"),
   'id', 'the dumps table has id, not dump');
my $docs = join('', map { GtDump::slurp($_) } "$FindBin::Bin/../../README.md",
		glob("$FindBin::Bin/../../docs/*.md"));
unlike($docs, qr/[Ee]very table has `dump`/, 'the docs do not say every table has dump');
like($docs, qr/`dumps`\s+has\s+`id`/, 'the docs say the dumps table has id');

# Host events go in by batches of rows: every event once, in the order
# of the dump, whole batches and what is left over alike.
my $gen = ($ENV{GT_BUILD} // 'build') . '/test/make_big_dump';
SKIP: {
	skip 'make_big_dump not built', 4 unless -x $gen;
	system($gen, "$dir/big.bin", 1001, 3) == 0 or die "make_big_dump failed\n";
	$res = run_analyzer('--sqlite', $db, "$dir/big.bin");
	is($res->{exit}, 0, 'batched: exit 0') or diag($res->{err});
	is(q1('SELECT count(*), count(DISTINCT tid || \' \' || event_id) FROM api_calls'),
	   '1001|1001', 'batched: every event once');
	is(q1('SELECT count(*) FROM launches a JOIN launches b ON b.rowid = a.rowid + 1 '
	      . 'WHERE b.tid = a.tid AND b.event_id <= a.event_id'), 0,
	   'batched: in the order of the dump');
	is(q1('SELECT count(*) FROM copies WHERE memory IS NOT \'pinned\' OR staged != 0'),
	   0, 'batched: text and values in their columns');
}

$res = run_analyzer('--sqlite', "$dir/no/such/x.db", $path);
is($res->{exit}, 2, 'unwritable: exit 2');
like($res->{err}, qr{cannot write '.*x\.db'}, 'says so');

done_testing();
