#!/usr/bin/perl
# Drives akshara's EPP server with Net::EPP (Debian libnet-epp-perl), a
# client we did not write: login, check, create with the idn-1.0
# extension, info (reading the extension back), renew (a wrong current
# expiry date, then right), delete (into redemption), info, the RGP
# restore request and report (RFC 3915), info, logout. Run by epp/thirdparty_test.go with PORT set; prints one
# line per step for the test to compare.
use strict; use warnings; use utf8; binmode STDOUT, ':utf8';
use Net::EPP::Simple; use Net::EPP::Frame::Command::Create::Domain; use Net::EPP::Frame::Command::Info::Domain;
my $IDN = 'urn:ietf:params:xml:ns:idn-1.0';
my ($name, $uname) = ('xn--11b4aya5ed.xn--h2brj9c', 'किताब.भारत');
# No 'verify' key at all: Net::EPP::Simple turns verification on when it is defined, even as 0.
my $epp = Net::EPP::Simple->new(host => '127.0.0.1', port => $ENV{PORT}, user => 'acme', pass => 'secret12',
    timeout => 10, load_config => 0) or die "login: $Net::EPP::Simple::Code $Net::EPP::Simple::Error\n";
print "login: $Net::EPP::Simple::Code\n";
print "check: avail=", $epp->check_domain($name) // 'undef', " ($Net::EPP::Simple::Code)\n";
sub create_frame {   # a fresh frame each time: a frame sent once keeps its clTRID
    my $f = Net::EPP::Frame::Command::Create::Domain->new;
    $f->setDomain($name); $f->setPeriod(1); $f->setAuthInfo('2fooBAR!xQ7wK4pL');
    my $data = $f->createElementNS($IDN, 'idn:data');
    $data->appendTextChild('table', 'hi'); $data->appendTextChild('uname', $uname);
    my $ext = $f->createElement('extension'); $ext->appendChild($data);
    $f->command->insertBefore($ext, $f->clTRID);   # <extension> goes before <clTRID>
    return $f;
}
my $r = $epp->request(create_frame());
print "create: ", $r->code, "\n";
print "check after create: avail=", $epp->check_domain($name) // 'undef', " ($Net::EPP::Simple::Code)\n";
$r = $epp->request(create_frame());
print "create again: ", $r->code, " ", $r->msg // '', "\n";
my $i = Net::EPP::Frame::Command::Info::Domain->new; $i->setDomain($name);
$r = $epp->request($i);
sub txt { my $n = shift; defined $n ? $n->textContent : '' }
print "info: ", $r->code, " roid=", txt($r->getElementsByLocalName('roid')->shift),
    " idn:table=", txt($r->getElementsByTagNameNS($IDN, 'table')->shift),
    " idn:uname=", txt($r->getElementsByTagNameNS($IDN, 'uname')->shift), "\n";
my $RGP = 'urn:ietf:params:xml:ns:rgp-1.0';
my $ex = substr(txt($r->getElementsByLocalName('exDate')->shift), 0, 10);
$epp->renew_domain({name => $name, cur_exp_date => '1999-01-01', period => 1});
print "renew wrong date: $Net::EPP::Simple::Code\n";
$r = $epp->request($epp->_generate_renew_domain_frame({name => $name, cur_exp_date => $ex, period => 2}));
print "renew: ", $r->code, " exDate=", txt($r->getElementsByLocalName('exDate')->shift), "\n";
$epp->delete_domain($name);
print "delete: $Net::EPP::Simple::Code\n";
sub statuses {   # info: the code, the domain statuses and the rgp statuses
    my $i = Net::EPP::Frame::Command::Info::Domain->new; $i->setDomain($name);
    my $r = $epp->request($i);
    my @s = map { $_->getAttribute('s') } $r->getElementsByTagNameNS('urn:ietf:params:xml:ns:domain-1.0', 'status');
    my @g = map { $_->getAttribute('s') } $r->getElementsByTagNameNS($RGP, 'rgpStatus');
    return $r->code . " status=" . join(',', @s) . " rgp=" . join(',', @g);
}
print "info after delete: ", statuses(), "\n";
sub restore {
    my $f = Net::EPP::Frame::Command::Update::Domain->new; $f->setDomain($name);
    my $u = $f->createElementNS($RGP, 'rgp:update');
    my $rs = $f->createElementNS($RGP, 'rgp:restore'); $rs->setAttribute('op', shift); $u->appendChild($rs);
    my $ext = $f->createElement('extension'); $ext->appendChild($u);
    $f->command->insertBefore($ext, $f->clTRID);
    return $epp->request($f)->code;
}
print "restore request: ", restore('request'), "\n";
print "restore report: ", restore('report'), "\n";
print "info after restore: ", statuses(), "\n";
print "logout: ", ($epp->logout ? 'ok' : 'failed'), "\n";
