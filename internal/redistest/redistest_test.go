package redistest_test

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/internal/redistest"
	sredis "github.com/shariah-screen/shariah/redis"
)

// TestServersStopWithTheirTest: a Redis started in a subtest answers during it (with the default pack
// loaded) and no longer accepts connections once the subtest has ended.
func TestServersStopWithTheirTest(t *testing.T) {
	t.Parallel()
	var port int
	t.Run("inner", func(t *testing.T) {
		srv, rc := redistest.StartWithDefaultPack(t)
		port = srv.Port
		ctx := context.Background()
		assets, err := sredis.NewRefStore(rc).AllAssets(ctx)
		if err != nil || len(assets) == 0 {
			t.Fatalf("default pack assets: %d, %v", len(assets), err)
		}
		sukuk, err := sredis.NewSukukStore(rc).AllSukuk(ctx)
		if err != nil || len(sukuk) == 0 {
			t.Fatalf("default pack sukuk: %d, %v", len(sukuk), err)
		}
	})
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err == nil {
		c.Close()
		t.Fatalf("the subtest's Redis on port %d still accepts connections after the subtest", port)
	}
}
