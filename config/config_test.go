package config

import (
	"strings"
	"testing"
)

func TestLoadDefaults(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != ":8000" || c.MCPAddr != ":8001" {
		t.Fatalf("defaults: %q %q", c.HTTPAddr, c.MCPAddr)
	}
	ps, err := c.Plans()
	if err != nil {
		t.Fatal(err)
	}
	free, _ := ps.Lookup("free")
	if free.TokensPerMonth != 50 || !free.HardBlock {
		t.Fatalf("free plan %+v", free)
	}
}

func TestLoadReportsEveryProblemAtOnce(t *testing.T) {
	t.Setenv("SHARIAH_HTTP_ADDR", "nonsense")
	t.Setenv("SHARIAH_REDIS_URL", "http://x")
	t.Setenv("SHARIAH_CLICKHOUSE_URL", "clickhouse://h:9000/bad-name")
	t.Setenv("SHARIAH_DATA_DIR", "/does/not/exist")
	t.Setenv("SHARIAH_PLAN_PRO_PRICE_USD", "forty")
	t.Setenv("SHARIAH_PLAN_FREE_TOKENS", "-5")
	t.Setenv("SHARIAH_LOG_LEVEL", "loud")
	t.Setenv("SHARIAH_NEWS_SCHEDULE", "every so often")
	t.Setenv("SHARIAH_QUOTES_TOP", "0")
	t.Setenv("SHARIAH_SEC_RPS", "12")
	t.Setenv("SHARIAH_PRICES_URL", "https://prices.example.com/daily.csv")
	_, err := Load()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"SHARIAH_HTTP_ADDR", "SHARIAH_REDIS_URL", "SHARIAH_CLICKHOUSE_URL", "SHARIAH_DATA_DIR",
		"SHARIAH_PLAN_PRO_PRICE_USD", `plan "free"`, "SHARIAH_LOG_LEVEL", "SHARIAH_NEWS_SCHEDULE", "SHARIAH_QUOTES_TOP",
		"SHARIAH_SEC_RPS", "SHARIAH_PRICES_URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s:\n%v", want, err)
		}
	}
}
