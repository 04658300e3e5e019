package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Targets is the policy of where a webhook may be delivered: never to this machine, the private
// network or a cloud's metadata service (a webhook URL is an address the service fetches on a user's
// behalf, the classic server-side request forgery), unless the operator allows the address
// (SHARIAH_WEBHOOK_ALLOW: a receiver on the private network, the tests' loopback receivers).
//
// The policy is checked twice: when an endpoint is created (its host resolved, so the user learns at
// once), and on every delivery at connect time, on the address actually dialled (DialContext and the
// dialer's Control hook): a name that resolved to a public address at creation and to 127.0.0.1 later
// (DNS rebinding, or a record simply changed) is refused before a byte is sent.
type Targets struct {
	// Allow are the networks the operator allows (CIDRs; an address is a /32 or /128).
	Allow []netip.Prefix
	// AllowHosts are host names the operator allows whatever they resolve to (lower case).
	AllowHosts []string
	// Lookup resolves a host name; nil: the system resolver. Tests change what a name resolves to.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// ParseAllow reads SHARIAH_WEBHOOK_ALLOW: comma-separated CIDRs, IP addresses or host names.
func ParseAllow(s string) (*Targets, error) {
	t := &Targets{}
	for _, part := range strings.Split(s, ",") {
		part = strings.ToLower(strings.TrimSpace(part))
		switch {
		case part == "":
		case strings.Contains(part, "/"):
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return nil, fmt.Errorf("%q is not a CIDR prefix", part)
			}
			t.Allow = append(t.Allow, p.Masked())
		default:
			if a, err := netip.ParseAddr(strings.Trim(part, "[]")); err == nil {
				t.Allow = append(t.Allow, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
				continue
			}
			if !validHostName(part) {
				return nil, fmt.Errorf("%q is not a CIDR prefix, an IP address or a host name", part)
			}
			t.AllowHosts = append(t.AllowHosts, part)
		}
	}
	return t, nil
}

func validHostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, r := range h {
		if !(r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// RefusedError is a delivery address the policy refuses.
type RefusedError struct {
	Addr   netip.Addr
	Reason string // loopback, private, link-local, metadata, ...
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused address %s (%s)", e.Addr, e.Reason)
}

// refused are the ranges no webhook is delivered to besides those netip classifies (loopback,
// private, link-local, multicast, unspecified): addresses that are not the public internet.
var refused = []struct {
	p      netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("169.254.169.254/32"), "metadata"}, // cloud instance metadata (AWS, GCP, Azure)
	{netip.MustParsePrefix("fd00:ec2::254/128"), "metadata"},  // AWS metadata over IPv6
	{netip.MustParsePrefix("100.100.100.200/32"), "metadata"}, // Alibaba Cloud metadata
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space"},
	{netip.MustParsePrefix("192.0.0.0/24"), "protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("100::/64"), "discard"},
}

// nat64 carries an IPv4 address in its last 32 bits: judged by that address.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Check returns nil when a webhook may be delivered to ip, else a *RefusedError naming why not.
func (t *Targets) Check(ip netip.Addr) error {
	ip = ip.Unmap()
	for _, p := range t.Allow {
		if p.Contains(ip) {
			return nil
		}
	}
	if nat64.Contains(ip) {
		b := ip.As16()
		if err := t.Check(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})); err != nil {
			return &RefusedError{Addr: ip, Reason: "NAT64 of " + err.(*RefusedError).Reason}
		}
	}
	for _, r := range refused {
		if r.p.Contains(ip) {
			return &RefusedError{Addr: ip, Reason: r.reason}
		}
	}
	switch {
	case !ip.IsValid():
		return &RefusedError{Addr: ip, Reason: "invalid"}
	case ip.IsUnspecified():
		return &RefusedError{Addr: ip, Reason: "unspecified"}
	case ip.IsLoopback():
		return &RefusedError{Addr: ip, Reason: "loopback"}
	case ip.IsPrivate():
		return &RefusedError{Addr: ip, Reason: "private"}
	case ip.IsLinkLocalUnicast():
		return &RefusedError{Addr: ip, Reason: "link-local"}
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return &RefusedError{Addr: ip, Reason: "multicast"}
	case ip.Is4() && ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return &RefusedError{Addr: ip, Reason: "broadcast"}
	}
	return nil
}

// hostAllowed reports a host name the operator allows whatever it resolves to.
func (t *Targets) hostAllowed(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range t.AllowHosts {
		if h == host {
			return true
		}
	}
	return false
}

// resolve returns the addresses of host (itself when it is an address).
func (t *Targets) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	if t.Lookup != nil {
		return t.Lookup(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// allowedPlain reports whether a URL on host may use plain http: the host is allowed by name, or every
// address it resolves to is in an allowed network (the operator's own receivers; tests' loopback ones).
func (t *Targets) allowedPlain(ctx context.Context, host string) bool {
	if t.hostAllowed(host) {
		return true
	}
	addrs, err := t.resolve(ctx, host)
	if err != nil || len(addrs) == 0 {
		return false
	}
	for _, a := range addrs {
		if !t.inAllow(a) {
			return false
		}
	}
	return true
}

func (t *Targets) inAllow(a netip.Addr) bool {
	for _, p := range t.Allow {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// MaxURLLength bounds an endpoint's URL.
const MaxURLLength = 2048

// CheckURL validates an endpoint URL when it is created: absolute https (plain http only for an
// allowed host), no credentials, and a host whose every address the policy accepts. It returns the
// URL as stored, or a message for the url field and its type.
func (t *Targets) CheckURL(ctx context.Context, raw string) (string, string, string) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", "a URL is required", "value_error.missing"
	}
	if len(raw) > MaxURLLength {
		return "", fmt.Sprintf("at most %d characters", MaxURLLength), "value_error.url"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", "not an absolute URL", "value_error.url"
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "https" && scheme != "http" {
		return "", "the URL must be https", "value_error.url.scheme"
	}
	if u.User != nil {
		return "", "credentials in the URL are not allowed (the signature authenticates the service)", "value_error.url"
	}
	if u.Fragment != "" {
		return "", "a fragment is not sent; remove it", "value_error.url"
	}
	host := u.Hostname()
	if scheme == "http" && !t.allowedPlain(ctx, host) {
		return "", "the URL must be https", "value_error.url.scheme"
	}
	if t.hostAllowed(host) {
		return u.String(), "", ""
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := t.resolve(rctx, host)
	if err != nil || len(addrs) == 0 {
		return "", "the host " + host + " does not resolve", "value_error.url.host"
	}
	for _, a := range addrs {
		if err := t.Check(a); err != nil {
			return "", "the host " + host + " resolves to a " + err.Error(), "value_error.url.refused"
		}
	}
	return u.String(), "", ""
}

// errRefusedDial marks a connection refused by Control (unwrapped into the RefusedError it carries).
var errRefusedDial = errors.New("refused")

// DialContext dials addr (host:port) for a delivery: an allowed host name as it resolves; any other
// host through its resolved addresses one by one, each checked by the dialer's Control hook on the
// address of the socket itself, the last word before connect(2).
func (t *Targets) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	if t.hostAllowed(host) {
		return d.DialContext(ctx, network, addr)
	}
	addrs, err := t.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s does not resolve", host)
	}
	var refusal error
	d.Control = func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return err
		}
		if err := t.Check(ap.Addr()); err != nil {
			refusal = err
			return errRefusedDial
		}
		return nil
	}
	var last error
	for _, a := range addrs {
		if err := t.Check(a); err != nil { // not even a socket for a refused address
			last = err
			continue
		}
		c, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		if refusal != nil {
			err = refusal
		}
		last = err
	}
	return nil, last
}
