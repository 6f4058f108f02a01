package main

// Contacts and domains from the command line, acting as a registrar
// (issue 34 item 4; docs/contacts.md, docs/cli.md): akshara contact
// create|info|update|delete, akshara domain create. Each parses, calls one
// registry.Service method as the registrar -registrar names, on the "cli"
// channel (the zones' contact policy binds it as it binds EPP and HTTP),
// and prints the answer as JSON.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/akshara-idn/akshara/registry"
)

func init() {
	register(&command{name: "contact", order: 45, summary: "create|info|update|delete: a registrar's contacts (RFC 5733), as over EPP or HTTP",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdContact(args, stdin, stdout, stderr)
		}})
	register(&command{name: "domain", order: 46, summary: "create: register a name for a registrar, with its contacts",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return cmdDomain(args, stdout, stderr)
		}})
}

const contactUsage = `usage: akshara contact create [-db FILE | -dsn DSN] -registrar NAME [-json FILE | -id ID -name NAME -city CITY -cc CC -email EMAIL [flags]]
       akshara contact info [-db FILE | -dsn DSN] -registrar NAME [-auth-info PW] ID
       akshara contact update [-db FILE | -dsn DSN] -registrar NAME [flags] ID
       akshara contact delete [-db FILE | -dsn DSN] -registrar NAME ID

A registrar's contacts (docs/contacts.md), checked and authorised as over
EPP and the HTTP API: the registrar -registrar names acts (its own
contacts only; info of another's needs its -auth-info). create takes the
flags below for one postal info (-type int, ASCII, or loc, any script), or
-json FILE ("-" for standard input) with the body of POST /v1/contacts:
{"id": ..., "postal": [...], "voice": {"number": ...}, "email": ...,
"disclose": ..., "auth_info": ...}. update replaces the fields given (the
postal flags replace the postal info of -type, whole; -add-status and
-rem-status take clientUpdateProhibited, clientDeleteProhibited). Prints
the contact as JSON; a refusal's code on standard error, exit 1.

Flags:
`

const domainUsage = `usage: akshara domain create [-db FILE | -dsn DSN] -registrar NAME [-lang TAG] [-contact ROLE=ID]... [-auth-info PW] [-contacts-exempt] NAME

Registers NAME (label.zone) for the registrar -registrar names, as
POST /v1/domains and an EPP <domain:create> do: the same policy, prices,
and the zone's required contacts (-contact registrant=ID, admin=ID,
tech=ID, billing=ID, repeated; the registrar's own contacts: akshara
contact create). Prints the domain as JSON; a refusal's code on standard
error, exit 1 (CONTACT_REQUIRED for a required role missing; -contacts-exempt
registers it without, an explicit exemption).

Flags:
`

// listFlag is a repeated string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// cliRegistrar finds the registrar a command acts as: it must exist and
// not be revoked (as its API token and EPP login would be refused).
func cliRegistrar(ctx context.Context, svc *registry.Service, name string) (*registry.Registrar, error) {
	rs, err := svc.Registrars(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if r.Name == name {
			if !r.Revoked.IsZero() {
				return nil, registry.Errorf(registry.CodeForbidden, "registrar %q is revoked", name)
			}
			reg := r.Registrar
			return &reg, nil
		}
	}
	return nil, registry.Errorf(registry.CodeNotFound, "there is no registrar %q", name)
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func cmdContact(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, contactUsage, stderr, "create", "info", "update", "delete")
	if !ok {
		return exitUsage
	}
	fs := newFlags("contact "+sub, contactUsage, stderr)
	openStore := storeFlags(fs)
	reg := fs.String("registrar", "", "the registrar `NAME` that acts")
	jsonFile := fs.String("json", "", "create: the contact as JSON (the body of POST /v1/contacts) from `FILE`, - for standard input")
	id := fs.String("id", "", "create: the contact's `ID` (3 to 16 ASCII letters, digits, - _ .)")
	typ := fs.String("type", "int", "create, update: the postal info's type, int (7-bit ASCII) or loc")
	name := fs.String("name", "", "create, update: the person's name")
	org := fs.String("org", "", "create, update: the organisation")
	var street listFlag
	fs.Var(&street, "street", "create, update: a street `LINE` (repeat, up to 3)")
	city := fs.String("city", "", "create, update: the city")
	sp := fs.String("sp", "", "create, update: the state or province")
	pc := fs.String("pc", "", "create, update: the postal code")
	cc := fs.String("cc", "", "create, update: the ISO 3166 country `CODE` (IN)")
	voice := fs.String("voice", "", "create, update: the telephone `NUMBER` (+91.1123456789)")
	fax := fs.String("fax", "", "create, update: the fax `NUMBER`")
	email := fs.String("email", "", "create, update: the email `ADDRESS`")
	authInfo := fs.String("auth-info", "", "create, update: the contact's authInfo (strong: 16 characters of 3 kinds); info: another registrar's contact's")
	var addStatus, remStatus listFlag
	fs.Var(&addStatus, "add-status", "update: a client `STATUS` to set (repeat)")
	fs.Var(&remStatus, "rem-status", "update: a client `STATUS` to lift (repeat)")
	min := 1
	if sub == "create" {
		min = 0
	}
	if status, ok := parseFlags(fs, rest, min); !ok {
		return status
	}
	if *reg == "" {
		fmt.Fprintf(stderr, "akshara contact %s: -registrar NAME: the registrar that acts\n", sub)
		return exitUsage
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	postal := func() registry.PostalInfo {
		return registry.PostalInfo{Type: *typ, Name: *name, Org: *org, Street: street, City: *city, SP: *sp, PC: *pc, CC: *cc}
	}
	phone := func(v string) *registry.Phone {
		if v == "" {
			return nil
		}
		num, ext, _ := strings.Cut(v, "x")
		return &registry.Phone{Number: num, Ext: ext}
	}
	var create registry.ContactCreate
	if sub == "create" {
		if *jsonFile != "" {
			var in io.Reader = stdin
			if *jsonFile != "-" {
				f, err := os.Open(*jsonFile)
				if err != nil {
					fmt.Fprintf(stderr, "akshara contact create: %v\n", err)
					return exitUsage
				}
				defer f.Close()
				in = f
			}
			var body struct {
				ID string `json:"id"`
				registry.ContactData
				AuthInfo string `json:"auth_info"`
			}
			dec := json.NewDecoder(in)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&body); err != nil {
				fmt.Fprintf(stderr, "akshara contact create: -json: %v\n", err)
				return exitUsage
			}
			create = registry.ContactCreate{ID: body.ID, ContactData: body.ContactData, AuthInfo: body.AuthInfo}
		} else {
			create = registry.ContactCreate{ID: *id, AuthInfo: *authInfo, ContactData: registry.ContactData{
				Postal: []registry.PostalInfo{postal()}, Voice: phone(*voice), Fax: phone(*fax), Email: *email}}
		}
	}
	return withService("contact "+sub, openStore, stderr, func(ctx context.Context, svc *registry.Service) error {
		ctx = registry.WithChannel(ctx, registry.Channel{Name: "cli"})
		r, err := cliRegistrar(ctx, svc, *reg)
		if err != nil {
			return err
		}
		switch sub {
		case "create":
			c, err := svc.CreateContact(ctx, r, create)
			if err != nil {
				return err
			}
			return printJSON(stdout, c)
		case "info":
			c, err := svc.ContactInfo(ctx, r, fs.Arg(0), *authInfo)
			if err != nil {
				return err
			}
			return printJSON(stdout, c)
		case "update":
			u := registry.ContactUpdate{ID: fs.Arg(0), AddStatuses: addStatus, RemStatuses: remStatus,
				Email: *email, AuthInfo: *authInfo, Voice: phone(*voice), Fax: phone(*fax)}
			if set["name"] || set["org"] || set["street"] || set["city"] || set["sp"] || set["pc"] || set["cc"] {
				p := postal()
				u.Postal = []registry.PostalChange{{Type: p.Type, Name: &p.Name, Org: &p.Org, Addr: &p}}
			}
			if err := svc.UpdateContact(ctx, r, u); err != nil {
				return err
			}
			c, err := svc.ContactInfo(ctx, r, fs.Arg(0), "")
			if err != nil {
				return err
			}
			return printJSON(stdout, c)
		default: // delete
			if err := svc.DeleteContact(ctx, r, registry.ContactDelete{ID: fs.Arg(0)}); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "contact %s deleted\n", fs.Arg(0))
			return nil
		}
	})
}

func cmdDomain(args []string, stdout, stderr io.Writer) int {
	sub, rest, ok := subcommand(args, domainUsage, stderr, "create")
	if !ok {
		return exitUsage
	}
	fs := newFlags("domain "+sub, domainUsage, stderr)
	openStore := storeFlags(fs)
	reg := fs.String("registrar", "", "the registrar `NAME` that registers the name")
	lang := fs.String("lang", "", "the language `TAG` the name is judged in (none: the zone's first that accepts it)")
	authInfo := fs.String("auth-info", "", "the domain's authInfo (strong: 16 characters of 3 kinds)")
	var contacts listFlag
	fs.Var(&contacts, "contact", "a contact, `ROLE=ID` (registrant, admin, tech, billing; repeat)")
	exempt := fs.Bool("contacts-exempt", false, "register the name without the contacts its zone requires (an explicit exemption of this command: WHOIS and RDAP show it without a registrant)")
	if status, ok := parseFlags(fs, rest, 1); !ok {
		return status
	}
	if *reg == "" {
		fmt.Fprintln(stderr, "akshara domain create: -registrar NAME: the registrar that registers the name")
		return exitUsage
	}
	var dcs []registry.DomainContact
	for _, c := range contacts {
		role, id, ok := strings.Cut(c, "=")
		if !ok {
			fmt.Fprintf(stderr, "akshara domain create: -contact %q: ROLE=ID\n", c)
			return exitUsage
		}
		dcs = append(dcs, registry.DomainContact{Role: role, ID: id})
	}
	var exemptCLI []string
	if *exempt {
		exemptCLI = []string{"cli"}
	}
	return withServiceExempt("domain create", openStore, stderr, exemptCLI, func(ctx context.Context, svc *registry.Service) error {
		ctx = registry.WithChannel(ctx, registry.Channel{Name: "cli"})
		r, err := cliRegistrar(ctx, svc, *reg)
		if err != nil {
			return err
		}
		d, err := svc.CreateDomain(ctx, r, registry.DomainCreate{Name: fs.Arg(0), Lang: *lang, AuthInfo: *authInfo, Contacts: dcs})
		if err != nil {
			return err
		}
		return printJSON(stdout, d)
	})
}
