package jobs

import (
	"fmt"

	"github.com/hibiken/asynq"
	"github.com/redis/rueidis"
)

// RedisOpt is asynq's connection to the service's Redis. url is SHARIAH_REDIS_URL, read by the parser
// the rest of the service uses (rueidis.ParseURL: redis://, rediss://, unix://; extra seed addresses as
// ?addr=host:port); cluster says whether it names a Redis Cluster. asynq cannot tell by itself (its own
// URL parser has no cluster mode), so the caller passes what rueidis found when it opened the same URL
// (redis.IsCluster): the queue, the workers and the stores then never disagree about the deployment.
// On a cluster every address of the URL seeds asynq's cluster client (asynq.RedisClusterClientOpt),
// which follows MOVED redirects and a failover by itself; asynq's keys carry the queue's hash tag, so
// its scripts run in one slot.
func RedisOpt(url string, cluster bool) (asynq.RedisConnOpt, error) {
	o, err := rueidis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	if cluster {
		if o.SelectDB != 0 {
			return nil, fmt.Errorf("redis url: a Redis Cluster has only database 0, not %d", o.SelectDB)
		}
		return asynq.RedisClusterClientOpt{Addrs: o.InitAddress, Username: o.Username, Password: o.Password,
			DialTimeout: o.Dialer.Timeout, TLSConfig: o.TLSConfig}, nil
	}
	network := "tcp"
	if o.DialCtxFn != nil { // rueidis dials a unix:// URL's socket path with its own dialer
		network = "unix"
	}
	return asynq.RedisClientOpt{Network: network, Addr: o.InitAddress[0], Username: o.Username, Password: o.Password,
		DB: o.SelectDB, DialTimeout: o.Dialer.Timeout, TLSConfig: o.TLSConfig}, nil
}
