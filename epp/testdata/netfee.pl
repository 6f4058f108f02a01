#!/usr/bin/perl
# Drives RFC 8748's fee extension with Net::EPP (Debian libnet-epp-perl):
# the greeting lists fee-1.0 and Net::EPP::Simple logs in with it; a
# domain <check> with a <fee:check> for create, renew and restore; a
# create whose <fee:fee> is below the price (2004), one at the price
# (1000, the fee and the balance echoed); a renew with its fee. Run by
# epp/thirdparty_test.go with PORT set, a price list for भारत and a
# balance of 1000.00; prints one line per step for the test to compare.
use strict; use warnings; use utf8; binmode STDOUT, ':utf8';
use Net::EPP::Simple; use Net::EPP::Frame::Command::Check::Domain; use Net::EPP::Frame::Command::Create::Domain;
use Net::EPP::Frame::Command::Renew::Domain;
my $FEE = 'urn:ietf:params:xml:ns:epp:fee-1.0';
my $epp = Net::EPP::Simple->new(host => '127.0.0.1', port => $ENV{PORT}, user => 'acme', pass => 'secret12',
    timeout => 10, load_config => 0) or die "login: $Net::EPP::Simple::Code $Net::EPP::Simple::Error\n";
my @ext = map { $_->textContent } $epp->{greeting}->getElementsByTagName('extURI');
print "greeting: fee-1.0 ", ((grep { $_ eq $FEE } @ext) ? 'listed' : 'missing'), "\n";
print "login: $Net::EPP::Simple::Code\n";
sub txt { my $n = shift; defined $n ? $n->textContent : '' }
# the fee extension's element (with its children) before <clTRID>
sub fee_ext {
    my ($f, $el, @kids) = @_;
    my $ext = $f->createElement('extension');
    my $fee = $f->createElementNS($FEE, "fee:$el");
    for my $k (@kids) {
        my ($name, $text, %attr) = @$k;
        my $e = $f->createElementNS($FEE, "fee:$name");
        $e->setAttribute($_, $attr{$_}) for keys %attr;
        if (ref $text) { $e->appendChild($_) for @$text } elsif (defined $text) { $e->appendText($text) }
        $fee->appendChild($e);
    }
    $ext->appendChild($fee);
    $f->command->insertBefore($ext, $f->clTRID);
}
my $c = Net::EPP::Frame::Command::Check::Domain->new;
$c->addDomain('कमल.भारत'); $c->addDomain('xn--11b4aya5ed.xn--h2brj9c');
my $period = $c->createElementNS($FEE, 'fee:period'); $period->setAttribute('unit', 'y'); $period->appendText('2');
fee_ext($c, 'check', ['currency', 'INR'], ['command', undef, name => 'create'], ['command', [$period], name => 'renew'], ['command', undef, name => 'restore']);
my $r = $epp->request($c);
for my $cd ($r->getElementsByTagNameNS($FEE, 'cd')) {
    my @fees = map { $_->getAttribute('name') . '=' . txt($_->getElementsByTagNameNS($FEE, 'fee')->shift) } $cd->getElementsByTagNameNS($FEE, 'command');
    print "fee check: ", txt($cd->getElementsByTagNameNS($FEE, 'objID')->shift), " ", txt($cd->getElementsByTagNameNS($FEE, 'class')->shift), " @fees\n";
}
sub create {
    my $fee = shift;
    my $f = Net::EPP::Frame::Command::Create::Domain->new;
    $f->setDomain('xn--11b4aya5ed.xn--h2brj9c'); $f->setPeriod(1); $f->setAuthInfo('2fooBAR!xQ7wK4pL');
    fee_ext($f, 'create', ['currency', 'INR'], ['fee', $fee]);
    return $epp->request($f);
}
$r = create('449.99');
print "create below the price: ", $r->code, "\n";
$r = create('450.00');
print "create: ", $r->code, " fee=", txt($r->getElementsByTagNameNS($FEE, 'fee')->shift), " balance=", txt($r->getElementsByTagNameNS($FEE, 'balance')->shift), "\n";
my $exp = txt($r->getElementsByTagName('domain:exDate')->shift);
my $n = Net::EPP::Frame::Command::Renew::Domain->new;
$n->setDomain('xn--11b4aya5ed.xn--h2brj9c'); $n->setCurExpDate(substr($exp, 0, 10)); $n->setPeriod(1);
fee_ext($n, 'renew', ['fee', '400.00']);
$r = $epp->request($n);
print "renew: ", $r->code, " fee=", txt($r->getElementsByTagNameNS($FEE, 'fee')->shift), " balance=", txt($r->getElementsByTagNameNS($FEE, 'balance')->shift), "\n";
print "logout: ", ($epp->logout ? 'ok' : 'failed'), "\n";
