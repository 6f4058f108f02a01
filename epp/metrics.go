package epp

// The object label of akshara_epp_commands_total (issue 34 item 12):
// domain, host and contact commands are counted apart, so that a
// dashboard sees a flood of host checks or contact creates for what it
// is. Commands on no object (login, logout, poll) are "none"; a command
// on an object the server does not serve, or one it cannot read, "other".
const (
	objDomain  = "domain"
	objHost    = "host"
	objContact = "contact"
	objNone    = "none"
	objOther   = "other"
)

// objectOf names an object namespace's object.
func objectOf(ns string) string {
	switch ns {
	case NSDomain:
		return objDomain
	case NSHost:
		return objHost
	case NSCont:
		return objContact
	}
	return objOther
}

// object is the object a command is on, for the metrics.
func (c *command) object() string {
	switch {
	case c.Login != nil, c.Logout != nil, c.Poll != nil:
		return objNone
	case c.Check != nil:
		return c.Check.object()
	case c.Info != nil:
		return c.Info.object()
	case c.Create != nil:
		return c.Create.object()
	case c.Delete != nil:
		return c.Delete.object()
	case c.Renew != nil:
		return c.Renew.object()
	case c.Transfer != nil:
		switch t := c.Transfer; {
		case t.Domain != nil:
			return objDomain
		case len(t.Other) > 0:
			return objectOf(t.Other[0].XMLName.Space)
		}
	case c.Update != nil:
		switch u := c.Update; {
		case u.Domain != nil:
			return objDomain
		case u.Host != nil:
			return objHost
		case u.Contact != nil:
			return objContact
		case len(u.Other) > 0:
			return objectOf(u.Other[0].XMLName.Space)
		}
	case len(c.Other) > 0 && c.Other[0].XMLName.Space == NSEPP && c.Other[0].XMLName.Local == "poll":
		return objNone
	}
	return objOther
}

// object is the object of a <check>, <info>, <create>, <delete> or
// <renew>.
func (o *object) object() string {
	if d, _ := o.op(); d != nil {
		return objDomain
	}
	if o.hostOp() != nil {
		return objHost
	}
	for _, c := range []*contactOp{o.CCheck, o.CInfo, o.CCre, o.CDel} {
		if c != nil {
			return objContact
		}
	}
	if len(o.Other) > 0 {
		return objectOf(o.Other[0].XMLName.Space)
	}
	return objOther
}
