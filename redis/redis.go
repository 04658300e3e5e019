// Package redis is the only package that knows Redis key names, TTLs and Lua scripts. It implements the
// domain's store interfaces with rueidis. Every key a script touches shares a cluster hash tag, so the
// same scripts run on a single Redis and on Redis Cluster.
package redis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/redis/rueidis"
)

// Open connects to the Redis at url (redis://, rediss://; a cluster is detected by rueidis, and
// further seed addresses may be given as ?addr=host:port). A call given a request's context
// (WithCallTimeout) gets that request's call deadline.
func Open(url string) (rueidis.Client, error) {
	opt, err := rueidis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	opt.ConnWriteTimeout = 5 * time.Second
	// rueidis retries a read-only command (a cached key record or reference read) on a broken
	// connection, by default until Redis answers: a request would hang through an outage. A few quick
	// retries ride over a reconnect; past them the caller gets the error (503) at once.
	opt.RetryDelay = func(attempts int, _ rueidis.Completed, _ error) time.Duration {
		if attempts >= 5 {
			return -1
		}
		return time.Millisecond << attempts
	}
	// Every invalidation rueidis receives (and every connection it loses) reaches the memo of cached
	// reads too (read_memo.go).
	memo := newReadMemo(readMemoBytes)
	opt.OnInvalidations = memo.invalidate
	c, err := rueidis.NewClient(opt)
	if err != nil {
		return nil, fmt.Errorf("no Redis answers at %s: %w", strings.Join(opt.InitAddress, ", "), err)
	}
	return boundedClient{Client: c, memo: memo}, nil
}

// Unavailable reports an error of a Redis that cannot serve for a while: a transport failure (refused,
// reset or closed connection, a timeout) or a Redis Cluster's CLUSTERDOWN, TRYAGAIN, LOADING or
// MASTERDOWN answer (a master lost and its replica not yet promoted, a slot moving, a node loading its
// data). rueidis retries these a few times (Open); past them the caller has the error, and the same
// command succeeds once Redis is back. It says nothing about the data.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var re *rueidis.RedisError
	if errors.As(err, &re) {
		return re.IsClusterDown() || re.IsTryAgain() || re.IsLoading() || strings.HasPrefix(re.Error(), "MASTERDOWN")
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, rueidis.ErrClosing)
}

// CheckCluster checks, when c is on a Redis Cluster, that every node that answers reports
// cluster_state:ok: a cluster in state fail (slots without a live master) refuses every command, so a
// process should not start on it. A single Redis passes.
func CheckCluster(ctx context.Context, c rueidis.Client) error {
	if !IsCluster(c) {
		return nil
	}
	nodes := c.Nodes()
	addrs := make([]string, 0, len(nodes))
	for a := range nodes {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	answered := 0
	var lastErr error
	for _, a := range addrs {
		s, err := nodes[a].Do(ctx, c.B().ClusterInfo().Build()).ToString()
		if err != nil {
			lastErr = err
			continue
		}
		answered++
		info := map[string]string{}
		// RESP3 answers a verbatim string; its "txt:" format may come with the text
		for _, line := range strings.Split(strings.TrimPrefix(s, "txt:"), "\n") {
			if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
				info[k] = v
			}
		}
		if st := info["cluster_state"]; st != "ok" {
			return fmt.Errorf("the Redis Cluster is in state %s (node %s: %s of 16384 slots served, %s failing): every slot needs a live master",
				st, a, info["cluster_slots_ok"], info["cluster_slots_fail"])
		}
	}
	if answered == 0 {
		return fmt.Errorf("no node of the Redis Cluster answers CLUSTER INFO: %w", lastErr)
	}
	return nil
}

// IsCluster reports whether the client is on a Redis Cluster: rueidis asks the servers of the URL when
// it connects (CLUSTER SHARDS), and takes a single server when the only address given answers that it
// has no cluster support. Everything else that connects to the same URL (the asynq queue and workers)
// follows this answer, so the service never mixes the two modes.
func IsCluster(c rueidis.Client) bool { return c.Mode() == rueidis.ClientModeCluster }

// Ping checks that Redis serves: a single Redis answers PING; every node of a Redis Cluster that
// answers reports cluster_state:ok (CheckCluster: a node of a cluster in state fail still answers
// PING, but refuses every key).
func Ping(ctx context.Context, c rueidis.Client) error {
	if IsCluster(c) {
		return CheckCluster(ctx, c)
	}
	return c.Do(ctx, c.B().Ping().Build()).Error()
}

// meterTTL keeps a period's meter until 62 days after the period ends, so the previous month's figures
// stay readable during the next one.
func meterTTL(end, now time.Time) int64 {
	return int64(end.Sub(now).Seconds()) + 62*24*3600
}
