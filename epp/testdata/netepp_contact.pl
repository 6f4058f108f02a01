#!/usr/bin/perl
# Drives akshara's contact objects with Net::EPP (Debian libnet-epp-perl),
# a client we did not write: login (with the objURIs of the greeting,
# contact-1.0 among them), contact check, create with an int and a loc
# postal info (the loc one in Devanagari), info (the lines read back),
# a domain create with registrant, admin and tech, domain info, a contact
# delete refused while linked, logout. Run by epp/thirdparty_test.go with
# PORT set; prints one line per step for the test to compare.
use strict; use warnings; use utf8; binmode STDOUT, ':utf8';
use Net::EPP::Simple;
my $epp = Net::EPP::Simple->new(host => '127.0.0.1', port => $ENV{PORT}, user => 'acme', pass => 'secret12',
    timeout => 10, load_config => 0) or die "login: $Net::EPP::Simple::Code $Net::EPP::Simple::Error\n";
print "login: $Net::EPP::Simple::Code\n";
print "check: avail=", $epp->check_contact('rs-1') // 'undef', " ($Net::EPP::Simple::Code)\n";
my $loc = {name => "राहुल शर्मा \x{0958}ादिर", org => 'किताब प्रकाशन',
    addr => {street => ['१२ एम॰ जी॰ मार्ग', 'हज़रतगंज'], city => 'लखनऊ', sp => 'उत्तर प्रदेश', pc => '226001', cc => 'IN'}};
my $int = {name => 'Rahul Sharma', org => 'Kitab Prakashan',
    addr => {street => ['12 MG Marg', 'Hazratganj'], city => 'Lucknow', sp => 'UP', pc => '226001', cc => 'IN'}};
for my $id ('rs-1', 'adm-1', 'tech-1') {
    $epp->create_contact({id => $id, postalInfo => {int => $int, loc => $loc}, voice => '+91.5222345678',
        fax => '', email => 'rahul@example.in', authInfo => 'Contact-pw-1-strong'});
    print "create $id: $Net::EPP::Simple::Code\n";
}
$epp->create_contact({id => 'bad-1', postalInfo => {int => $int}, voice => '+91.5222345678', fax => '',
    email => 'rahul at example.in', authInfo => 'Contact-pw-1-strong'});
print "create bad email: $Net::EPP::Simple::Code\n";
my $c = $epp->contact_info('rs-1');
print "info: $Net::EPP::Simple::Code id=$c->{id} email=$c->{email} voice=$c->{voice}\n";
my $l = $c->{postalInfo}{loc};
print "loc: ", join('|', $l->{name}, $l->{org}, @{$l->{addr}{street}}, $l->{addr}{city}, $l->{addr}{sp}, $l->{addr}{pc}, $l->{addr}{cc}), "\n";
print "int: ", join('|', $c->{postalInfo}{int}{name}, $c->{postalInfo}{int}{addr}{city}), "\n";
my $name = 'xn--11b4aya5ed.xn--h2brj9c';
$epp->create_domain({name => $name, period => 1, registrant => 'rs-1', contacts => {admin => 'adm-1'}, authInfo => '2fooBAR!xQ7wK4pL'});
print "domain create without tech: $Net::EPP::Simple::Code\n";
$epp->create_domain({name => $name, period => 1, registrant => 'rs-1', contacts => {admin => 'adm-1', tech => 'tech-1'}, authInfo => '2fooBAR!xQ7wK4pL'});
print "domain create: $Net::EPP::Simple::Code\n";
my $d = $epp->domain_info($name);
print "domain info: $Net::EPP::Simple::Code registrant=$d->{registrant} admin=$d->{contacts}{admin} tech=$d->{contacts}{tech}\n";
$epp->delete_contact('rs-1');
print "delete linked: $Net::EPP::Simple::Code\n";
print "logout: ", ($epp->logout ? 'ok' : 'failed'), "\n";
