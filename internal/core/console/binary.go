package console

import (
	"regexp"
	"strings"
)

// sharedCommands are the commands of the tree every binary serving a
// console builds (internal/core/cli's root): the full ql binary and
// ql-edge alike (`db` for its check of the embedded database). What only
// the full binary has (`ql db roles` and `migrate`, `ql workers`,
// ql-worker) is named only on a cluster replica's pages, which ql serves,
// and keeps its name.
var sharedCommands = []string{"apply", "audit", "backup", "cron", "crontab", "db", "deps", "export", "import", "notifications", "projects", "retention", "runs", "scripts", "secrets", "serve", "subscriptions", "tokens", "triggers", "users", "version"}

// sharedCommand is "ql" starting one of sharedCommands where a sentence
// names a command to run: at its start, or after a space, a quote, a
// backquote or an opening parenthesis, in English ("with `ql apply`") and
// in Chinese ("用 `ql users create NAME --owner` 创建").
var sharedCommand = regexp.MustCompile("(^|[\\s`'\"(（“])ql (" + strings.Join(sharedCommands, "|") + ")\\b")

// asBinary is msg naming binary instead of ql in the commands it tells
// the user to run. The catalogues, and the errors built below the console
// (a store's refusal names `ql triggers enable NAME`), are shared by every
// binary and name ql; a user of ql-edge must be able to copy a command as
// the page shows it.
func asBinary(binary, msg string) string {
	if binary == "ql" {
		return msg
	}
	return sharedCommand.ReplaceAllString(msg, "${1}"+binary+" ${2}")
}

// named is msg as this console's binary names its commands (asBinary).
func (c *Console) named(msg string) string { return asBinary(c.cfg.Binary, msg) }

// errorText is err's message in language l (errorText), its commands
// named with this console's binary.
func (c *Console) errorText(l string, err error) string { return c.named(errorText(l, err)) }

// formError is err's message in language l as a form says it
// (formErrorText), its commands named with this console's binary.
func (c *Console) formError(l string, err error) string { return c.named(formErrorText(l, err)) }

// edge reports whether the edge binary serves this console: it serves no
// cluster, so no page names clusters or workers to its user.
func (c *Console) edge() bool { return c.cfg.Binary != "ql" }
