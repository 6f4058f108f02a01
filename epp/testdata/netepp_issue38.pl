#!/usr/bin/perl
# Drives issue 38 with Net::EPP (Debian libnet-epp-perl), a client we did
# not write: the same-entity check and creates across the variant TLDs
# ভারত/ভাৰত (HOLDER, VARIANT), every registrar command on a domain the
# operator locked (LOCKED, its host LOCKEDNS) refused with 2304 (renew
# allowed), and the change poll and maintenance messages of the queue.
# Run by epp/thirdparty_test.go with PORT and the names set; prints one
# line per step for the test to compare.
use strict; use warnings; use utf8; binmode STDOUT, ':utf8';
use Net::EPP::Simple;
use Net::EPP::Frame::Command::Create::Domain; use Net::EPP::Frame::Command::Update::Domain;
use Net::EPP::Frame::Command::Delete::Domain; use Net::EPP::Frame::Command::Transfer::Domain;
use Net::EPP::Frame::Command::Update::Host; use Net::EPP::Frame::Command::Delete::Host;
use Net::EPP::Frame::Command::Create::Host; use Net::EPP::Frame::Command::Poll::Req;
use Net::EPP::Frame::Command::Poll::Ack; use Net::EPP::Frame::Command::Check::Domain;
my $CP = 'urn:ietf:params:xml:ns:changePoll-1.0';
my $MAINT = 'urn:ietf:params:xml:ns:epp:maintenance-1.0';
sub session {
    my ($user, $pass) = @_;
    my $epp = Net::EPP::Simple->new(host => '127.0.0.1', port => $ENV{PORT}, user => $user, pass => $pass,
        timeout => 10, load_config => 0) or die "login $user: $Net::EPP::Simple::Code $Net::EPP::Simple::Error\n";
    return $epp;
}
sub txt { my $n = shift; defined $n ? $n->textContent : '' }
my $acme = session('acme', 'secret12');
my $other = session('other', 'secret34');
print "login: $Net::EPP::Simple::Code\n";

# same entity
sub check {
    my ($who, $epp, $name) = @_;
    my $f = Net::EPP::Frame::Command::Check::Domain->new; $f->addDomain($name);
    my $r = $epp->request($f);
    my $cd = $r->getElementsByLocalName('name')->shift;
    print "check $who: avail=", $cd->getAttribute('avail'), " reason=", txt($r->getElementsByLocalName('reason')->shift), "\n";
}
check('other', $other, $ENV{VARIANT});
check('acme', $acme, $ENV{VARIANT});
sub create {
    my ($epp, $name, $registrant) = @_;
    my $c = Net::EPP::Frame::Command::Create::Domain->new;
    $c->setDomain($name); $c->setPeriod(1); $c->setRegistrant($registrant); $c->setAuthInfo('2fooBAR!xQ7wK4pL');
    return $epp->request($c)->code;
}
print "create by other: ", create($other, $ENV{VARIANT}, 'rs-o'), "\n";
print "create by acme, another registrant: ", create($acme, $ENV{VARIANT}, 'rs-x'), "\n";
print "create by acme, the holder's registrant: ", create($acme, $ENV{VARIANT}, 'rs-9'), "\n";

# the operator's lock: every command refused
my $u = Net::EPP::Frame::Command::Update::Domain->new; $u->setDomain($ENV{LOCKED}); $u->addStatus('clientHold');
print "update: ", $acme->request($u)->code, "\n";
my $d = Net::EPP::Frame::Command::Delete::Domain->new; $d->setDomain($ENV{LOCKED});
print "delete: ", $acme->request($d)->code, "\n";
my $t = Net::EPP::Frame::Command::Transfer::Domain->new; $t->setOp('request'); $t->setDomain($ENV{LOCKED}); $t->setAuthInfo('2fooBAR!xQ7wK4pL');
print "transfer: ", $other->request($t)->code, "\n";
my $hu = Net::EPP::Frame::Command::Update::Host->new; $hu->setHost($ENV{LOCKEDNS}); $hu->addAddr({ip => '8.8.4.4', version => 'v4'});
print "host update: ", $acme->request($hu)->code, "\n";
my $hd = Net::EPP::Frame::Command::Delete::Host->new; $hd->setHost($ENV{LOCKEDNS});
print "host delete: ", $acme->request($hd)->code, "\n";
my $hc = Net::EPP::Frame::Command::Create::Host->new; $hc->setHost('ns2.' . $ENV{LOCKED}); $hc->setAddr({ip => '8.8.4.4', version => 'v4'});
print "host create: ", $acme->request($hc)->code, "\n";
my $info = $acme->domain_info($ENV{LOCKED});
print "renew: ", ($acme->renew_domain({name => $ENV{LOCKED}, cur_exp_date => substr($info->{exDate}, 0, 10), period => 1}) ? 'ok' : 'refused'), " ($Net::EPP::Simple::Code)\n";

# the queue: the operator's lock of the domain and of its host, the
# maintenance announced
for (1 .. 3) {
    my $r = $acme->request(Net::EPP::Frame::Command::Poll::Req->new);
    my $q = $r->getElementsByLocalName('msgQ')->shift;
    my $op = $r->getElementsByTagNameNS($CP, 'operation')->shift;
    my $pt = $r->getElementsByTagNameNS($MAINT, 'pollType')->shift;
    if ($op) {
        print "poll: ", $r->code, " changePoll ", txt($op), " op=", $op->getAttribute('op'), " who=", txt($r->getElementsByTagNameNS($CP, 'who')->shift),
            " reason=", txt($r->getElementsByTagNameNS($CP, 'reason')->shift), " object=", $r->getElementsByLocalName('infData')->shift->namespaceURI, "\n";
    } else {
        print "poll: ", $r->code, " maintenance pollType=", txt($pt), "\n";
    }
    my $a = Net::EPP::Frame::Command::Poll::Ack->new; $a->setMsgID($q->getAttribute('id'));
    $acme->request($a);
}
print "logout: ", ($acme->logout && $other->logout ? 'ok' : 'failed'), "\n";
