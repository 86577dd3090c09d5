package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

func secretsCommand(opts Options) *cobra.Command {
	c := &cobra.Command{
		Use: "secrets",
		Short: opts.secretsText("List, set and delete the secrets tasks and notification channels refer to",
			"List, set and delete this worker's secrets (its --secrets-file)"),
		Long: `A task's env ({secret: NAME}) and a notification channel (signingSecret, tokenSecret, …) refer to a
secret by name; its value is in a secrets file, a JSON object of name → value, mode 0600, owned by
the user the server runs as: qinglong-secrets.json in the data directory` +
			opts.clusterOnly(" (standalone, edge), or each worker's and replica's --secrets-file (cluster)") + `.
These commands edit it under a lock, replacing it in one rename: the next attempt that starts, and
the next notification sent, reads the new value; no restart. Run as root, they keep the file's owner
(the server's user); run as another user, they refuse a file that is not theirs (exit 5). A file
group or others may access, owned by another user than the server's, or not a JSON object of
strings is refused saying what to fix (exit 2). No value is ever printed or logged. With --api-url URL a server edits its own file over its API (a token of scope
admin in $QL_TOKEN).`,
	}
	if opts.secretsFileOnly {
		c.Long = `A task's env ({secret: NAME}) refers to a secret by name; the replicas never send values: this
worker reads them from its own secrets file (its --secrets-file), a JSON object of name → value,
mode 0600, owned by the user the worker runs as. These commands edit it under a lock, replacing it
in one rename: the next attempt that starts reads the new value; no restart. Run as root, they keep
the file's owner (the worker's user); run as another user, they refuse a file that is not theirs
(exit 5). A file group or others may access, owned by another user than the worker's, or not a JSON
object of strings is refused saying what to fix (exit 2). No value is ever printed or logged. Which tasks use a name is known where the definitions are:
'ql secrets list --database-url URL --secrets-file FILE' on a host with ql.`
	}
	c.AddCommand(secretsListCommand(opts), secretsSetCommand(opts), secretsDeleteCommand(opts))
	return c
}

// SecretsFileCommand is the secrets command of a worker host (ql-worker):
// list, set and delete in the file named by --secrets-file (or
// QL_SECRETS_FILE, as the worker itself reads it), without a database or
// a server to say which tasks use each name.
func SecretsFileCommand(binary string) *cobra.Command {
	return secretsCommand(Options{Binary: binary, secretsFileOnly: true})
}

// secretsText is a help text of the secrets commands: fileOnly where they
// work on --secrets-file alone, else full; BIN names the binary.
func (o Options) secretsText(full, fileOnly string) string {
	ex := full
	if o.secretsFileOnly {
		ex = fileOnly
	}
	return strings.ReplaceAll(ex, "BIN", o.Binary)
}

// auditedSecrets is text, after a space, where a secrets command edits a
// data directory's file, whose changes are recorded; "" for a worker's.
func (o Options) auditedSecrets(text string) string {
	if o.secretsFileOnly {
		return ""
	}
	return " " + text
}

func secretsListCommand(opts Options) *cobra.Command {
	var f secretsFlags
	var out string
	c := &cobra.Command{
		Use: "list",
		Short: opts.secretsText("List the secrets the file defines and the ones the definitions use, never a value",
			"List the secrets the file defines, never a value"),
		Long: opts.secretsText(`List every name the secrets file defines and every name the current definitions refer to: DEFINED
says yes, or missing for a name a task or channel uses that the file lacks (its Runs and notifications
fail with secret_unavailable until it is set), USED BY the tasks (project/task, the variable) and
channels that refer to it, an archived project's marked. With --secrets-file alone no database is
read: the names only. -o json prints what GET /api/v1/secrets answers.`,
			`List every name the worker's secrets file defines, never a value. Which tasks use each name, and
which names they use that the file lacks, is known where the definitions are: run
'ql secrets list --database-url URL --secrets-file FILE' on a host with ql. -o json prints the
listing as JSON.`),
		Example: opts.secretsText("  BIN secrets list --data-dir /var/lib/qinglong\n  BIN secrets list --secrets-file /etc/qinglong/secrets.json\n"+
			"  BIN secrets list --api-url https://ql.example.com:8080 -o json",
			"  BIN secrets list --secrets-file /etc/qinglong/worker-secrets.json"),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			s, done, err := f.open(cmd.Context(), opts, false)
			if err != nil {
				return err
			}
			defer done()
			l, err := s.list(cmd.Context())
			if err != nil {
				return err
			}
			return printListing(cmd, out, listing[apply.SecretEntry]{
				json:   l,
				header: []string{"NAME", "READABLE BY", "DEFINED", "USED BY"},
				items:  l.Secrets,
				row: func(e apply.SecretEntry) []string {
					defined := "yes"
					if !e.Defined {
						defined = "missing"
					}
					return []string{e.Name, readableBy(e.Project), defined, orDash(usesText(e.UsedBy))}
				},
				notes: listingNotes(l, s),
				none:  secretsNone(cmd, l),
			})
		},
	}
	addSecretsFlags(c, &f, opts, false)
	addOutputFlag(c, &out)
	return c
}

// secretsNone is what an empty secrets listing says: the file it read
// defines none (and nothing uses one, where the uses are known), and the
// command that sets one for the same file.
func secretsNone(cmd *cobra.Command, l apply.SecretListing) string {
	words := []string{"secrets", "set", "NAME"}
	if fl := cmd.Flags().Lookup("secrets-file"); fl != nil && onCommandLine(fl) {
		words = append(words, "--secrets-file", fl.Value.String())
	}
	unused := ""
	if l.UsesKnown {
		unused = ", and no task or channel uses one"
	}
	return NoneLine("secret", false, secretsFileWords(l)+" defines none"+unused+"; `"+suggest(cmd, words...)+"` sets one")
}

// listingNotes are the lines after a listing's table: what it could not
// say.
func listingNotes(l apply.SecretListing, s secretsStore) []string {
	var notes []string
	if !l.UsesKnown {
		why := "which tasks and channels use these names is not known"
		if ls, ok := s.(localSecrets); ok && ls.unknown != "" {
			why = ls.unknown
		}
		notes = append(notes, why)
	} else if !l.Complete {
		notes = append(notes, fmt.Sprintf("the uses are incomplete: only the first %d projects, and of each at most %d tasks, were read", apply.MaxSecretUseProjects, apply.MaxTasks))
	}
	return notes
}

// usesText names each use: project/task (env VAR), project channel NAME,
// an archived project's marked.
func usesText(uses []apply.SecretUse) string {
	parts := make([]string, 0, len(uses))
	for _, u := range uses {
		var s string
		if u.Kind == apply.SecretUseChannel {
			s = u.Project + " channel " + u.Name
		} else {
			s = u.Project + "/" + u.Name + " (env " + u.Env + ")"
		}
		if u.Archived {
			s += " [archived]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// usesOf is the entry of name in l.
func usesOf(l apply.SecretListing, name string) []apply.SecretUse {
	for _, e := range l.Secrets {
		if e.Name == name {
			return e.UsedBy
		}
	}
	return nil
}

func oneSecretArg(verb string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 1 && verb == "set" {
			return Usagef("secrets set takes the secret's name only: its value is never taken from the command line, where every user of the host reads it (ps); " +
				"pipe it on standard input, or type it at the prompt")
		}
		if len(args) != 1 {
			return Usagef("secrets %s takes one secret name", verb)
		}
		if err := process.CheckSecretName(args[0]); err != nil {
			return &UsageError{Err: err}
		}
		return nil
	}
}

func secretsSetCommand(opts Options) *cobra.Command {
	var f secretsFlags
	c := &cobra.Command{
		Use:   "set NAME",
		Short: "Set a secret's value, read from standard input (never the command line)",
		Long: `Set the secret NAME (letters, digits, '_', '.', '-': the names a task's env and a notification channel refer to),
creating or replacing it. A name PROJECT/NAME is that project's: only its tasks and notification
channels may name it (an apply naming it from another project is refused, and so is a Run); a name
without a slash is global, readable by every project's; a PROJECT no project is named yet is warned
of on stderr, naming the projects there are (the secret is set all the same). The value is asked twice without echo on a terminal, or read whole from
standard input when it is a pipe or a file, without one trailing line ending. It is never taken from
the command line, where every user of the host reads it (ps). It must hold 4 to ` + fmt.Sprint(process.MaxSecretLen) + ` bytes of UTF-8
text without NUL. The next attempt that starts reads it. Where the definitions are at hand the
command says which tasks and channels use the name.` + opts.auditedSecrets("A change of the data directory's file is\nrecorded in its audit trail (`audit list`), by name, never the value, so, like the commands that\nwrite the database, it is refused while this device's clock reads behind the newest time the\ndatabase recorded (--clock-behind-ok writes all the same)."),
		Example: opts.secretsText("  BIN secrets set api_token --data-dir /var/lib/qinglong\n  printf '%s' \"$TOKEN\" | BIN secrets set api_token\n"+
			"  BIN secrets set hook-key --secrets-file /etc/qinglong/secrets.json < key.txt",
			"  BIN secrets set api_token --secrets-file /etc/qinglong/worker-secrets.json\n"+
				"  printf '%s' \"$TOKEN\" | QL_SECRETS_FILE=/etc/qinglong/worker-secrets.json BIN secrets set api_token"),
		Args: oneSecretArg("set"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			s, done, err := f.open(cmd.Context(), opts, true)
			if err != nil {
				return err
			}
			defer done()
			value, err := readSecretValue(cmd, name)
			if err != nil {
				return err
			}
			if err := process.CheckSecretValue(name, value); err != nil {
				return err
			}
			replaced, err := s.set(cmd.Context(), name, value)
			if err != nil {
				return err
			}
			what := "created"
			if replaced {
				what = "replaced"
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "secret %s: %s\n", name, what)
			if p := task.SecretProject(name); p != "" {
				fmt.Fprintf(w, "readable by: project %s only (its tasks and notification channels; every other project's are refused)\n", p)
				if warning := secretAhead(cmd.Context(), s, p); warning != "" {
					fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+warning)
				}
			}
			if local, ok := s.(localSecrets); ok {
				if uid, other := local.file.OwnedByAnother(); other {
					fmt.Fprintf(w, "note: %s belongs to uid %d (the owner of its directory, or of the file before): only a server or worker running as uid %d may read it; "+
						"if the one that reads it runs as another user, chown the file to that user\n", local.file.Path, uid, uid)
				}
			}
			l, err := s.list(cmd.Context())
			if err != nil || !l.UsesKnown {
				// The value is stored; only the uses could not be told.
				return nil
			}
			if uses := usesOf(l, name); len(uses) > 0 {
				fmt.Fprintln(w, userText("used by: "+usesText(uses)))
			} else {
				fmt.Fprintf(w, "hint: no definition uses %s yet: refer to it from a task's env ({secret: %s}) or a notification channel's …Secret field\n", name, name)
			}
			return nil
		},
	}
	addSecretsFlags(c, &f, opts, true)
	return c
}

func secretsDeleteCommand(opts Options) *cobra.Command {
	var f secretsFlags
	c := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a secret from the secrets file",
		Long: `Delete the secret NAME from the secrets file. When the definitions still use it, a warning on
standard error names the uses: their Runs and notifications fail with secret_unavailable until it is
set again. A name the file does not define exits 1, naming those it does.` + opts.auditedSecrets("A delete from the data\ndirectory's file is recorded in its audit trail (`audit list`), and refused while this device's\nclock reads behind the newest time the database recorded, as secrets set is."),
		Example: opts.secretsText("  BIN secrets delete old_token --data-dir /var/lib/qinglong",
			"  BIN secrets delete old_token --secrets-file /etc/qinglong/worker-secrets.json"),
		Args: oneSecretArg("delete"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			s, done, err := f.open(cmd.Context(), opts, true)
			if err != nil {
				return err
			}
			defer done()
			existed, err := s.remove(cmd.Context(), name)
			if err != nil {
				return err
			}
			l, listErr := s.list(cmd.Context())
			if !existed {
				return notDefined(name, l, listErr)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "secret %s: deleted\n", name)
			if uses := usesOf(l, name); listErr == nil && len(uses) > 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), userText("warning: "+name+" is still used by "+usesText(uses)+
					": their Runs and notifications fail with secret_unavailable until it is set again"))
			}
			return nil
		},
	}
	addSecretsFlags(c, &f, opts, true)
	return c
}

// notDefined is the refusal of a delete of a name the file lacks, naming
// the ones it defines.
func notDefined(name string, l apply.SecretListing, listErr error) error {
	if listErr != nil {
		return qlerror.New(qlerror.NotFound, "secret %q is not defined; `ql secrets list` shows the names that are", name)
	}
	var defined []string
	for _, e := range l.Secrets {
		if e.Defined {
			defined = append(defined, e.Name)
		}
	}
	if len(defined) == 0 {
		return qlerror.New(qlerror.NotFound, "secret %q is not defined: %s defines none", name, secretsFileWords(l))
	}
	return qlerror.New(qlerror.NotFound, "secret %q is not defined: %s defines %s", name, secretsFileWords(l), strings.Join(defined, ", "))
}

// secretsFileWords names the secrets file l lists: by its path where the
// listing gives one, else (over the API, which does not) as the server's.
func secretsFileWords(l apply.SecretListing) string {
	if l.File == "" {
		return "the server's secrets file"
	}
	return "the secrets file " + l.File
}

// readableBy says whose tasks and channels may name a secret of the
// namespace of project ("" global), as the listing's READABLE BY says it.
func readableBy(project string) string {
	if project == "" {
		return "every project"
	}
	return "project " + project
}
