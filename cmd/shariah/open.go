package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/app"
	sredis "github.com/shariah-screen/shariah/redis"
)

// open connects to the Redis and ClickHouse of the configuration and composes the services over them
// (app.Compose, the composition the edge's and MCP's tests serve from too).
func open(e *env) (*app.Services, error) {
	rc, err := openRedis(e)
	if err != nil {
		return nil, err
	}
	db, err := openClickHouse(e)
	if err != nil {
		rc.Close()
		return nil, err
	}
	if err := checkCluster(e, db); err != nil {
		db.Close()
		rc.Close()
		return nil, err
	}
	svc, err := app.Compose(e.Env, app.Clients{Redis: rc, ClickHouse: db})
	if err != nil {
		db.Close()
		rc.Close()
		return nil, err
	}
	return svc, nil
}

// openRedis opens the Redis of SHARIAH_REDIS_URL (a single server or a Redis Cluster, as rueidis finds
// it) and refuses a cluster in state fail: a process does not start on a Redis it cannot use, and the
// error names the setting. Once running, a Redis that goes away (or a cluster that fails) makes the
// metered routes answer 503 until it is back.
func openRedis(e *env) (rueidis.Client, error) {
	rc, err := sredis.Open(e.Config.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("SHARIAH_REDIS_URL: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := sredis.CheckCluster(ctx, rc); err != nil {
		rc.Close()
		return nil, fmt.Errorf("SHARIAH_REDIS_URL: %w", err)
	}
	return rc, nil
}

// openClickHouse opens the ClickHouse of the configuration, in cluster mode when SHARIAH_CLICKHOUSE_CLUSTER
// names one.
func openClickHouse(e *env) (*analytics.DB, error) {
	db, err := analytics.Open(e.Config.ClickHouseURL)
	if err != nil {
		return nil, err
	}
	db.Cluster = e.Config.ClickHouseCluster
	return db, nil
}

// checkCluster refuses to start when the ClickHouse answers without the cluster SHARIAH_CLICKHOUSE_CLUSTER
// names. A ClickHouse that does not answer is no reason not to start: the process runs as it does when
// ClickHouse goes away later (usage held in the spool, usage reads failing) and a warning says the
// setting is unchecked.
func checkCluster(e *env, db *analytics.DB) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := db.CheckCluster(ctx)
	if errors.Is(err, analytics.ErrUnknownCluster) {
		return fmt.Errorf("SHARIAH_CLICKHOUSE_CLUSTER: %w", err)
	}
	if err != nil {
		e.Log.Warn("ClickHouse did not answer: SHARIAH_CLICKHOUSE_CLUSTER is not checked", "cluster", db.Cluster, "error", err.Error())
	}
	return nil
}

// closeAll releases the services and then the clients open opened, once every actor
// has returned.
func closeAll(s *app.Services) {
	s.Close()
	s.ClickHouse.Close()
	s.Redis.Close()
}
