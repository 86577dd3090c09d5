package cli

import (
	"context"
	"os"
	"os/signal"
	"slices"
	"syscall"
)

// drainSignals start a graceful drain. SIGHUP is among them because it is
// what a foreground `ql serve` or `ql worker` gets when its terminal or SSH
// session closes: left to its default it would kill the process at once,
// with no drain, leaving its commands running unsupervised.
var drainSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// DrainSignals are the signals that stop a server gracefully: one that
// drains answers each further one (what it still waits for).
func DrainSignals() []os.Signal { return slices.Clone(drainSignals) }

// signalContext ends on any of drainSignals.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), drainSignals...)
}
