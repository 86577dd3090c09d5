package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// drainSignals start a graceful drain. SIGHUP is among them because it is
// what a foreground `ql serve` or `ql worker` gets when its terminal or SSH
// session closes: left to its default it would kill the process at once,
// with no drain, leaving its commands running unsupervised.
var drainSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// signalContext ends on any of drainSignals.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), drainSignals...)
}
