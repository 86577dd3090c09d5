package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// signalContext ends on SIGINT or SIGTERM, which start a graceful drain.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
