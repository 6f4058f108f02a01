#!/usr/bin/perl
# Guesses authInfo and storms a poll queue with Net::EPP (Debian
# libnet-epp-perl), a client we did not write (issue 34, items 3 and 9):
# acme creates two names with strong authInfo; other guesses the first's
# five times (2202), then is refused before its authInfo is looked at,
# the right one too (2201, the message naming when it may again); third,
# with the right one, is not held back (1001); acme's queue holds one
# message about the guessing, then third's request. other then requests
# and cancels the second name 20 times: five requests a day are taken, and
# acme's queue stays empty. Run by epp/thirdparty_test.go with PORT set
# (the zone's lock period set to 0); prints one line per step.
use strict; use warnings; use utf8; binmode STDOUT, ':utf8';
use Net::EPP::Simple; use Net::EPP::Frame::Command::Create::Domain; use Net::EPP::Frame::Command::Poll::Req; use Net::EPP::Frame::Command::Poll::Ack;
my $name = 'xn--11b4aya5ed.xn--h2brj9c';
my $storm = 'xn--11b4cm.xn--h2brj9c';
my $pw = 'k3P9-vX2q-Lm7T-wR4z';
sub session {
    my ($user, $pass) = @_;
    my $epp = Net::EPP::Simple->new(host => '127.0.0.1', port => $ENV{PORT}, user => $user, pass => $pass,
        timeout => 10, load_config => 0) or die "login $user: $Net::EPP::Simple::Code $Net::EPP::Simple::Error\n";
    return $epp;
}
my $acme = session('acme', 'secret12');
my $other = session('other', 'secret34');
my $third = session('third', 'secret56');
print "login: $Net::EPP::Simple::Code\n";
for my $n ($name, $storm) {
    my $c = Net::EPP::Frame::Command::Create::Domain->new;
    $c->setDomain($n); $c->setPeriod(1); $c->setAuthInfo($pw);
    print "create: ", $acme->request($c)->code, "\n";
}
my @codes;
for my $i (1 .. 5) {
    $other->domain_transfer_request($name, "Wrong-guess-000$i-xyz", 1);
    push @codes, $Net::EPP::Simple::Code;
}
print "five guesses: @codes\n";
for my $try (['sixth guess', 'Wrong-guess-0006-xyz'], ['the right authInfo', $pw]) {
    $other->domain_transfer_request($name, $try->[1], 1);
    my $when = $Net::EPP::Simple::Error =~ /is taken after (\S+)/ ? $1 : '?';
    print "$try->[0]: $Net::EPP::Simple::Code after $when\n";
}
my $t = $third->domain_transfer_request($name, $pw, 1);
print "third: $Net::EPP::Simple::Code ", ($t ? $t->{trStatus} : '?'), "\n";
sub poll {
    my $r = $acme->request(Net::EPP::Frame::Command::Poll::Req->new);
    my $q = $r->getElementsByLocalName('msgQ')->shift;
    my $msg = $q ? $q->getElementsByLocalName('msg')->shift->textContent : '';
    $msg =~ s/:.*//;
    print "poll acme: ", $r->code, " count=", ($q ? $q->getAttribute('count') : 0), ($msg ? " $msg" : ''), "\n";
    if ($q) {
        my $a = Net::EPP::Frame::Command::Poll::Ack->new; $a->setMsgID($q->getAttribute('id'));
        $acme->request($a);
    }
}
poll(); poll();
my %storm;
for my $i (1 .. 20) {
    if ($other->domain_transfer_request($storm, $pw, 1)) {
        $storm{taken}++;
        $other->domain_transfer_cancel($storm);
        $storm{cancelled}++ if $Net::EPP::Simple::Code == 1000;
    } else {
        $storm{$Net::EPP::Simple::Code}++;
    }
}
print "storm: taken=", $storm{taken} // 0, " cancelled=", $storm{cancelled} // 0, " refused 2201=", $storm{2201} // 0, "\n";
poll();
print "logout: ", ($acme->logout && $other->logout && $third->logout ? 'ok' : 'failed'), "\n";
