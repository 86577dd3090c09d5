// Package cli is the `ql` command tree shared by the full and the edge
// binaries. Profile-specific pieces (PostgreSQL, the cluster replica) are
// injected through Options by the composition roots under cmd/, so the
// edge binary never links them.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Backend is an opened store as the read/apply commands need it.
type Backend struct {
	Catalog catalog.Service
	Runs    run.Reader
	// LastRuns reads the newest Run of each trigger `ql triggers list`
	// lists; a PermissionDenied error says the database role may not read
	// Runs (the cluster's admin role), and the listing says so instead.
	LastRuns run.LastReader
	Triggers schedule.StatusReader
	// ReadLog copies at most max bytes (max > 0) of an attempt's captured
	// output from offset to w and returns the offset after it and whether
	// the log was cut at its size cap; NotFound when the attempt has no
	// log yet.
	ReadLog func(ctx context.Context, attemptID string, offset, max int64, w io.Writer) (next int64, truncated bool, err error)
	// CancelRun cancels a run (see `ql runs cancel`) and returns it as it
	// is after the request, and what this request did to it; nil when the
	// profile cannot.
	CancelRun func(ctx context.Context, runID, actor string) (run.Run, run.CancelEffect, error)
	// Pause pauses and resumes triggers (`ql triggers pause/resume`); nil
	// when the profile cannot (a read-only open).
	Pause schedule.Pauser
	// Adopt starts schedules at a handed-over position (`apply
	// --adopt-state`); nil when the profile cannot (a read-only open).
	Adopt schedule.Adopter
	// ProjectPause pauses and resumes projects (`ql projects
	// pause/resume`); nil when the profile cannot.
	ProjectPause schedule.ProjectPauser
	// ProjectPauses reads a project's pause state (`ql projects show`);
	// nil where the database cannot say it, which then leaves it out.
	ProjectPauses schedule.ProjectPauseReader
	// ProjectDelete deletes archived projects (`ql projects delete`);
	// nil when the profile cannot.
	ProjectDelete project.Deleter
	// Detail reads one trigger with its occurrence ledger (`ql triggers
	// show`).
	Detail schedule.DetailReader
	// Manual admits Runs on request (`ql triggers run` and `ql triggers
	// backfill`); nil when the profile cannot (a read-only open).
	Manual schedule.Manual
	// Unattended says what would leave a Run just admitted (runID) waiting
	// for nothing to take it, for `triggers run` to tell; nil where the
	// profile cannot tell.
	Unattended func(ctx context.Context, runID string) (Unattended, error)
	// HandedOver reads the embedded database's handover mark; ok is false
	// when it has none. nil where no database is handed over (PostgreSQL,
	// a server's API).
	HandedOver func(ctx context.Context) (h Handover, ok bool, err error)
	// Tokens creates, lists and revokes API tokens (`ql tokens`); nil
	// when the profile cannot (a read-only open).
	Tokens apitoken.Manager
	// Users creates, lists, disables and deletes console accounts (`ql
	// users`); nil when the profile cannot (a read-only open).
	Users account.Manager
	// Notifications lists and retries the notification outbox (`ql
	// notifications`).
	Notifications notify.Manager
	// TryChannel sends a test message to a channel (`ql notifications
	// test`); nil when this process cannot read the secrets the server
	// sends with (the cluster's database commands).
	TryChannel TryChannel
	// Audit lists the audit trail (`ql audit list`); nil when the profile
	// cannot.
	Audit audit.Reader
	// Dependencies lists a single node's declared packages (`ql deps
	// list`), declares those an import brings, and, over a server's API,
	// adds and removes them; nil where the database keeps none
	// (PostgreSQL: the workers install their own).
	Dependencies deps.Manager
	// Record appends to the audit trail the record of a change made
	// outside the database (`ql secrets set` and `delete` on the data
	// directory's file); nil when the open cannot (read-only, PostgreSQL,
	// whose secrets files are each machine's own).
	Record audit.Appender
	// Retention deletes past retention (`ql retention run`); nil when
	// the profile cannot. RetentionDefaults is the profile's policy.
	Retention         retention.Store
	RetentionDefaults retention.Policy
	// Definitions reads a project's definitions whole (`ql export`); nil
	// when the profile cannot.
	Definitions catalog.DefinitionsReader
	// MissingSecrets returns the secret names of refs the secrets store
	// does not define, where this process can read the store the server
	// reads (the embedded database's data directory); nil elsewhere.
	MissingSecrets func(refs []string) ([]string, error)
	// RetentionOptions pace a pass on this store (zero: the defaults).
	RetentionOptions retention.Options
	// Migrated lists the migrations opening an embedded database file an
	// older build left applied (none for a new or current file): the
	// command says so, as the server's start does, since older builds no
	// longer open the file.
	Migrated []string
	// HeldNone says the embedded database file existed but held no
	// QingLong database (an empty file): opening it made a new, empty one
	// in it, which the command says, since data may have been expected.
	HeldNone bool
	// RefuseClockBehind is the refusal of a write while the clock this
	// process dates its writes by reads behind the newest time the
	// database recorded (override: the flag that writes all the same);
	// nil where no such clock dates the writes (PostgreSQL, a server's
	// API).
	RefuseClockBehind func(ctx context.Context, override string) error
	Close             func()
	// api is the server's API a command given --api-url asks, for what
	// the API shapes differently from the store (a trigger's view, enable
	// and disable by id); nil on a database.
	api *apiClient
}

// Unattended is what is missing for a queued Run to start: the zero
// value when something will take it.
type Unattended struct {
	// NoServer: no server runs on the embedded database, whose data
	// directory is DataDir.
	NoServer bool
	DataDir  string
	// HandedOver: that database was handed over (`export --with-state`),
	// so no server may start on it until it is taken back; Queued is how
	// many Runs it holds queued meanwhile.
	HandedOver bool
	Queued     int
	// NoReplica: no cluster replica is live on the database.
	NoReplica bool
	// Worker is why no worker can take it, when that is because a worker
	// is missing (none connected, all draining, none with the labels); a
	// Run merely waiting its turn has none.
	Worker *run.Waiting
}

// Opener opens a backend: dsn is a postgres:// URL or the embedded
// database file's path.
type Opener func(ctx context.Context, dsn string) (*Backend, error)

// Options wires a binary.
type Options struct {
	// Binary names the program in help ("ql" or "ql-edge").
	Binary string
	// OpenPostgres is nil in builds without PostgreSQL support.
	OpenPostgres Opener
	// DatabaseWarnings says what connecting to a PostgreSQL URL would
	// expose (an unverified server, a password file others may read,
	// several servers without the writable one kept), read as the driver
	// reads the URL; each is printed before OpenPostgres connects.
	DatabaseWarnings func(dsn string) []string
	// OpenSQLite opens the embedded database for writing, creating and
	// migrating it if needed.
	OpenSQLite Opener
	// OpenSQLiteReadOnly opens an existing embedded database for the read
	// commands, without writing to it.
	OpenSQLiteReadOnly Opener
	// Profiles are the server profiles of this build, by name; profiles
	// absent from the map are not part of it.
	Profiles map[string]Profile
	// SecretsFile is the secrets file of the server on the embedded
	// database at dbPath (`ql secrets`).
	SecretsFile func(dbPath string) string
	// Extra commands (e.g. `db` in the full build).
	Extra []*cobra.Command
	// CheckSQLite runs SQLite's integrity_check (quick: quick_check) on
	// the embedded database file at dbPath without writing to it or taking
	// a server's lock, and returns what it found wrong (`db check
	// --data-dir`); nil in a build without the embedded database.
	CheckSQLite func(ctx context.Context, dbPath string, quick bool) ([]string, error)
	// DefaultProfile is what `serve` runs without --profile (default
	// standalone).
	DefaultProfile string
	// Backup copies the data directory of the embedded database at dbPath
	// into the new directory dest (`ql backup`), writing progress to
	// progress.
	Backup func(ctx context.Context, dbPath, dest string, progress io.Writer) error
	// BackupArchive writes the backup archive of the data directory of
	// the database at dbPath to w (`backup --archive`): file is where w
	// writes, "" for standard output; what it cleans up first (a killed
	// run's working copy) it says on notes.
	BackupArchive func(ctx context.Context, dbPath, file string, w, notes io.Writer) (int64, error)
	// Vacuum rewrites the embedded database file at dbPath compactly
	// (`db vacuum`), writing progress to progress, and returns its size
	// before and after; nil in a build without the embedded database.
	Vacuum func(ctx context.Context, dbPath string, progress io.Writer) (before, after int64, err error)
	// HandOver marks the embedded database at dbPath handed over by actor
	// (`export --with-state`), refused while a server serves it, and holds
	// the server's lock until release; nil in a build without the
	// embedded database.
	HandOver func(ctx context.Context, dbPath, actor string) (release func() error, err error)

	// secretsFileOnly: the secrets commands work on --secrets-file alone,
	// on a host with no database and no API (SecretsFileCommand).
	secretsFileOnly bool
}

// clusterOnly is text in a build with PostgreSQL and nothing in one without:
// a help text's sentences about the cluster (its database roles, replicas and
// workers) would only mislead the user of the edge binary, which cannot run it.
func (o Options) clusterOnly(text string) string {
	if o.OpenPostgres == nil {
		return ""
	}
	return text
}

func (o Options) defaultProfile() string {
	if o.DefaultProfile != "" {
		return o.DefaultProfile
	}
	return ProfileStandalone
}

// UsageError marks an error the user fixes by changing the command line;
// it exits 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef builds a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// NewRoot builds the command tree.
func NewRoot(opts Options) *cobra.Command {
	long := `QingLong turns every due cron occurrence into exactly one durable Run and gets it executed.

It runs as one binary on an embedded SQLite database (profiles standalone and edge)`
	if _, ok := opts.Profiles[ProfileCluster]; ok {
		long += `,
or as many replicas on PostgreSQL (profile cluster).`
	} else {
		long += "."
	}
	long += "\n\nTo try it: `" + opts.Binary + " serve --example` serves ./qinglong.db with sample triggers, one of them every\n" +
		"10 seconds; `" + opts.Binary + " runs list` in another terminal shows their Runs.\n\n" + exitCodesHelp(opts)
	root := &cobra.Command{
		Use:           opts.Binary,
		Short:         "QingLong turns every due cron occurrence into exactly one durable Run",
		Long:          long,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	withVersionFlag(root, "print the version, as the version command does (-v only before any command: no command has a -v)")
	root.SetFlagErrorFunc(flagError)
	// The only pre-run hook of the tree: a subcommand's own would replace it.
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if fl := c.Flags().Lookup("db"); fl != nil && fl.Changed {
			return refuseRetiredDB(opts, fl.Value.String())
		}
		if fl := c.Flags().Lookup("database-url"); fl != nil && fl.Changed && opts.OpenPostgres == nil {
			return Usagef("this %s build has no PostgreSQL support: use the full ql binary for that database, or --data-dir DIR for an embedded one", opts.Binary)
		}
		return fillFromEnv(c)
	}
	root.AddCommand(versionCommand(), cronCommand(opts), crontabCommand(opts), applyCommand(opts), exportCommand(opts), projectsCommand(opts), serveCommand(opts), runsCommand(opts), triggersCommand(opts),
		tokensCommand(opts), usersCommand(opts), secretsCommand(opts), scriptsCommand(opts), subscriptionsCommand(opts), depsCommand(opts), importCommand(opts), notificationsCommand(opts), auditCommand(opts), retentionCommand(opts), backupCommand(opts))
	root.AddCommand(opts.Extra...)
	addDBCheck(root, opts)
	addDBVacuum(root, opts)
	root.SetHelpCommand(helpCommand(root))
	// Added now rather than when the tree runs, so the walk below covers it.
	root.InitDefaultCompletionCmd()
	refuseUnknownSubcommands(root)
	reflowHelp(root)
	return root
}

// helpCommand is `help [command]`, which fails as a usage error for a
// command that does not exist (cobra's prints the usage and exits 0).
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(_ *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return Usagef("no help topic %q; '%s --help' lists the commands", strings.Join(args, " "), root.Name())
			}
			return target.Help()
		},
	}
}

// refuseUnknownSubcommands makes every command group below root fail with a
// usage error on an unknown subcommand; cobra would print the group's help
// and exit 0, so a typo in a script would pass unnoticed. A group given no
// subcommand still prints its help.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		if sub.HasSubCommands() && !sub.Runnable() {
			sub.SuggestionsMinimumDistance = 2
			sub.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) == 0 {
					return cmd.Help()
				}
				var names []string
				for _, x := range cmd.Commands() {
					if x.IsAvailableCommand() {
						names = append(names, x.Name())
					}
				}
				hint := "its commands are " + strings.Join(names, ", ")
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					hint = "did you mean " + strings.Join(s, " or ") + "?"
				} else if len(names) == 1 {
					// A group of one command, given something else: the
					// words were most likely meant for that command
					// (`ql cron '*/5 * * * *'` for `ql cron next ...`).
					hint = fmt.Sprintf("did you mean `%s %s %s`?", cmd.CommandPath(), names[0], shellWords(args))
				}
				return Usagef("unknown command %q for %q; %s", args[0], cmd.CommandPath(), hint)
			}
		}
		refuseUnknownSubcommands(sub)
	}
}

// shellWords joins args as a shell would read them back, quoting each word
// that holds anything beyond letters, digits and -_./:=@,+.
func shellWords(args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		plain := a != ""
		for _, r := range a {
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_./:=@,+", r)) {
				plain = false
				break
			}
		}
		if plain {
			words[i] = a
		} else {
			words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

// The exit codes of every command; exitCodesHelp says them to the user,
// and docs/operations.md's table with it.
const (
	// ExitFailed: a runtime failure (the database, the network, the
	// server; a named object that does not exist). What was done is what
	// the output says.
	ExitFailed = 1
	// ExitUsage: the input is wrong and nothing was done: the command line
	// (a missing or malformed argument or flag), or a value the command
	// passed on that the store or the server refused as invalid
	// (qlerror.Invalid: a malformed cursor, a window in the future, a
	// definitions file that breaks a rule or is over the API's cap). The
	// user fixes the input.
	ExitUsage = 2
	// ExitRefused: a trigger's policy refused the request (`triggers run`
	// and `runs rerun` under the overlap policy); nothing was run, and the
	// command said so as it says what it did.
	ExitRefused = 3
	// ExitConflict: the request conflicts with what exists and nothing was
	// done: a name that is taken, an object whose state does not allow it
	// (a disabled trigger, an archived project, a Run not finished yet),
	// a change made meanwhile (qlerror.Conflict, MutationDrift,
	// FailedPrecondition; PreconditionFailed: a project changed since
	// the revision `apply --if-match` names). The same command fails again until that state
	// changes; nothing is broken.
	ExitConflict = 4
	// ExitDenied: the credential the command acts with may not do it and
	// nothing was done: an API token unknown, revoked, expired or of too
	// small a scope, a database role that may not (qlerror.Unauthenticated,
	// PermissionDenied). Another credential is needed, not a retry.
	ExitDenied = 5
	// ExitNotSucceeded: the command was given --exit-status and the Run it
	// followed (or read) ended otherwise than succeeded: failed, timed
	// out, lost, cancelled. What it printed says how it ended.
	ExitNotSucceeded = 6
	// ExitCorrupt: `db check` found the embedded database file corrupt;
	// what it printed gives SQLite's findings and says to restore a
	// backup.
	ExitCorrupt = 7
	// ExitInterrupted: SIGINT, SIGTERM or SIGHUP stopped the command
	// before it finished, as a shell reports a command a SIGINT ended
	// (128 + 2).
	ExitInterrupted = 130
)

// exitCodesHelp ends the root's help: the exit codes, for scripts. A
// database role is a credential of the cluster's only.
func exitCodesHelp(opts Options) string {
	return `Exit codes:
  0    done
  1    failed at run time (database, network, server; or what it names does not exist): the message says why
  2    the input is wrong, nothing was done: the command line, a value the store or server refused as invalid,
       or a file named to fix (a secrets or credential file others may read, of another owner, or malformed)
  3    the trigger's overlap policy refused the request (triggers run, runs rerun); nothing was run
  4    the request conflicts with what exists, nothing was done: a name taken, a state that does not allow it
       (a disabled trigger, an archived project, a Run not finished), a change made meanwhile
  5    not allowed, nothing was done: the API token` + opts.clusterOnly(" or database role") + ` may not do it
  6    --exit-status: the Run ended, not succeeded (failed, timed_out, lost, cancelled)
  7    db check: the database file is corrupt; restore it from a backup
  130  interrupted (SIGINT, SIGTERM, SIGHUP) before it finished
With -o json a command that fails prints nothing on stdout and ends stderr with the error as one
JSON line, {"error":{"code":…,"reason":…,"params":…,"message":…}}: its reason tells apart the
refusals one exit code covers (trigger_disabled, run_not_finished, spec_changed: all exit 4).`
}

// errRefused ends a command whose request a trigger's policy refused,
// once it has printed so (its report, in text or JSON, as when it ran):
// it exits ExitRefused, adding nothing.
var errRefused = errors.New("refused by the trigger's policy")

// Main executes the tree and returns the process exit code (ExitFailed,
// ExitUsage, ExitRefused, ExitConflict, ExitDenied, ExitNotSucceeded, ExitCorrupt,
// ExitInterrupted; 0 when it succeeded).
func Main(ctx context.Context, opts Options, args []string, stdout, stderr io.Writer) int {
	return MainIn(ctx, opts, args, os.Stdin, stdout, stderr)
}

// MainIn is Main reading standard input from stdin: what a command reads
// there (`ql secrets set`'s value, `ql apply -f -`) is given by the caller.
func MainIn(ctx context.Context, opts Options, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := NewRoot(opts)
	root.SetIn(stdin)
	return execute(ctx, root, opts.Binary, args, stdout, stderr)
}

// execute runs root with args and maps its error to an exit code.
func execute(ctx context.Context, root *cobra.Command, binary string, args []string, stdout, stderr io.Writer) int {
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(context.WithValue(ctx, stderrKey{}, stderr))
	if err == nil {
		return 0
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// Ctrl-C is how one stops `runs logs -f`: it is no failure, and
		// "context canceled" would read like one. A write whose request
		// had left may have been done all the same: it says how to learn.
		var lost *lostAnswerError
		if errors.As(err, &lost) {
			fmt.Fprintf(stderr, "%s: interrupted after the request was sent; %s\n", binary, userText(asBinary(root, binary, lost.advice)))
			return ExitInterrupted
		}
		fmt.Fprintf(stderr, "%s: interrupted\n", binary)
		return ExitInterrupted
	}
	if errors.Is(err, errRefused) {
		return ExitRefused
	}
	if errors.Is(err, errNotSucceeded) {
		return ExitNotSucceeded
	}
	if errors.Is(err, errCorrupt) {
		return ExitCorrupt
	}
	msg := userText(asBinary(root, binary, err.Error()))
	var ue *UsageError
	usage := errors.As(err, &ue) || isCobraUsage(err)
	code := exitCodeOf(err)
	if usage {
		code = ExitUsage
	}
	// A setting refused (a usage error) is said before the server has
	// logged anything, with the usage hint: a plain line. Whatever ends a
	// server after that is its log's last line.
	if !usage && sayLastError(cmd, withLocation(cmd, binary, msg, err), code) {
		return code
	}
	if usage {
		fmt.Fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n", binary, msg, commandPath(root, args))
		sayErrorJSON(cmd, stderr, err, msg, true)
		return ExitUsage
	}
	// Found below the command line (a store, a service, a server's
	// answer), so its message says what to change; --help would not.
	msg = withLocation(cmd, binary, msg, err)
	fmt.Fprintf(stderr, "%s: %s\n", binary, msg)
	sayErrorJSON(cmd, stderr, err, msg, false)
	return code
}

// exitCodeOf is the exit code of err, a failure below the command line,
// by its code: the same on the database and over --api-url, where the
// client gives the server's answer its code.
func exitCodeOf(err error) int {
	if fileToFix(err) {
		return ExitUsage
	}
	switch qlerror.CodeOf(err) {
	case qlerror.Invalid:
		return ExitUsage
	case qlerror.Conflict, qlerror.MutationDrift, qlerror.FailedPrecondition, qlerror.PreconditionFailed:
		return ExitConflict
	case qlerror.Unauthenticated, qlerror.PermissionDenied:
		return ExitDenied
	}
	return ExitFailed
}

// fileToFix reports whether err refuses a secrets file for its owner, its
// mode or its content: a file on this machine that the user named
// (--secrets-file, --data-dir), and so the input to fix, as a credential
// file at mode 0644 is. A server keeps FailedPrecondition for it (its
// file is no input of the caller's), but no API answer carries a
// *process.SecretsFileError, so this is the one place every command of
// every binary that reads such a file exits by. A file the user may not
// open at all (SecretsDenied) is a failure of the machine's, exit 1.
func fileToFix(err error) bool {
	var sf *process.SecretsFileError
	return errors.As(err, &sf) && sf.Cause != process.SecretsDenied
}

// asBinary names binary instead of ql in the commands msg tells the user to
// run. An error built below the command tree (in a store, a domain package,
// a server's API answer) cannot know which binary prints it, so it names ql;
// a user of another binary must be able to copy the command as printed.
// Only commands this tree has are renamed, so a pointer at what only the
// full ql binary has (`ql workers`, "use the full ql binary") keeps its name.
func asBinary(root *cobra.Command, binary, msg string) string {
	if binary == "ql" {
		return msg
	}
	var names []string
	for _, c := range root.Commands() {
		names = append(names, regexp.QuoteMeta(c.Name()))
	}
	if len(names) == 0 {
		// A one-command binary (ql-worker) has no command of ql's to
		// rename, and an empty alternation would match every "ql X".
		return msg
	}
	// "ql" starts a command where it starts the message or follows a space,
	// a quote or an opening parenthesis ("create it with ql apply",
	// "(`ql runs list`)").
	hint := regexp.MustCompile("(^|[\\s`'\"(])ql (" + strings.Join(names, "|") + ")\\b")
	return hint.ReplaceAllString(msg, "${1}"+binary+" ${2}")
}

// isCobraUsage recognises cobra's own argument errors (unknown command,
// wrong arg count), which it does not type, by how each begins. An error
// with a code of QingLong's is never one, whatever words it holds: a
// store's "check that PostgreSQL … accepts connections", a name a user
// gave ("walk/accepts x") or an operating system's "invalid argument"
// keep the exit code of their code, not usage's.
func isCobraUsage(err error) bool {
	var coded *qlerror.Error
	if errors.As(err, &coded) {
		return false
	}
	msg := err.Error()
	for _, p := range []string{"unknown command ", "unknown flag: ", "unknown shorthand flag: ", "accepts ", "requires at least ", "invalid argument "} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

func commandPath(root *cobra.Command, args []string) string {
	c, _, err := root.Find(args)
	if err != nil || c == nil {
		return root.Name()
	}
	return c.CommandPath()
}

// Run is the whole main of a binary.
func Run(opts Options) {
	ctx, stop := signalContext()
	code := Main(ctx, opts, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// helpWidth is the width help paragraphs are wrapped to, as the written
// ones are.
const helpWidth = 105

// reflowHelp rewraps the long help of c and of every command under it
// (reflow).
func reflowHelp(c *cobra.Command) {
	c.Long = reflow(c.Long)
	for _, sub := range c.Commands() {
		reflowHelp(sub)
	}
}

// reflow is help text with each run of lines that continue one sentence
// from line to line filled again to helpWidth. Help texts are wrapped by
// hand, but many are put together from parts (a sentence only the
// cluster build has, a list taken from a table, an edit since): joined as
// written they break lines early ("starting with QL_" then "are
// reserved"). A line ending a sentence (., ! or ?) ends its run, so a
// text that starts each sentence on its own line keeps its shape, and
// lines laid out by hand (indented, list items, blank) are kept as they
// are.
func reflow(text string) string {
	var out, run []string
	flush := func() {
		if len(run) > 0 {
			out = append(out, fill(strings.Join(run, " ")))
			run = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") {
			flush()
			out = append(out, line)
			continue
		}
		run = append(run, line)
		if strings.ContainsAny(line[len(line)-1:], ".!?") {
			flush()
		}
	}
	flush()
	return strings.Join(out, "\n")
}

// fill is text, its words on lines of at most helpWidth characters.
func fill(text string) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(text) {
		n := utf8.RuneCountInString(w)
		switch {
		case i == 0:
		case line+1+n > helpWidth:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += n
	}
	return b.String()
}
