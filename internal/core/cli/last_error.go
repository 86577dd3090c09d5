package cli

import (
	"context"
	"log/slog"

	"github.com/spf13/cobra"
)

// CodeServeFailed is the code of the line a server logs last when it ends
// with an error: why it stopped, or why it never started, and its exit code.
const CodeServeFailed = "serve.failed"

// lastErrorLog is the logger, and the code, a command that logs says its
// last error with.
type lastErrorLog struct {
	log  *slog.Logger
	code string
}

type lastErrorKey struct{}

// logLastError makes cmd's error, should it end with one, a line of log
// (in --log-format, with code) instead of a plain `ql: …` line on stderr:
// a log shipper parses every line of a server's stderr, and a plain last
// line, the one that says why it stopped, is the one it would drop.
func logLastError(cmd *cobra.Command, log *slog.Logger, code string) {
	cmd.SetContext(context.WithValue(cmd.Context(), lastErrorKey{}, lastErrorLog{log: log, code: code}))
}

// sayLastError logs msg, cmd's last error, on the logger logLastError gave
// cmd, and reports whether it had one. The line names the binary's version
// and commit: a server that refuses its database (one a newer build
// migrated, during a rollback) may never log another line, and the
// operator reading why it stopped must see which build refused.
func sayLastError(cmd *cobra.Command, msg string, exit int) bool {
	if cmd == nil || cmd.Context() == nil {
		return false
	}
	l, ok := cmd.Context().Value(lastErrorKey{}).(lastErrorLog)
	if !ok {
		return false
	}
	// The build goes first: the line ends with its code, error and exit
	// code, as a reader of a text log's tail expects.
	l.log.Error("stopped with an error", slog.String("version", Version), slog.String("commit", Commit()),
		slog.String("code", l.code), slog.String("error", msg), slog.Int("exit_code", exit))
	return true
}
