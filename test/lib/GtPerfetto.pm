# SPDX-License-Identifier: MIT
#
# GtPerfetto.pm - reading back what --perfetto wrote, for the tests: the
# file decoded by protoc against the schema kept in analyzer/export/proto/
# (a test that decodes says so as one of its own tests), and its track
# events with names, times and arguments resolved.
#
#   my ($events, $tracks) = events(decode($file));
#   # [{type, ts, track, name, cat, args => {...}, flows, ends, value}],
#   # {uuid => track descriptor}
package GtPerfetto;

use strict;
use warnings;
use Exporter 'import';
use FindBin;
use Test::More ();

our @EXPORT_OK = qw(decode events parse_text);

my $schema = "$FindBin::Bin/../../analyzer/export/proto";

# protoc's text format as nested hashes; each field an array of values.
sub parse_text {
	my ($text) = @_;
	my @stack = ({});

	for (split /\n/, $text) {
		if (/^\s*(\w+) \{$/) {
			my $h = {};
			push @{ $stack[-1]{$1} }, $h;
			push @stack, $h;
		} elsif (/^\s*\}$/) {
			pop @stack;
		} elsif (/^\s*(\w+): (.*)$/) {
			my ($k, $v) = ($1, $2);
			$v =~ s/^"(.*)"$/$1/;
			push @{ $stack[-1]{$k} }, $v;
		}
	}
	return $stack[0];
}

sub decode {
	my ($file) = @_;
	my $text = `protoc --decode=perfetto.protos.Trace -I'$schema' '$schema/perfetto_trace.proto' < '$file'`;

	Test::More::is($?, 0, "$file: decoded by protoc against the schema");
	return parse_text($text)->{packet} // [];
}

# Events with names, times and arguments resolved: the interned tables,
# the incremental clock and the track defaults of each sequence.
sub events {
	my ($packets) = @_;
	my (%seq, @ev, %tracks);

	for my $p (@$packets) {
		my $s = $seq{ $p->{trusted_packet_sequence_id}[0] // 0 } //= { t => 0 };
		if ($p->{sequence_flags} && $p->{sequence_flags}[0] & 1) {
			%$s = (t => 0);
		}
		for my $d (@{ $p->{trace_packet_defaults} // [] }) {
			$s->{track} = $d->{track_event_defaults}[0]{track_uuid}[0];
		}
		for my $in (@{ $p->{interned_data} // [] }) {
			for my $k (qw(event_names event_categories debug_annotation_names)) {
				$s->{$k}{ $_->{iid}[0] } = $_->{name}[0] for @{ $in->{$k} // [] };
			}
			$s->{strs}{ $_->{iid}[0] } = $_->{str}[0]
				for @{ $in->{debug_annotation_string_values} // [] };
		}
		for my $td (@{ $p->{track_descriptor} // [] }) {
			$tracks{ $td->{uuid}[0] } = $td;
		}
		my $te = $p->{track_event} or next;
		$te = $te->[0];
		my $ts = $p->{timestamp}[0] // 0;
		if (($p->{timestamp_clock_id}[0] // 64) == 64) {
			$ts = $s->{t} += $ts;
		}
		my %a;
		for my $da (@{ $te->{debug_annotations} // [] }) {
			my $k = $s->{debug_annotation_names}{ $da->{name_iid}[0] } // '?';
			$a{$k} = exists $da->{string_value_iid}
				? $s->{strs}{ $da->{string_value_iid}[0] }
				: ($da->{uint_value} // $da->{int_value} //
				   $da->{double_value} // $da->{bool_value})->[0];
		}
		push @ev, { type => $te->{type}[0], ts => $ts,
			    track => $te->{track_uuid}[0] // $s->{track},
			    name => defined $te->{name_iid}
				? $s->{event_names}{ $te->{name_iid}[0] } : undef,
			    cat => defined $te->{category_iids}
				? $s->{event_categories}{ $te->{category_iids}[0] } : undef,
			    args => \%a, flows => scalar @{ $te->{flow_ids} // [] },
			    ends => scalar @{ $te->{terminating_flow_ids} // [] },
			    value => $te->{double_counter_value}[0] };
	}
	return (\@ev, \%tracks);
}

1;
