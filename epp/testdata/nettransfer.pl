#!/usr/bin/perl
# Drives akshara's transfers and poll queue with Net::EPP (Debian
# libnet-epp-perl): acme creates a name with an authInfo, other requests
# its transfer, acme reads the poll message, acknowledges it and approves,
# other reads and acknowledges the outcome and sees the domain as its own.
# Run by epp/thirdparty_test.go with PORT set (the zone's lock period set
# to 0); prints one line per step for the test to compare.
use strict; use warnings; use utf8; binmode STDOUT, ':utf8';
use Net::EPP::Simple; use Net::EPP::Frame::Command::Create::Domain; use Net::EPP::Frame::Command::Transfer::Domain;
use Net::EPP::Frame::Command::Poll::Req; use Net::EPP::Frame::Command::Poll::Ack; use Net::EPP::Frame::Command::Info::Domain;
my $name = 'xn--11b4aya5ed.xn--h2brj9c';
sub session {
    my ($user, $pass) = @_;
    my $epp = Net::EPP::Simple->new(host => '127.0.0.1', port => $ENV{PORT}, user => $user, pass => $pass,
        timeout => 10, load_config => 0) or die "login $user: $Net::EPP::Simple::Code $Net::EPP::Simple::Error\n";
    return $epp;
}
sub txt { my $n = shift; defined $n ? $n->textContent : '' }
sub el { my ($r, $n) = @_; txt($r->getElementsByLocalName($n)->shift) }
my $acme = session('acme', 'secret12');
my $other = session('other', 'secret34');
print "login: $Net::EPP::Simple::Code\n";
my $c = Net::EPP::Frame::Command::Create::Domain->new;
$c->setDomain($name); $c->setPeriod(1); $c->setAuthInfo('2fooBAR!xQ7wK4pL');
print "create: ", $acme->request($c)->code, "\n";
sub transfer {
    my ($op, $pw) = @_;
    my $f = Net::EPP::Frame::Command::Transfer::Domain->new;
    $f->setOp($op); $f->setDomain($name);
    if (defined $pw) { $f->setPeriod(1); $f->setAuthInfo($pw) }
    return $f;
}
my $r = $other->request(transfer('request', 'wrongAuth1'));
print "request, wrong authInfo: ", $r->code, "\n";
$r = $other->request(transfer('request', '2fooBAR!xQ7wK4pL'));
print "request: ", $r->code, " ", el($r, 'trStatus'), " reID=", el($r, 'reID'), " acID=", el($r, 'acID'), "\n";
sub poll {
    my ($who, $epp) = @_;
    my $r = $epp->request(Net::EPP::Frame::Command::Poll::Req->new);
    my $q = $r->getElementsByLocalName('msgQ')->shift;
    my ($count, $id) = $q ? ($q->getAttribute('count'), $q->getAttribute('id')) : (0, '');
    print "poll $who: ", $r->code, " count=$count", ($q ? " " . el($r, 'trStatus') : ''), "\n";
    return $id;
}
sub ack {
    my ($who, $epp, $id) = @_;
    my $a = Net::EPP::Frame::Command::Poll::Ack->new; $a->setMsgID($id);
    my $r = $epp->request($a);
    my $q = $r->getElementsByLocalName('msgQ')->shift;
    print "ack $who: ", $r->code, " count=", ($q ? $q->getAttribute('count') : '?'), " same id=", ($q && $q->getAttribute('id') eq $id ? 'yes' : 'no'), "\n";
}
my $id = poll('acme', $acme);
ack('acme', $acme, $id);
$r = $acme->request(transfer('approve'));
print "approve: ", $r->code, " ", el($r, 'trStatus'), "\n";
$id = poll('other', $other);
ack('other', $other, $id);
poll('other', $other);
my $i = Net::EPP::Frame::Command::Info::Domain->new; $i->setDomain($name);
$r = $other->request($i);
print "info: ", $r->code, " clID=", el($r, 'clID'), "\n";
print "logout: ", ($acme->logout && $other->logout ? 'ok' : 'failed'), "\n";
