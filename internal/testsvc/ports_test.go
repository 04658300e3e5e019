package testsvc

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestRedisStartsOnOtherPortsWhenOneIsTaken: a cluster bus port another process binds between FreePort
// and the server's start (as happened in CI) makes that Redis exit; the start tries again on other ports
// instead of failing the test that wanted a Redis.
func TestRedisStartsOnOtherPortsWhenOneIsTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	takenPort := taken.Addr().(*net.TCPAddr).Port
	dir := t.TempDir()
	var buses []int
	p, err := startRedisFree(dir, func() ([]string, error) {
		bus := takenPort
		if len(buses) > 0 {
			if bus, err = FreePort(); err != nil {
				return nil, err
			}
		}
		buses = append(buses, bus)
		return []string{"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"),
			"--cluster-port", strconv.Itoa(bus)}, nil
	})
	if err != nil {
		t.Fatalf("no Redis after %d attempts: %v", len(buses), err)
	}
	defer p.Stop()
	if len(buses) != 2 || buses[0] != takenPort {
		t.Fatalf("bus ports tried %v, want the taken %d and then another", buses, takenPort)
	}
	if pong, err := Command(p.Port, "PING"); err != nil || pong != "PONG" {
		t.Fatalf("PING: %q %v", pong, err)
	}
}

// TestRedisOnAPortAnotherRedisHoldsIsNotTakenForOurs: another test binary's Redis took the port FreePort
// gave us (as in a fresh-clone make test: a Redis Cluster node "not configured as a cluster node"). Ours
// exits; the other answers PING on the port; the start must see that the answer is not from its own
// process and report the exit (so startRedisFree tries other ports), not hand the test the other's server.
// Then a start on free ports succeeds with a server that is its own.
func TestRedisOnAPortAnotherRedisHoldsIsNotTakenForOurs(t *testing.T) {
	other := MustRedis(t)
	p, err := startRedisOn(t.TempDir(), other.Port, "--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(t.TempDir(), "nodes.conf"))
	if err == nil {
		p.Stop()
		t.Fatalf("a start on port %d, held by another Redis, returned a server", other.Port)
	}
	if !errors.Is(err, errExited) {
		t.Fatalf("want an exit (so the start tries other ports), got %v", err)
	}
	q, err := startRedisFree(t.TempDir(), func() ([]string, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	if !q.listensOn(q.Port) || q.listensOn(other.Port) {
		t.Fatalf("ours on %d listens there: %v; on the other's %d: %v", q.Port, q.listensOn(q.Port), other.Port, q.listensOn(other.Port))
	}
}

// TestFreePortBelowTheEphemeralRange: FreePort's ports cannot be an outgoing connection's source port,
// and one process never gets the same port twice.
func TestFreePortBelowTheEphemeralRange(t *testing.T) {
	lo, hi := portRange()
	seen := map[int]bool{}
	for range 200 {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if p < lo || p >= hi {
			t.Fatalf("port %d outside [%d, %d)", p, lo, hi)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
}

// TestFreePortIsClaimedAcrossProcesses: a port FreePort hands out is locked for the process's life (as
// another test binary, opening the same lock file, sees it), and a port another process holds the lock
// of is never handed out.
func TestFreePortIsClaimedAcrossProcesses(t *testing.T) {
	p, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	lock := func(port int) (*os.File, error) {
		f, err := os.OpenFile(filepath.Join(os.TempDir(), "shariah-testsvc-ports", strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	if f, err := lock(p); err == nil {
		f.Close()
		t.Fatalf("port %d, handed out, is not locked", p)
	}
	// Another process's claim: lock the next ports FreePort would try, then ask for one.
	var held []*os.File
	defer func() {
		for _, f := range held {
			f.Close()
		}
	}()
	ports.mu.Lock()
	next := ports.next
	ports.mu.Unlock()
	locked := map[int]bool{}
	for q := next; q < next+5 && q < ports.hi; q++ {
		if f, err := lock(q); err == nil {
			held = append(held, f)
			locked[q] = true
		}
	}
	q, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	if locked[q] {
		t.Fatalf("FreePort handed out %d, claimed by another process", q)
	}
}
