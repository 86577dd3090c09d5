package process

import (
	"errors"
	"fmt"
	"time"

	"github.com/qinglong/qinglong/internal/core/plural"
)

// Why QingLong stopped a command: the causes the executors and the worker
// stop a command's context with, which the line that ends its log names
// (StoppedLine). They are written once, here, so that the console can say
// every one of them in another language (its stop notes), and a test
// there produces each from this package: a cause is named …Cause.
var (
	// CancelAskedCause: the command's run was asked to cancel.
	CancelAskedCause = errors.New("the run was asked to cancel")
	// ServerStoppingCause: the standalone or edge server stopped before
	// the command ended.
	ServerStoppingCause = errors.New("the server is stopping")
	// WorkerStoppingCause: the worker stopped (a drain that ran out of
	// time, a second stop signal) before the command ended.
	WorkerStoppingCause = errors.New("the worker is stopping")
	// LeaseLostCause: the worker could not renew the attempt's lease in
	// time.
	LeaseLostCause = errors.New("the lease could not be renewed in time")
	// DeclaredOverCause: the replica answered a renewal with the attempt
	// already over.
	DeclaredOverCause = errors.New("the replica declared the attempt over")
)

// TimeoutCause is why a command that ran out its timeout was stopped.
func TimeoutCause(timeout time.Duration) string {
	return fmt.Sprintf("its timeout of %s passed", timeout)
}

// StoppedLine ends the log of a command QingLong ended, after all of its
// output, so whoever reads the log learns that QingLong ended it, why and
// how. It is a marker line like the truncation marker, on a line of its
// own: after a newline when the output left a line open.
func StoppedLine(why string, how Ending, grace time.Duration, lineOpen bool) string {
	signals := map[Ending]string{
		EndedAlready:   "it had ended already",
		EndedOnTerm:    fmt.Sprintf("SIGTERM; it ended within the kill grace of %s", grace),
		EndedAfterKill: fmt.Sprintf("SIGTERM, then SIGKILL after the kill grace of %s", grace),
		EndedHardKill:  "SIGTERM, then SIGKILL without waiting out the kill grace",
	}[how]
	start := ""
	if lineOpen {
		start = "\n"
	}
	return fmt.Sprintf("%s[qinglong: the command was stopped: %s (%s)]\n", start, why, signals)
}

// LeftRunningLine ends the log of a command whose main process ended
// while n of the processes it started still ran (background jobs,
// daemons), which QingLong then ended (how): a Run ends with its main
// process, so whoever reads the log learns that they were cut short, by
// whom, and that a Run is no place for a service.
func LeftRunningLine(n int, how Ending, grace time.Duration, lineOpen bool) string {
	they, were := "they", "were"
	if n == 1 {
		they, were = "it", "was"
	}
	signals := map[Ending]string{
		EndedOnTerm:    fmt.Sprintf("SIGTERM; %s ended within the kill grace of %s", they, grace),
		EndedAfterKill: fmt.Sprintf("SIGTERM, then SIGKILL after the kill grace of %s", grace),
		EndedHardKill:  "SIGTERM, then SIGKILL without waiting out the kill grace",
	}[how]
	start := ""
	if lineOpen {
		start = "\n"
	}
	return fmt.Sprintf("%s[qinglong: the command's main process ended, leaving %s it started running; %s %s ended (%s): "+
		"a Run ends with its main process, so run a service under a service manager, not as a task]\n",
		start, plural.Count(n, "process", "processes"), they, were, signals)
}

// LostLine ends the log of a command whose server stopped without ending
// it (killed, or its machine stopped): the output stops wherever the
// server died, with no StoppedLine, and the next server's recovery, which
// records the attempt lost, adds this one, so whoever reads the log
// learns why it stops there and that nothing after it was captured.
func LostLine(lineOpen bool) string {
	start := ""
	if lineOpen {
		start = "\n"
	}
	return start + "[qinglong: the server stopped without ending the command (it was killed, or its machine stopped); output after this point, if any, was not captured, and the next server's recovery recorded the attempt lost]\n"
}
