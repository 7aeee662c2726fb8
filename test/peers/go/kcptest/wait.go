package kcptest

import (
	"testing"
	"time"
)

// Eventually retries check every 20 ms until it returns nil; after timeout the test fails with check's last error.
func Eventually(t testing.TB, timeout time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still failing after %s: %v", timeout, err)
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("test ended while waiting: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
