package webhooks_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/shariah-screen/shariah/webhooks"
)

// fixedLookup resolves names from a table (the tests' DNS).
func fixedLookup(table map[string]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		a, ok := table[host]
		if !ok {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
}

func TestCheckRefusesWhatIsNotThePublicInternet(t *testing.T) {
	t.Parallel()
	var none webhooks.Targets
	for ip, reason := range map[string]string{
		"127.0.0.1": "loopback", "127.9.9.9": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
		"10.0.0.1": "private", "172.16.5.4": "private", "172.31.255.255": "private", "192.168.1.1": "private", "fc00::1": "private",
		"169.254.169.254": "metadata", "fd00:ec2::254": "metadata", "169.254.1.1": "link-local", "fe80::1": "link-local",
		"0.0.0.0": "this network", "::": "unspecified", "100.64.0.1": "shared address space", "224.0.0.1": "multicast",
		"255.255.255.255": "reserved", "198.18.0.1": "benchmarking", "64:ff9b::a00:1": "NAT64 of private",
	} {
		err := none.Check(netip.MustParseAddr(ip))
		var re *webhooks.RefusedError
		if !errors.As(err, &re) || re.Reason != reason {
			t.Errorf("%s: %v, want refused as %s", ip, err, reason)
		}
	}
	for _, ip := range []string{"8.8.8.8", "1.1.1.1", "172.32.0.1", "2606:4700:4700::1111", "64:ff9b::808:808"} {
		if err := none.Check(netip.MustParseAddr(ip)); err != nil {
			t.Errorf("%s refused: %v", ip, err)
		}
	}
	allow, err := webhooks.ParseAllow("127.0.0.1, 10.1.0.0/16, receiver.internal")
	if err != nil {
		t.Fatal(err)
	}
	for _, ip := range []string{"127.0.0.1", "10.1.2.3"} {
		if err := allow.Check(netip.MustParseAddr(ip)); err != nil {
			t.Errorf("allowed %s refused: %v", ip, err)
		}
	}
	if allow.Check(netip.MustParseAddr("127.0.0.2")) == nil || allow.Check(netip.MustParseAddr("10.2.0.1")) == nil {
		t.Error("an address outside the allowed ones was accepted")
	}
	for _, bad := range []string{"10.0.0.0/33", "not a host!", "a b"} {
		if _, err := webhooks.ParseAllow(bad); err == nil {
			t.Errorf("SHARIAH_WEBHOOK_ALLOW %q accepted", bad)
		}
	}
}

func TestCheckURLAtCreation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lookup := fixedLookup(map[string]string{"hooks.example.com": "93.184.216.34", "rebind.example.com": "10.0.0.1",
		"meta.example.com": "169.254.169.254", "localhost": "127.0.0.1", "receiver.internal": "10.9.9.9"})
	pub := &webhooks.Targets{Lookup: lookup}
	cases := []struct{ url, typ, msg string }{
		{"https://hooks.example.com/in", "", ""},
		{"http://hooks.example.com/in", "value_error.url.scheme", "must be https"},
		{"ftp://hooks.example.com/in", "value_error.url.scheme", "must be https"},
		{"hooks.example.com/in", "value_error.url", "absolute"},
		{"", "value_error.missing", "required"},
		{"https://user:pw@hooks.example.com/", "value_error.url", "credentials"},
		{"https://127.0.0.1/", "value_error.url.refused", "127.0.0.1 (loopback)"},
		{"https://[::1]:8443/", "value_error.url.refused", "loopback"},
		{"https://10.0.0.1/", "value_error.url.refused", "10.0.0.1 (private)"},
		{"https://169.254.169.254/latest/meta-data/", "value_error.url.refused", "(metadata)"},
		{"https://[fd00:ec2::254]/", "value_error.url.refused", "(metadata)"},
		{"https://localhost:8443/", "value_error.url.refused", "127.0.0.1 (loopback)"},
		{"https://rebind.example.com/", "value_error.url.refused", "private"},
		{"https://meta.example.com/", "value_error.url.refused", "metadata"},
		{"https://nowhere.example.com/", "value_error.url.host", "does not resolve"},
		{"https://0.0.0.0/", "value_error.url.refused", "this network"},
	}
	for _, c := range cases {
		_, msg, typ := pub.CheckURL(ctx, c.url)
		if typ != c.typ || !strings.Contains(msg, c.msg) {
			t.Errorf("%q: %q %q, want %q containing %q", c.url, typ, msg, c.typ, c.msg)
		}
	}
	// The operator's list: an allowed network or host may be plain http, and is not refused.
	allow, _ := webhooks.ParseAllow("127.0.0.1/32,receiver.internal")
	allow.Lookup = lookup
	for _, u := range []string{"http://127.0.0.1:9000/hook", "https://localhost/", "http://receiver.internal/x"} {
		if _, msg, _ := allow.CheckURL(ctx, u); msg != "" {
			t.Errorf("allowed %q: %s", u, msg)
		}
	}
	if _, msg, _ := allow.CheckURL(ctx, "http://hooks.example.com/"); !strings.Contains(msg, "https") {
		t.Errorf("plain http to a host not allowed: %q", msg)
	}
}

// TestDialRefusesAtConnectTime: the dialer refuses an address a name resolves to now, whatever it
// resolved to at creation, and dials an allowed one.
func TestDialRefusesAtConnectTime(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	table := map[string]string{"hooks.example.com": "127.0.0.1"}
	tg := &webhooks.Targets{Lookup: fixedLookup(table)}
	for _, ip := range []string{"127.0.0.1", "10.0.0.1", "169.254.169.254"} {
		table["hooks.example.com"] = ip
		_, err := tg.DialContext(context.Background(), "tcp", net.JoinHostPort("hooks.example.com", port))
		var re *webhooks.RefusedError
		if !errors.As(err, &re) || re.Addr.String() != ip {
			t.Errorf("dial through a name resolving to %s: %v", ip, err)
		}
		if _, err := tg.DialContext(context.Background(), "tcp", net.JoinHostPort(ip, port)); !errors.As(err, &re) {
			t.Errorf("dial %s: %v", ip, err)
		}
	}
	select {
	case <-accepted:
		t.Fatal("a refused address was connected to")
	default:
	}
	allowed := &webhooks.Targets{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Lookup: fixedLookup(map[string]string{"hooks.example.com": "127.0.0.1"})}
	c, err := allowed.DialContext(context.Background(), "tcp", net.JoinHostPort("hooks.example.com", port))
	if err != nil {
		t.Fatalf("allowed address: %v", err)
	}
	c.Close()
	<-accepted
}
