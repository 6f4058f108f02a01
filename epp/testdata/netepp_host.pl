#!/usr/bin/perl
# Drives akshara's EPP host objects (RFC 5732) with Net::EPP (Debian
# libnet-epp-perl), a client we did not write: create with glue, info,
# update (address and status), a delete the status refuses, the status
# removed, delete, out-of-zone glue refused. Run by
# epp/thirdparty_test.go (TestNetEPPHosts) with PORT set, after the test
# registered example.in for acme; prints one line per step.
use strict; use warnings; use utf8; binmode STDOUT, ':utf8';
use Net::EPP::Simple;
my $epp = Net::EPP::Simple->new(host => '127.0.0.1', port => $ENV{PORT}, user => 'acme', pass => 'secret12',
    timeout => 10, load_config => 0) or die "login: $Net::EPP::Simple::Code $Net::EPP::Simple::Error\n";
print "login: $Net::EPP::Simple::Code\n";
my $h = 'ns1.example.in';
print "create: ", ($epp->create_host({name => $h, addrs => [{ip => '8.8.8.8', version => 'v4'}]}) ? 'ok' : 'failed'), " ($Net::EPP::Simple::Code)\n";
sub show {
    my $i = $epp->host_info($h);
    return "gone ($Net::EPP::Simple::Code)" unless defined $i;
    return join(' ', "addrs=" . join(',', map { "$_->{version}:$_->{addr}" } @{$i->{addrs} || []}),
        "status=" . join(',', @{$i->{status} || []}), "clID=$i->{clID}");
}
print "info: ", show(), "\n";
print "update: ", ($epp->update_host({name => $h, add => {addrs => [{ip => '2001:4860:4860::8888', version => 'v6'}], status => ['clientDeleteProhibited']}}) ? 'ok' : 'failed'),
    " ($Net::EPP::Simple::Code)\n";
print "info after update: ", show(), "\n";
print "delete prohibited: ", ($epp->delete_host($h) ? 'ok' : 'refused'), " ($Net::EPP::Simple::Code)\n";
print "remove status: ", ($epp->update_host({name => $h, rem => {status => ['clientDeleteProhibited']}}) ? 'ok' : 'failed'), " ($Net::EPP::Simple::Code)\n";
print "delete: ", ($epp->delete_host($h) ? 'ok' : 'refused'), " ($Net::EPP::Simple::Code)\n";
print "info after delete: ", show(), "\n";
print "out-of-zone glue: ", ($epp->create_host({name => 'ns1.example.net', addrs => [{ip => '8.8.8.8', version => 'v4'}]}) ? 'ok' : 'refused'), " ($Net::EPP::Simple::Code)\n";
print "logout: ", ($epp->logout ? 'ok' : 'failed'), "\n";
