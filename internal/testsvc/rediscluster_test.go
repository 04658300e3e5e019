package testsvc

import (
	"context"
	"testing"
	"time"
)

// TestRedisClusterFailover: three masters with a replica each; a killed master's replica takes its
// slots over and the cluster is ok again.
func TestRedisClusterFailover(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a six-node cluster")
	}
	c := MustRedisClusterReplicated(t)
	if len(c.Nodes) != 6 {
		t.Fatalf("%d nodes", len(c.Nodes))
	}
	if _, err := Command(c.Nodes[0].Port, "PING"); err != nil {
		t.Fatal(err)
	}
	m, err := c.MasterOf("shr:key:{abc}")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.KillMaster(m); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	promoted, err := c.WaitFailover(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	now, err := c.MasterOf("shr:key:{abc}")
	if err != nil || now != promoted || now == m {
		t.Fatalf("master of the key after the failover: %v (promoted %d) %v", now, promoted.Port, err)
	}
	t.Logf("replica %d took over from master %d in %v", promoted.Port, m.Port, time.Since(killed).Round(time.Millisecond))
}
