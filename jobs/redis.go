package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// RedisOpt is asynq's connection to the service's Redis. url is SHARIAH_REDIS_URL, read by the parser
// the rest of the service uses (rueidis.ParseURL: redis://, rediss://, unix://; extra seed addresses as
// ?addr=host:port); cluster says whether it names a Redis Cluster. asynq cannot tell by itself (its own
// URL parser has no cluster mode), so the caller passes what rueidis found when it opened the same URL
// (redis.IsCluster): the queue, the workers and the stores then never disagree about the deployment.
// On a cluster every address of the URL seeds asynq's cluster client (ClusterOpt); asynq's keys carry
// the queue's hash tag, so its scripts run in one slot.
func RedisOpt(url string, cluster bool) (asynq.RedisConnOpt, error) {
	o, err := rueidis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	if cluster {
		if o.SelectDB != 0 {
			return nil, fmt.Errorf("redis url: a Redis Cluster has only database 0, not %d", o.SelectDB)
		}
		return ClusterOpt{RedisClusterClientOpt: asynq.RedisClusterClientOpt{Addrs: o.InitAddress, Username: o.Username, Password: o.Password,
			DialTimeout: o.Dialer.Timeout, TLSConfig: o.TLSConfig}}, nil
	}
	network := "tcp"
	if o.DialCtxFn != nil { // rueidis dials a unix:// URL's socket path with its own dialer
		network = "unix"
	}
	return asynq.RedisClientOpt{Network: network, Addr: o.InitAddress[0], Username: o.Username, Password: o.Password,
		DB: o.SelectDB, DialTimeout: o.Dialer.Timeout, TLSConfig: o.TLSConfig}, nil
}

// ClusterOpt is asynq's cluster client (go-redis's ClusterClient, as asynq.RedisClusterClientOpt makes
// it) that also reloads the cluster's slot map when a command fails to reach a node or the cluster
// answers CLUSTERDOWN, and retries a command that was surely not run (the node could not be dialled,
// or the cluster refused it as down) against the reloaded map for up to notSentRetryFor. go-redis by
// itself reloads the map only on a MOVED answer or when it is 10 s old: after a master dies, the queue
// would keep sending that master's slots to the dead address until then, though its replica took over
// within seconds; and its own few retries of a command (about 50 ms) end before a reload it throttled
// (one every 200 ms, the one before the takeover finding the old map) can find the new master. With
// both, the first enqueue after a takeover succeeds (TestEnqueueRightAfterFailover).
//
// With ContextDeadlines, a command's context deadline bounds its reads and writes (go-redis's
// ContextTimeoutEnabled; otherwise only its 3 s read timeout does, per attempt): the queue's client
// sets it, so an enqueue for a request keeps the request's Redis call timeout (redis.Bound). The
// workers' client does not: asynq's own contexts there were not written for it.
type ClusterOpt struct {
	asynq.RedisClusterClientOpt
	ContextDeadlines bool
}

// notSentRetryFor bounds the retries of a command not run (ClusterOpt): a failover's gap is a few
// seconds; a request waits for this long at most before its 503, and a command sent just after the
// takeover is not refused.
const notSentRetryFor = time.Second

// MakeRedisClient implements asynq.RedisConnOpt.
func (o ClusterOpt) MakeRedisClient() any {
	a := o.RedisClusterClientOpt
	// the options asynq.RedisClusterClientOpt.MakeRedisClient gives (v0.26.0), and ContextDeadlines
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: a.Addrs, MaxRedirects: a.MaxRedirects, Username: a.Username,
		Password: a.Password, DialTimeout: a.DialTimeout, ReadTimeout: a.ReadTimeout, WriteTimeout: a.WriteTimeout,
		TLSConfig: a.TLSConfig, ContextTimeoutEnabled: o.ContextDeadlines})
	c.AddHook(reloadHook{c: c, retry: true})
	// a node that cannot be dialled: reloaded while go-redis still retries the command (its retries
	// then find the slot's new master)
	c.OnNewNode(func(n *redis.Client) { n.AddHook(reloadHook{c: c}) })
	return c
}

// reloadHook asks its cluster client to reload the slot map after a command failed for want of a node;
// on the cluster client itself (retry), it also retries a command that was not run (notSent).
type reloadHook struct {
	c     *redis.ClusterClient
	retry bool
}

func (h reloadHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		if err != nil && ctx.Err() == nil {
			h.c.ReloadState(ctx)
		}
		return conn, err
	}
}

func (h reloadHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if h.retry {
			for until := time.Now().Add(notSentRetryFor); notSent(err) && time.Now().Before(until); {
				h.c.ReloadState(ctx)
				select {
				case <-ctx.Done():
					return err
				case <-time.After(50 * time.Millisecond):
				}
				err = next(ctx, cmd)
			}
		}
		if nodeLost(err) {
			h.c.ReloadState(ctx)
		}
		return err
	}
}

func (h reloadHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		if nodeLost(err) {
			h.c.ReloadState(ctx)
		}
		return err
	}
}

// nodeLost reports a failure to reach a node (refused, reset, timed out) or a cluster that is down.
func nodeLost(err error) bool {
	if err == nil || errors.Is(err, redis.Nil) || errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || strings.HasPrefix(err.Error(), "CLUSTERDOWN")
}

// notSent reports an error after which the command surely did not run: its node could not be
// dialled, or the cluster refused it (CLUSTERDOWN: a slot without a master; TRYAGAIN). A reset or a
// timeout is not: the command may have run, and a retry could run it twice.
func notSent(err error) bool {
	if err == nil {
		return false
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return true
	}
	return strings.HasPrefix(err.Error(), "CLUSTERDOWN") || strings.HasPrefix(err.Error(), "TRYAGAIN")
}
