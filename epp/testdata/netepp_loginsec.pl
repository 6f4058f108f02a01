#!/usr/bin/perl
# RFC 8807 login security with Net::EPP (Debian libnet-epp-perl), issue 38:
# the greeting lists loginSec; a login carries the 125-character password
# in <loginSec:pw> (with [LOGIN-SECURITY] in <pw>), the next one changes it to
# another long one through <loginSec:newPW> ([LOGIN-SECURITY] in <newPW>),
# reading the <loginSec:event>s of the answer; the new password logs in,
# the old one no longer does. Run by epp/thirdparty_test.go with PORT set;
# prints one line per step.
use strict; use warnings; use utf8; binmode STDOUT, ':utf8';
use Net::EPP::Simple;
my $LS = 'urn:ietf:params:xml:ns:epp:loginSec-1.0';
my $PH = '[LOGIN-SECURITY]';
my $LONG = join('-', ('loginsec') x 14);   # 125 characters
my $LONG2 = 'Another-long-password-' x 4;   # 88 characters

sub connect_epp {
    my $epp = Net::EPP::Simple->new(host => '127.0.0.1', port => $ENV{PORT}, user => 'acme', pass => $PH,
        timeout => 10, load_config => 0, login => 0,
        objects => ['urn:ietf:params:xml:ns:domain-1.0'], extensions => [$LS]);
    die "connect: $Net::EPP::Simple::Code $Net::EPP::Simple::Error\n" unless $epp;
    return $epp;
}

# login sends a login with the password in <loginSec:pw> and, if $new is
# given, a new one in <loginSec:newPW>; it returns the code and the events
# (type/level) of the answer.
sub login {
    my ($epp, $pw, $new) = @_;
    my $f = $epp->_prepare_login_frame();
    if (defined $new) {
        my $n = $f->createElement('newPW'); $n->appendText($PH);
        $f->getNode('login')->insertAfter($n, $f->pw);
    }
    my $ls = $f->createElementNS($LS, 'loginSec:loginSec');
    my $ua = $f->createElementNS($LS, 'loginSec:userAgent');
    my $app = $f->createElementNS($LS, 'loginSec:app'); $app->appendText('Net::EPP::Simple');
    my $tech = $f->createElementNS($LS, 'loginSec:tech'); $tech->appendText("Perl $]");
    $ua->appendChild($app); $ua->appendChild($tech); $ls->appendChild($ua);
    my $p = $f->createElementNS($LS, 'loginSec:pw'); $p->appendText($pw); $ls->appendChild($p);
    if (defined $new) {
        my $n = $f->createElementNS($LS, 'loginSec:newPW'); $n->appendText($new); $ls->appendChild($n);
    }
    my $ext = $f->createElement('extension'); $ext->appendChild($ls);
    $f->command->insertBefore($ext, $f->clTRID);
    my $r = $epp->request($f) or die "login: no answer\n";
    my @ev = map { $_->getAttribute('type') . '/' . $_->getAttribute('level') } $r->getElementsByTagNameNS($LS, 'event');
    return ($r->code, join(',', @ev) || 'none');
}

my $epp = connect_epp();
my @ext = map { $_->textContent } $epp->{greeting}->getElementsByTagNameNS('urn:ietf:params:xml:ns:epp-1.0', 'extURI');
print "greeting lists loginSec: ", ((grep { $_ eq $LS } @ext) ? 'yes' : 'no'), "\n";
my ($code, $ev) = login($epp, $LONG);
print "login: $code events=$ev\n";
$epp->logout;
$epp = connect_epp();
($code, $ev) = login($epp, $LONG, $LONG2);
print "login with a new password: $code events=$ev\n";
print "check: avail=", $epp->check_domain('xn--11b4aya5ed.xn--h2brj9c') // 'undef', " ($Net::EPP::Simple::Code)\n";
$epp->logout;
($code, $ev) = login(connect_epp(), $LONG2);
print "login with the new password: $code events=$ev\n";
($code, $ev) = login(connect_epp(), $LONG);
print "login with the old password: $code\n";
