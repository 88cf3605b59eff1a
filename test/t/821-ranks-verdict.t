#!/usr/bin/perl
# 821-ranks-verdict.t - the job's verdict across its ranks, on synthetic
# data-parallel jobs with GPU records (GtJob.pm) whose every time is
# known: a straggler rank slowed by its data loading names that rank, its
# cause and the collective the others wait in, and gives the gain as the
# job's step (the slowest rank's) without its hold; an all-reduce the GPUs
# wait for (no straggler) and many small all-reduces per step are named as
# such, with the job's step after the change on every rank; a rank's
# waits in several collectives of one step are counted once.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;

use GtDump qw(:DEFAULT run_analyzer);
use GtDiag;
use GtJob;
use GtMore;

plan skip_all => 'analyzer not built' unless -x GtDump::analyzer_path();

use constant { MS => 1_000_000, STEPS => 30 };

sub analyze {
	my (@paths) = @_;
	my $r = run_analyzer('--json', @paths);

	is($r->{exit}, 0, 'exit 0') or diag($r->{err});
	return eval { JSON::PP->new->decode($r->{out}) } // {};
}

sub rank { my ($j, $n) = @_; (grep { $_->{rank} == $n } @{ $j->{ranks} })[0] }

sub near {
	my ($got, $want, $tol, $what) = @_;

	ok(defined $got && abs($got - $want) <= $tol,
	   sprintf('%s: %s, expected %.4g +- %.2g', $what, $got // 'undef', $want, $tol));
}

# The job's step is the slowest rank's.
sub slowest_step {
	my ($j) = @_;
	my ($max) = sort { $b <=> $a } map { $_->{step_ns} // 0 } @{ $j->{ranks} };

	return $max;
}

subtest 'a straggler: rank 2 loads its batches in the training loop' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my %o = (ranks => 4, steps => STEPS, slow => 2, load_ns => 6 * MS,
		 compute_ns => 3 * MS, comm_ns => 1 * MS, colls => 4, bytes => 4 << 20);
	my @p = GtJob::job(dir => $dir, %o);
	my $t = GtJob::timing(%o);
	my $j = analyze(@p);

	# waits: the time covered, once per step however many all-reduces
	my $hold = $t->{step} - $t->{fast};
	my $per_step = $hold + ($o{colls} - 1) * GtJob::SPACING_NS;
	for my $r (0, 1, 3) {
		near(rank($j, $r)->{waited_ns}, (STEPS - 1) * $per_step, 1000,
		     "rank $r waited once per step, not once per all-reduce");
		cmp_ok(rank($j, $r)->{waited_ns}, '<', $j->{ranks}[0]{wall_ns}, 'less than its wall time');
	}
	near(rank($j, 2)->{caused_wait_ns}, 3 * (STEPS - 1) * $per_step, 3000,
	     'rank 2 made the three others wait that long');
	my $lead = rank($j, 2)->{lead_ns} / rank($j, 2)->{steady_steps};
	near($lead, $hold, 0.05 * $hold, 'its lead per step: how much later it enters');

	my $v = $j->{verdict} or return fail('a verdict');
	is($v->{rank}, 2, 'names rank 2');
	is($v->{class}, 'data_supply', 'its cause: data supply, from its own diagnosis');
	is($v->{cause}, 'straggler', 'a straggler');
	is($v->{collective}, 'all-reduce', 'the others wait in all-reduce');
	like($v->{text}, qr/^rank 2 is the straggler: its data loading \(data_supply\) makes the others wait in all-reduce\./,
	     'says so first');
	is($v->{job_step_ns}, slowest_step($j), "the job's step is the slowest rank's");
	near($v->{job_step_ns}, $t->{step}, 0.01 * $t->{step}, "the job's step");
	my $gain = 1 - $t->{fast} / $t->{step};
	near($v->{est_gain_high}, $gain, 0.03, 'the most it gains: the twin without the load');
	cmp_ok($v->{est_gain_low}, '<=', $v->{est_gain_high}, 'low <= high');
	cmp_ok($v->{est_gain_low}, '>', 0, 'low > 0');
	near($v->{est_job_step_low_ns}, $v->{job_step_ns} * (1 - $v->{est_gain_high}), 10,
	     'stated as the job step after');

	my $text = run_analyzer(@p)->{out};
	(my $flat = $text) =~ s/\n  (?=\S)/ /g;       # the verdict's lines joined
	like($text, qr/^Verdict\n  rank 2 is the straggler/m, 'the text report opens with it');
	my $step = sprintf('%.2f ms', $v->{job_step_ns} / MS);
	like($flat, qr/The job's step \(its slowest rank's\): \Q$step\E; without its hold: est\./,
	     "the gain stated on the job's step");
};

subtest 'an all-reduce every GPU waits for: no straggler' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my %o = (ranks => 4, steps => STEPS, compute_ns => 4 * MS, comm_ns => 3 * MS,
		 colls => 1, bytes => 64 << 20);
	my $t = GtJob::timing(%o);
	my $j = analyze(GtJob::job(dir => $dir, %o));
	my $v = $j->{verdict} or return fail('a verdict');

	is($v->{rank}, undef, 'names no rank');
	is($v->{class}, 'communication', 'communication');
	is($v->{cause}, 'exposed_collectives', 'collectives the GPU runs alone');
	is($j->{finding}, undef, 'no straggler finding');
	near($v->{job_step_ns}, $t->{step}, 0.01 * $t->{step}, "the job's step");
	near($v->{est_gain_high}, $o{comm_ns} / $t->{step}, 0.03,
	     'at most: the all-reduces hidden behind compute');
	like($v->{text}, qr/^No straggler: the 4 ranks keep pace.*bound by communication & sync on 4 of them.*NCCL's kernels with no compute beside them 3\.00 ms per step/s,
	     'says why');
};

subtest 'many small all-reduces per step' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my %o = (ranks => 2, steps => STEPS, compute_ns => 3 * MS, comm_ns => 2 * MS,
		 colls => 64, bytes => 64 << 10);
	my $j = analyze(GtJob::job(dir => $dir, %o));
	my $v = $j->{verdict} or return fail('a verdict');

	is($v->{class}, 'communication', 'communication');
	is($v->{cause}, 'small_collectives', 'too many, too small');
	like($v->{text}, qr/each step rank 0 makes 64 of them, 64\.00 KiB each on average \(4\.00 MiB per step\)/,
	     'how many and how big');
	my $t = GtJob::timing(%o);
	near($v->{est_gain_high}, 1 - $o{compute_ns} / $t->{step}, 0.03,
	     'at most: all the time the GPUs ran no compute');
	like($v->{text}, qr/bucket_cap_mb/, 'what to change in DDP');

	# the same bytes in two all-reduces: not too small
	%o = (%o, colls => 2, bytes => 2 << 20);
	$dir = tempdir(CLEANUP => 1);
	$v = analyze(GtJob::job(dir => $dir, %o))->{verdict} // {};
	is($v->{cause}, 'exposed_collectives', 'two per step: only not overlapped');
};

subtest 'compute-bound ranks: nothing to fix across them' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my $j = analyze(GtJob::job(dir => $dir, ranks => 2, steps => STEPS,
				   compute_ns => 10 * MS, comm_ns => 50_000, colls => 2,
				   bytes => 8 << 20));
	my $v = $j->{verdict} or return fail('a verdict');

	is($v->{class}, 'healthy', 'healthy');
	is($v->{est_gain_high}, undef, 'no gain stated');
	like($v->{text}, qr/healthy \(compute-bound\) on 2 of them/, 'says so');
};

subtest 'a straggler, no steps found: no gain stated' => sub {
	my $dir = tempdir(CLEANUP => 1);
	my $j = analyze(GtMore::job(dir => $dir, ranks => 3, slow => 1, late_ns => 3 * MS,
				    steps => 2));
	my $v = $j->{verdict} or return fail('a verdict');

	is($v->{rank}, 1, 'names rank 1');
	is($v->{job_step_ns}, undef, "the job's step unknown");
	is($v->{est_gain_high}, undef, 'no gain');
	like($v->{text}, qr/no steps found: what it costs the job's step is not known/, 'says so');
};

subtest 'no collective in common: no verdict' => sub {
	my @p = map { GtDiag->new(pid => 100 + $_)->sync_steps->dump_path } 0, 1;
	my $j = analyze(@p);

	ok(exists $j->{verdict} && !defined $j->{verdict}, 'verdict null');
};

done_testing();
