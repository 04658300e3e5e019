package jobs_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/shariah-screen/shariah/jobs"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/webhooks"
)

// childWorkerEnv, when set to a Redis URL, makes the test binary a webhook worker process and nothing
// else (TestWorkerKilledMidDeliveryLosesNothing starts one and kills it with SIGKILL).
const childWorkerEnv = "JOBS_TEST_WEBHOOK_WORKER_REDIS"

func TestMain(m *testing.M) {
	if url := os.Getenv(childWorkerEnv); url != "" {
		if err := runChildWorker(url); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

// runChildWorker runs a webhook worker on the Redis at url, delivering to loopback receivers, until
// the process is killed.
func runChildWorker(url string) error {
	rc, err := sredis.Open(url)
	if err != nil {
		return err
	}
	tg, err := webhooks.ParseAllow("127.0.0.1/32")
	if err != nil {
		return err
	}
	svc := &webhooks.Service{Store: sredis.NewWebhookStore(rc), Targets: tg, Sender: &webhooks.Sender{Targets: tg}, Log: quiet}
	srv, mux, err := jobs.NewWorkerWith(url, false, jobs.WorkerOptions{Concurrency: 1}, quiet)
	if err != nil {
		return err
	}
	jobs.RegisterWebhooks(mux, svc)
	if err := srv.Start(mux); err != nil {
		return err
	}
	<-context.Background().Done() // until SIGKILL
	return nil
}
