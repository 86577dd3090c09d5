package cli

import (
	"syscall"
	"testing"
	"time"
)

// A closed terminal (SIGHUP) drains like SIGTERM instead of killing the
// process: without the handler this test's own process would die.
func TestSIGHUPStartsTheSameGracefulDrainAsSIGTERM(t *testing.T) {
	ctx, stop := signalContext()
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGHUP did not end the serving context")
	}
}
