#!/usr/bin/perl
# Logs in to akshara's EPP server with Net::EPP (Debian libnet-epp-perl)
# listing, as a registrar's toolkit configured for many registries does,
# extensions this server does not serve beside those it does (issue 34
# item 12): the login succeeds, a check works, and a command that carries
# an unserved extension's element is refused with 2103. Run by
# epp/thirdparty_test.go with PORT set; prints one line per step.
use strict; use warnings; use utf8; binmode STDOUT, ':utf8';
use Net::EPP::Simple; use Net::EPP::Frame::Command::Check::Domain;
my $NS = 'urn:ietf:params:xml:ns:';
my $epp = Net::EPP::Simple->new(host => '127.0.0.1', port => $ENV{PORT}, user => 'acme', pass => 'secret12',
    timeout => 10, load_config => 0,
    objects => [map { $NS . $_ } qw(domain-1.0 host-1.0 contact-1.0)],
    extensions => [map { $NS . $_ } qw(secDNS-1.1 rgp-1.0 launch-1.0 fee-0.5 idn-1.0 allocationToken-1.0)])
    or die "login: $Net::EPP::Simple::Code $Net::EPP::Simple::Error\n";
print "login: $Net::EPP::Simple::Code $Net::EPP::Simple::Message\n";
print "check: avail=", $epp->check_domain('xn--11b4aya5ed.xn--h2brj9c') // 'undef', " ($Net::EPP::Simple::Code)\n";
my $f = Net::EPP::Frame::Command::Check::Domain->new;
$f->addDomain('xn--11b4aya5ed.xn--h2brj9c');
my $l = $f->createElementNS($NS . 'launch-1.0', 'launch:check'); $l->setAttribute('type', 'avail');
my $ext = $f->createElement('extension'); $ext->appendChild($l);
$f->command->insertBefore($ext, $f->clTRID);
my $r = $epp->request($f);
print "check with launch: ", $r->code, "\n";
$epp->logout;
print "logout: ok\n";
