// Package testsvc starts real Redis and ClickHouse servers for tests, on free loopback ports, with their
// data in temporary directories, and stops them afterwards. Tests never touch a server they did not start.
//
// Tests call the Must helpers (must.go): MustRedis, MustRedisCluster and MustRedisClusterReplicated
// (rediscluster.go: masters with replicas; a master killed and its replica's takeover awaited),
// MustClickHouse and MustClickHouseCluster (a ZooKeeper and replicated ClickHouse servers, cluster.go) start servers of
// the test's own, stop them when the test ends and fail the test if they cannot start; ClickHouseDB
// and ClickHouseClusterDB give a test a database of its own on one ClickHouse (or one two-replica
// cluster) the package's tests share (TestMain calls Main). The error-returning Start functions are
// for a TestMain that shares one server among a package's tests.
// internal/redistest adds a client on the Redis and the default data pack.
package testsvc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// FreePort returns a loopback TCP port that was free a moment ago. It picks below the kernel's
// ephemeral range (ip_local_port_range), so the port cannot be taken as the source port of an outgoing
// connection between FreePort and the server's bind (a test binary opens thousands of those; one did
// take a Redis Cluster bus port in CI), never hands out the same port twice in one process, and never one
// another running test binary was handed (claimPort). Another program can still bind it in that moment:
// the Start functions retry on other ports when a server exits before it serves (onFreePorts), and a
// server counts as started only when its own process holds its ports (listensOn).
func FreePort() (int, error) {
	ports.mu.Lock()
	defer ports.mu.Unlock()
	if ports.given == nil {
		ports.given = map[int]bool{}
		ports.lo, ports.hi = portRange()
		ports.next = ports.lo + rand.IntN(ports.hi-ports.lo)
	}
	for range ports.hi - ports.lo {
		p := ports.next
		ports.next++
		if ports.next >= ports.hi {
			ports.next = ports.lo
		}
		if ports.given[p] || !claimPort(p) {
			continue
		}
		ports.given[p] = true
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		l.Close()
		return p, nil
	}
	// every port below the ephemeral range tried: let the kernel choose
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// claimPort takes the port for this process among every test binary of the machine that uses FreePort:
// an exclusive flock on a file named after the port, held (its descriptor kept open) until the process
// ends, when the kernel releases it; so two test binaries running at once (make test runs the packages
// in parallel) never hand out the same port. False when another live process holds it. Where the lock
// directory cannot be made, every port counts as claimed (the retries on other ports remain).
func claimPort(port int) bool {
	dir := filepath.Join(os.TempDir(), "shariah-testsvc-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return true
	}
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return true
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return false
	}
	ports.claims = append(ports.claims, f) // held for the process's life
	return true
}

var ports struct {
	mu           sync.Mutex
	given        map[int]bool
	lo, hi, next int
	claims       []*os.File
}

// portRange is the range FreePort picks from: from 20000 up to the start of the ephemeral range (32768
// when /proc does not say).
func portRange() (lo, hi int) {
	lo, hi = 20000, 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if start, err := strconv.Atoi(f[0]); err == nil && start > 1024+1000 {
				hi = start
				if lo >= hi-1000 {
					lo = hi - 1000
				}
			}
		}
	}
	return lo, hi
}

// errExited: a server ended before it served, most often because a port it was to bind had been taken
// after FreePort (by another test binary), so a start on other ports may succeed.
var errExited = errors.New("exited before it served")

// onFreePorts runs start (which takes its ports from FreePort) until a server serves, up to 5 times when
// the server exited before serving.
func onFreePorts(start func() (*Proc, error)) (*Proc, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var p *Proc
		if p, err = start(); !errors.Is(err, errExited) {
			return p, err
		}
	}
	return nil, err
}

// Proc is a server process started for tests.
type Proc struct {
	cmd   *exec.Cmd
	Port  int
	Dir   string
	out   *bytes.Buffer
	name  string
	args  []string
	extra []string // a Redis's extra options, kept by RestartRedis
	// ready waits until the server serves (nil: until its port accepts connections).
	ready func(ctx context.Context, p *Proc) error
}

// Stop ends the process (SIGTERM, then SIGKILL after 5 s).
func (p *Proc) Stop() {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
	p.cmd = nil
}

// Kill ends the process at once (SIGKILL), as a crash would.
func (p *Proc) Kill() {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	p.cmd = nil
}

func start(name string, args []string, dir string) (*Proc, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("%s not installed (scripts/install-services.sh installs it): %w", name, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	// Own process group, and die with the test binary (Linux), so no server outlives its test run.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if runtime.GOOS == "linux" {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Proc{cmd: cmd, Dir: dir, out: out, name: name, args: args}, nil
}

// Signal sends a signal to the server (SIGSTOP hangs it, SIGCONT resumes it).
func (p *Proc) Signal(sig syscall.Signal) error {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return fmt.Errorf("not running")
	}
	return p.cmd.Process.Signal(sig)
}

// Start starts a stopped server again with the same arguments, port and data directory (a
// ClickHouse keeps its data) and waits until it accepts connections.
func (p *Proc) Start() error {
	if p.cmd != nil {
		return fmt.Errorf("%s is running", p.name)
	}
	np, err := start(p.name, p.args, p.Dir)
	if err != nil {
		return err
	}
	np.Port, np.ready = p.Port, p.ready
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	wait := func(ctx context.Context, p *Proc) error { return waitTCP(ctx, p.Port) }
	if p.ready != nil {
		wait = p.ready
	}
	if err := wait(ctx, np); err != nil {
		np.Kill()
		return fmt.Errorf("%w\n%s", err, np.out.String())
	}
	*p = *np
	return nil
}

func waitTCP(ctx context.Context, port int) error {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s never accepted connections: %w", addr, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// StartRedis starts redis-server on a free loopback port without persistence.
func StartRedis(dir string, extra ...string) (*Proc, error) {
	return startRedisFree(dir, func() ([]string, error) { return extra, nil })
}

// startRedisFree starts redis-server on a free port with the options opts gives, and when a port was
// taken before the server could bind it, tries again on other ports (opts is asked again, so options
// naming ports of their own, such as a cluster bus port, take new ones too).
func startRedisFree(dir string, opts func() ([]string, error)) (*Proc, error) {
	return onFreePorts(func() (*Proc, error) {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		extra, err := opts()
		if err != nil {
			return nil, err
		}
		return startRedisOn(dir, port, extra...)
	})
}

func startRedisOn(dir string, port int, extra ...string) (*Proc, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	args := append([]string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no", "--protected-mode", "no"}, extra...)
	p, err := start("redis-server", args, dir)
	if err != nil {
		return nil, err
	}
	p.Port, p.extra, p.ready = port, extra, redisReady
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.ready(ctx, p); err != nil {
		p.Kill()
		return nil, fmt.Errorf("%w\n%s", err, p.out.String())
	}
	return p, nil
}

// redisReady waits until the Redis answers PING and holds its ports itself, and fails at once when it has
// exited instead. A port that accepts connections is not enough: a Redis binds its client port before its
// cluster bus port and exits when the bus port is taken; and the PING can be answered by another test
// binary's Redis that took the port after FreePort (seen once in a fresh-clone make test: a cluster node
// "not configured as a cluster node").
func redisReady(ctx context.Context, p *Proc) error {
	var last error
	for {
		pong, err := Command(p.Port, "PING")
		if err == nil && pong == "PONG" && p.listensOn(redisPorts(p)...) {
			return nil
		}
		last = err
		if p.exited() {
			return fmt.Errorf("redis-server on port %d %w", p.Port, errExited)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redis-server on port %d never answered PING (%v): %w", p.Port, last, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// redisPorts are the ports a Redis of ours must hold: its client port, and its cluster bus port when it
// has one.
func redisPorts(p *Proc) []int {
	ports := []int{p.Port}
	for i, a := range p.extra {
		if a == "--cluster-port" && i+1 < len(p.extra) {
			if bus, err := strconv.Atoi(p.extra[i+1]); err == nil {
				ports = append(ports, bus)
			}
		}
	}
	return ports
}

// Restart stops a Redis and starts it again on the same port, with the same options (its data is gone
// unless they ask for persistence).
func (p *Proc) RestartRedis() error {
	port, dir, extra := p.Port, p.Dir, p.extra
	p.Stop()
	np, err := startRedisOn(dir, port, extra...)
	if err != nil {
		return err
	}
	*p = *np
	return nil
}

// URL is the redis:// URL of a Redis started here.
func (p *Proc) RedisURL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", p.Port) }

// ModuleRoot returns the directory holding go.mod, found upwards from the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// StartClickHouse starts clickhouse-server with the project's config (scripts/clickhouse-config.xml) on
// free loopback ports and waits until it answers on the native port.
func StartClickHouse(dir string) (*Proc, error) {
	return onFreePorts(func() (*Proc, error) {
		tcp, err := FreePort()
		if err != nil {
			return nil, err
		}
		http, err := FreePort()
		if err != nil {
			return nil, err
		}
		return startClickHouse(dir, tcp, http, nil)
	})
}

// startClickHouse starts clickhouse-server on the given ports with the project's config and, when extra
// is not nil, extra as config.d/extra.xml (ClickHouse merges config.d/*.xml into the main config).
func startClickHouse(dir string, tcp, httpPort int, extra []byte) (*Proc, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	tmpl, err := os.ReadFile(filepath.Join(root, "scripts", "clickhouse-config.xml"))
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{"log", "data", "tmp", "user_files", "format_schemas", "config.d"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	conf := strings.NewReplacer("@DIR@", dir, "@TCP_PORT@", strconv.Itoa(tcp), "@HTTP_PORT@", strconv.Itoa(httpPort)).Replace(string(tmpl))
	confPath := filepath.Join(dir, "config.xml")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	if extra != nil {
		if err := os.WriteFile(filepath.Join(dir, "config.d", "extra.xml"), extra, 0o644); err != nil {
			return nil, err
		}
	}
	p, err := start("clickhouse-server", []string{"--config-file=" + confPath}, dir)
	if err != nil {
		return nil, err
	}
	p.Port, p.ready = tcp, pingClickHouse(httpPort)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := p.ready(ctx, p); err != nil {
		p.Kill()
		errlog, _ := os.ReadFile(filepath.Join(dir, "log", "clickhouse-server.err.log"))
		return nil, fmt.Errorf("%w\n%s\n%s", err, p.out.String(), errlog)
	}
	return p, nil
}

// pingClickHouse waits until the server answers /ping on its HTTP port. A server binds every port before
// it serves on any, so one that could not bind a port (taken by another process after FreePort) exits
// instead of answering, though its native port may already have accepted a connection.
func pingClickHouse(httpPort int) func(ctx context.Context, p *Proc) error {
	url := fmt.Sprintf("http://127.0.0.1:%d/ping", httpPort)
	client := &http.Client{Timeout: time.Second}
	return func(ctx context.Context, p *Proc) error {
		for {
			if resp, err := client.Get(url); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK && p.listensOn(p.Port, httpPort) {
					return nil
				}
			}
			if p.exited() {
				return fmt.Errorf("clickhouse-server on port %d %w", p.Port, errExited)
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("clickhouse-server never answered %s: %w", url, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

// exited tells whether the process has ended (a zombie not yet waited for counts; Linux only, false
// elsewhere).
func (p *Proc) exited() bool {
	if p.cmd == nil || p.cmd.Process == nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return runtime.GOOS == "linux"
	}
	// pid (comm) state ...: the state follows the last ')'.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] == 'Z' || stat[i+2] == 'X'
	}
	return false
}

// ClickHouseURL is the native-protocol URL of a ClickHouse started here, with the database.
func (p *Proc) ClickHouseURL(db string) string {
	return fmt.Sprintf("clickhouse://127.0.0.1:%d/%s", p.Port, db)
}

// listensOn reports whether the process itself holds a listening TCP socket on each of ports (Linux:
// its fds' socket inodes against /proc/net/tcp and tcp6; true elsewhere). A server that answers on a
// port is not always ours: another test binary's server can have taken the port FreePort gave us, and
// ours then exits (or is about to) after a probe was answered by the other.
func (p *Proc) listensOn(ports ...int) bool {
	if runtime.GOOS != "linux" {
		return true
	}
	if p.cmd == nil || p.cmd.Process == nil {
		return false
	}
	fdDir := fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid)
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		return false
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	held := map[int]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] {
				continue
			}
			if i := strings.LastIndexByte(f[1], ':'); i >= 0 {
				if port, err := strconv.ParseInt(f[1][i+1:], 16, 32); err == nil {
					held[int(port)] = true
				}
			}
		}
	}
	for _, port := range ports {
		if !held[port] {
			return false
		}
	}
	return true
}
