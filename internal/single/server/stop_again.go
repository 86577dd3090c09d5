package server

import (
	"os"
	"os/signal"
	"time"
)

// CodeStopPending is the line a stop logs at each further stop signal
// while it drains: what it still waits for, until when, and what a
// SIGKILL would cost. Without it a second Ctrl-C says nothing, and the
// operator cannot tell a drain that ends by itself from a hang.
const CodeStopPending = "serve.stop_pending"

// stopPendingListed bounds the attempts one line names.
const stopPendingListed = 5

// sayStopPending logs, for each of cfg.StopSignals received until done
// closes, what the stop begun at begun still waits for. The stop is
// bounded (StopTimeout, then keepWait for unrecorded results), so a
// further signal changes nothing and is said so; only a SIGKILL cuts it
// short.
func (s *Server) sayStopPending(begun time.Time, done <-chan struct{}) {
	if len(s.cfg.StopSignals) == 0 {
		return
	}
	again := make(chan os.Signal, 1)
	signal.Notify(again, s.cfg.StopSignals...)
	go func() {
		defer signal.Stop(again)
		for {
			select {
			case <-done:
				return
			case sig := <-again:
				s.logStopPending(sig, begun)
			}
		}
	}()
}

func (s *Server) logStopPending(sig os.Signal, begun time.Time) {
	var running []string
	if s.disp != nil {
		running = s.disp.Running()
	}
	left := max(time.Until(begun.Add(s.cfg.StopTimeout+time.Second)), 0).Round(time.Millisecond)
	attrs := []any{"code", CodeStopPending, "signal", sig.String(), "running", len(running), "left_ms", left.Milliseconds(),
		"stop_timeout_ms", s.cfg.StopTimeout.Milliseconds()}
	if len(running) > 0 {
		attrs = append(attrs, "attempts", running[:min(len(running), stopPendingListed)])
		s.cfg.Logger.Warn("still stopping: waiting for the commands still running, which get SIGTERM at half of --stop-timeout and SIGKILL at three quarters, "+
			"so the stop ends by itself within left_ms; another signal changes nothing. "+
			"A SIGKILL of the server now would leave these commands running unsupervised and their results unrecorded: "+
			"the next start ends them and records their Runs lost", attrs...)
		return
	}
	s.cfg.Logger.Warn("still stopping: no command runs; waiting for the server's parts to stop (open HTTP requests, a notification being sent, "+
		"the database's close), within left_ms; another signal changes nothing. A SIGKILL of the server now loses nothing recorded: "+
		"a notification being sent is sent again by the next start", attrs...)
}
