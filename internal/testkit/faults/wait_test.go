package faults

import (
	"testing"
	"time"
)

// waitFor polls cond until it holds, failing the test when limit passes
// first. what completes "timed out waiting for ...".
func waitFor(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(pollInterval)
	}
}
