// Package cmdname names the commands a message tells its reader to run
// after the binary serving it. The messages are built below the command
// tree (a store's refusal names `ql runs list`) and shared by every
// binary; the console and the API say them in the words of the binary
// that serves them, so that a user of ql-edge can copy a command as shown.
package cmdname

import (
	"regexp"
	"strings"
)

// Shared are the commands of the tree every binary serving a console and
// the API builds (internal/core/cli's root): the full ql binary and
// ql-edge alike (`db` for its check of the embedded database). What only
// the full binary has (`ql db roles` and `migrate`, `ql workers`,
// ql-worker) is named only by a cluster replica, which ql serves, and
// keeps its name.
var Shared = []string{"apply", "audit", "backup", "cron", "crontab", "db", "deps", "export", "import", "notifications", "projects", "retention", "runs", "scripts", "secrets", "serve", "subscriptions", "tokens", "triggers", "users", "version"}

// sharedCommand is "ql" starting one of Shared where a sentence names a
// command to run: at its start, or after a space, a quote, a backquote or
// an opening parenthesis, in English ("with `ql apply`") and in Chinese
// ("用 `ql users create NAME --owner` 创建").
var sharedCommand = regexp.MustCompile("(^|[\\s`'\"(（“])ql (" + strings.Join(Shared, "|") + ")\\b")

// As is msg naming binary instead of ql in the commands it tells the user
// to run; msg itself where binary is ql or not given.
func As(binary, msg string) string {
	if binary == "" || binary == "ql" {
		return msg
	}
	return sharedCommand.ReplaceAllString(msg, "${1}"+binary+" ${2}")
}
