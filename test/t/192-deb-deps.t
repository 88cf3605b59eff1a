#!/usr/bin/perl
# 192-deb-deps.t - make deps installs only the Debian packages that are
# missing, without their recommended packages, says which and why (one
# line per group of packages, each with what needs it), and calls apt-get
# not at all when none is.  dpkg-query, dpkg, apt-get and sudo are stand-ins on PATH:
# the package database answers "installed" for all but $GT_MISSING, and
# apt-get writes its arguments to a log instead of installing.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Temp qw(tempdir);
use FindBin;
use lib "$FindBin::Bin/../lib";
use Test::More;

use GtDump ();

my $root = abs_path("$FindBin::Bin/../..");
my $tmp = tempdir('gt-XXXXXX', TMPDIR => 1, CLEANUP => 1);

plan skip_all => 'no make' unless system('make --version >/dev/null 2>&1') == 0;

sub stub {
	my ($name, $body) = @_;
	open(my $fh, '>', "$tmp/bin/$name") or die "cannot write '$name': $!";
	print $fh "#!/bin/sh\n$body\n";
	close($fh);
	chmod(0755, "$tmp/bin/$name") or die;
}

mkdir("$tmp/bin") or die;
my $missing = 'case " $GT_MISSING " in *" $pkg "*) echo "no $pkg" >&2; exit 1;; esac';
stub('dpkg-query', "for pkg; do :; done\n$missing\nprintf 'install ok installed'");
stub('dpkg', "for pkg; do :; done\n$missing\necho 'Status: install ok installed'");
stub('apt-get', "echo \"\$*\" >> '$tmp/apt.log'");
stub('sudo', 'exec "$@"');

# make deps with these packages missing: (apt-get's calls, make's output).
sub deps {
	my (@missing) = @_;
	unlink("$tmp/apt.log");
	local $ENV{PATH} = "$tmp/bin:$ENV{PATH}";
	local $ENV{GT_MISSING} = "@missing";
	my $out = qx{make --no-print-directory -C '$root' deps 2>&1};

	return ([split(/\n/, GtDump::slurp("$tmp/apt.log"))], $out);
}

# The groups of packages, each with what needs it (DEB_GROUP, WHY_GROUP).
my $mk = GtDump::slurp("$root/Makefile");
my ($groups) = $mk =~ /^DEB_GROUPS\s*:=\s*(.*)$/m;
my %pkgs = map { $_ => [split ' ', ($mk =~ /^DEB_$_\s*:=\s*(.*)$/m)[0] // ''] }
	split ' ', $groups // '';
my %why = map { $_ => ($mk =~ /^WHY_$_\s*:=\s*(.*)$/m)[0] } keys %pkgs;
cmp_ok(scalar keys %pkgs, '>', 3, 'DEB_GROUPS: ' . ($groups // ''));
for my $g (sort keys %pkgs) {
	ok(@{ $pkgs{$g} } && $why{$g}, "group $g: @{ $pkgs{$g} }: " . ($why{$g} // 'no reason'));
}
my @all = map { @{ $pkgs{$_} } } split ' ', $groups // '';
my @two = @all[1, -1];
my ($first, $last) = grep { my $g = $_; grep { $_ eq $two[0] || $_ eq $two[1] } @{ $pkgs{$g} } }
	split ' ', $groups // '';

my ($apt, $out) = deps(@two);
is(scalar @$apt, 2, 'two missing: apt-get called twice') or diag($out);
like($apt->[0] // '', qr/^update\b/, 'the package lists updated');
my @args = split(' ', $apt->[1] // '');
ok((grep { $_ eq '--no-install-recommends' } @args), 'install without recommended packages')
	or diag("@args");
is_deeply([grep { !/^-/ && $_ ne 'install' } @args], \@two, "only the missing ones: @two");
like($out, qr/^installing \Q$two[0]\E: \Q$why{$first}\E$/m, 'says which, and why') or diag($out);
like($out, qr/^installing \Q$two[1]\E: \Q$why{$last}\E$/m, 'one line per group');
ok(grep({ $_ eq 'chromium' } @{ $pkgs{html} // [] }) &&
   GtDump::slurp("$FindBin::Bin/840-html.t") =~ /render/,
   'chromium: for the test that renders the HTML report');

($apt, $out) = deps();
is_deeply($apt, [], 'none missing: apt-get not called') or diag($out);
unlike($out, qr/installing/, 'nothing said to be installed');

done_testing();
