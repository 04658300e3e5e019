package mcp_test

import (
	"os"
	"testing"

	"github.com/shariah-screen/shariah/internal/testsvc"
)

// TestMain stops the ClickHouse the drift tool's test starts (each test has a database of its own on it).
func TestMain(m *testing.M) { os.Exit(testsvc.Main(m)) }
