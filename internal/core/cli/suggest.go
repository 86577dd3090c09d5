package cli

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/shellquote"
	"github.com/qinglong/qinglong/internal/core/triggerref"
)

// locationFlags choose where a command finds its database or server. A
// command the CLI tells the user to run next, pasted without them, would
// look in the default place instead: another database, or none.
var locationFlags = []string{"data-dir", "database-url", "api-url"}

// suggest is a command the CLI prints for the user to run next, as one
// line to paste into a shell: the binary, words (the command's path, its
// arguments and flags; each shell-quoted) and the location flags this
// invocation (cmd) was given on its command line, as locationOf says.
func suggest(cmd *cobra.Command, words ...string) string {
	return suggestSkipping(cmd, nil, words...)
}

// suggestOnTheDatabase is suggest of a command that reads the database
// itself and refuses --api-url (`export --all`): this invocation's
// --api-url is not repeated, for the command runs where that server's
// database is.
func suggestOnTheDatabase(cmd *cobra.Command, words ...string) string {
	return suggestSkipping(cmd, []string{"api-url"}, words...)
}

// suggestSkipping is suggest without the location flags of skip.
func suggestSkipping(cmd *cobra.Command, skip []string, words ...string) string {
	parts := []string{cmd.Root().Name()}
	for _, w := range words {
		parts = append(parts, shellquote.Quote(w))
	}
	return strings.Join(parts, " ") + locationOf(cmd, words, skip...)
}

// locationOf is what the command words names (its path and arguments)
// needs after it to reach what cmd reached: each location flag given on
// cmd's command line, but those of skip, when that command takes it and
// words do not give it already, with a space before each. A value from
// the environment is not repeated (the same shell still has it). A
// database URL is repeated without a password, which the command line
// refuses anyway (ps shows it to every user): the pasted command finds it
// where this one did, in a pgpass file or $PGPASSWORD.
func locationOf(cmd *cobra.Command, words []string, skip ...string) string {
	if cmd == nil {
		return ""
	}
	target, _, err := cmd.Root().Find(words)
	if err != nil || target == nil || !target.Runnable() {
		return ""
	}
	var b strings.Builder
	for _, name := range locationFlags {
		fl := cmd.Flags().Lookup(name)
		if fl == nil || !onCommandLine(fl) || target.Flags().Lookup(name) == nil || slices.Contains(words, "--"+name) || slices.Contains(skip, name) {
			continue
		}
		v := fl.Value.String()
		if name == "database-url" {
			v = withoutPassword(v)
		}
		b.WriteString(" --" + name + " " + shellquote.Quote(v))
	}
	return b.String()
}

// withoutPassword is a PostgreSQL URL with any password dropped, from its
// user part and its query; a URL that cannot be parsed becomes the
// variable that can hold it, never itself.
func withoutPassword(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "$" + EnvName("database-url")
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	if q := u.Query(); q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// quotedCommand is a command an error message tells the user to run, in
// backquotes: the binary's name, then its words.
var quotedCommand = regexp.MustCompile("`([a-z][a-z-]*) ([^`|]+)`")

// withLocation adds to each command err's message msg quotes (in
// backquotes, with the binary's name) the location flags of the
// invocation cmd, as suggest does for the commands the CLI words itself.
// An error found below the command tree (a store, a domain package, a
// server's answer) names a command without them, not knowing where this
// invocation looked; pasted as it was, that command would look elsewhere.
// A quoted choice of commands (`ql triggers pause|resume`) is left as it
// is, and a server's refusal of what it cannot do over its API names a
// command to run elsewhere, never again at its address (--api-url).
func withLocation(cmd *cobra.Command, binary, msg string, err error) string {
	if cmd == nil {
		return msg
	}
	var skip []string
	if qlerror.ReasonOf(err) == httpapi.RefusalNotOverTheAPI {
		skip = append(skip, "api-url")
	}
	return quotedCommand.ReplaceAllStringFunc(msg, func(q string) string {
		m := quotedCommand.FindStringSubmatch(q)
		if m[1] != binary {
			return q
		}
		return "`" + m[1] + " " + m[2] + locationOf(cmd, strings.Fields(m[2]), skip...) + "`"
	})
}

// disabledHint is err, when it refuses triggerID as disabled and the
// trigger itself is (not only its task), with the command that enables it
// named by the trigger's project and name and reaching this invocation's
// database or server: the refusal below the command tree knows neither,
// and names the trigger by its id. Any other error, or one whose trigger
// cannot be read back, is returned as it is.
func disabledHint(cmd *cobra.Command, r schedule.StatusReader, triggerID string, err error) error {
	if qlerror.ReasonOf(err) != schedule.RefusalTriggerDisabled {
		return err
	}
	if id, ok := qlerror.ParamsOf(err)["trigger"]; ok && id != triggerID {
		return err
	}
	t, ok, rerr := triggerref.ByID(cmd.Context(), r, "", triggerID)
	if rerr != nil || !ok || t.Enabled {
		return err
	}
	refusal := schedule.DisabledRefusal(t.Name, t.TriggerID, suggest(cmd, "triggers", "enable", qualified(t)))
	if strings.HasPrefix(err.Error(), serverSaid) {
		// Over --api-url the server refused it: said so, as every answer
		// of a server is.
		refusal.Msg = serverSaid + refusal.Msg
	}
	return refusal
}

// qualified is how a suggested command names trigger t: project/name,
// which no trigger of another project shares.
func qualified(t schedule.TriggerStatus) string {
	return t.ProjectName + "/" + t.Name
}

// asSuggested is msg, text found below the command tree that the CLI
// prints as its own (a refusal's words in a listing), with each command
// it quotes as the invocation cmd would paste it: named as this binary
// (asBinary) and with its location flags (withLocation).
func asSuggested(cmd *cobra.Command, msg string) string {
	bin := cmd.Root().Name()
	return withLocation(cmd, bin, asBinary(cmd.Root(), bin, msg), nil)
}
