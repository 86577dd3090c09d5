package cli

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/retention"
)

// EnvMaintenanceURL is the cluster's maintenance role URL: `ql retention
// run` uses it instead of $QL_DATABASE_URL when set, since the runtime
// role may not delete.
const EnvMaintenanceURL = "QL_DATABASE_MAINTENANCE_URL"

func retentionCommand(opts Options) *cobra.Command {
	c := &cobra.Command{Use: "retention", Short: "Delete finished and lost Runs, logs and sent or dead notifications past their retention"}
	c.AddCommand(retentionRunCommand(opts))
	return c
}

// retentionDefaults says where retention run's settings default from: a
// build without PostgreSQL has one kind of database and serves its own
// default profile.
func retentionDefaults(opts Options) string {
	if opts.OpenPostgres == nil {
		return "the defaults of the " + opts.defaultProfile() + " profile"
	}
	return `on the embedded database the defaults of the
binary's default profile, standalone for ql and edge for ql-edge; cluster
defaults on PostgreSQL`
}

func retentionRunCommand(opts Options) *cobra.Command {
	var db dbFlags
	var settings retention.Settings
	var dryRun bool
	var configFile, profile string
	c := &cobra.Command{
		Use:   "run",
		Short: "Run one retention pass now, with progress (the server runs one every minute)",
		Long: `Run one retention pass now and print its progress: finished Runs older than
--retention-runs are deleted with their attempts, events and logs, and so are lost
Runs lost that long (counted from when they were found lost: re-run or cancel one
before then if it matters), then logs older than --retention-logs, then the oldest
logs until all fit in --retention-log-bytes, a lost Run's as a finished Run's,
then delivered and dead notifications created longer ago than
--retention-notifications (a dead one deleted can no longer be sent again with
notifications retry). Runs not ended yet, Runs with an attempt still open, the
logs of running commands and pending notifications are never deleted. A log file
that cannot be removed is listed with its cause and its Run kept (the next pass
tries again); the pass goes on with the rest and then exits 1. The settings default to what ` + opts.Binary + ` serve uses
(the same flags and variables; ` + retentionDefaults(opts) + `). Give it the
server's --config FILE (or $QL_CONFIG) and --profile (or $QL_PROFILE) too when the
server has them: its retention settings and data directory then come from the same
place, and a pass never deletes what the server keeps. --dry-run counts and deletes
nothing.` +
			opts.clusterOnly(`

On PostgreSQL it needs the maintenance role: $`+EnvMaintenanceURL+` is used when
set, else --database-url / $QL_DATABASE_URL; a --database-url or --data-dir typed
on the command line wins over the variable. Passes on several hosts at once
share the work; none deletes a row twice.`),
		Example: "  " + opts.Binary + " retention run --dry-run\n  " + opts.Binary + " retention run --retention-runs 14d --data-dir /var/lib/qinglong",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			serveFlags := serveCommand(opts).Flags()
			if err := fillFromServeFile(opts, cmd.Flags(), configFile, func(k string) bool { return serveFlags.Lookup(k) != nil }); err != nil {
				return err
			}
			if profile != "" {
				if _, ok := opts.Profiles[profile]; !ok {
					return Usagef("--profile %q is not available in %s; give the profile the server runs: %s", profile, opts.Binary, strings.Join(buildProfiles(opts), ", "))
				}
			}
			useMaintenanceURL(cmd, opts, &db)
			b, err := openExistingWritable(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Retention == nil {
				return fmt.Errorf("this database cannot run retention from here")
			}
			defaults, err := retentionProfileDefaults(opts, &db, profile, b.RetentionDefaults)
			if err != nil {
				return err
			}
			policy, err := settings.Resolve(defaults)
			if err != nil {
				return &UsageError{Err: err}
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "policy: %s\n", policy)
			if policy.Off() {
				fmt.Fprintln(w, "every setting is off: the pass deletes only expired console sessions")
			}
			if dryRun {
				est, err := b.Retention.RetentionEstimate(cmd.Context(), policy)
				if err != nil {
					return err
				}
				for _, k := range retention.Kinds {
					if d, ok := est[k]; ok {
						fmt.Fprintf(w, "would delete %s\n", describe(k, d))
					}
				}
				return nil
			}
			o := b.RetentionOptions
			o.Budget = time.Duration(math.MaxInt64)
			// An operator waits for it: at least half the time, not a tenth.
			o.Share = max(o.Share, 0.5)
			o.OnBatch = func(k retention.Kind, batch, soFar retention.Deleted) {
				if batch != (retention.Deleted{}) {
					fmt.Fprintf(w, "deleted %s (so far %s)\n", describe(k, batch), describeShort(soFar))
				}
			}
			rep, err := retention.Pass(cmd.Context(), b.Retention, policy, o)
			for _, k := range rep.Kept {
				fmt.Fprintf(w, "could not remove %s\n", k)
			}
			dsn, rerr := db.resolve(opts)
			if rerr != nil {
				return rerr
			}
			summary(w, rep, err, IsPostgresURL(dsn))
			if err != nil {
				return err
			}
			return keptError(rep)
		},
	}
	// A refused setting says where it came from, as serve's do: one read
	// from the environment or --config was typed by no one.
	pass := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		return SayWhereSettingCame(cmd.Flags(), pass(cmd, args))
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	fs := c.Flags()
	fs.StringVar(&settings.Runs, "retention-runs", "", "days (30d) or hours (12h) after which finished Runs, and lost Runs after they were found lost, are deleted (default: the profile's; off keeps them)")
	fs.StringVar(&settings.Logs, "retention-logs", "", "days (30d) or hours (12h) after which logs of finished and lost Runs are deleted (default: the profile's; off keeps them)")
	fs.StringVar(&settings.LogBytes, "retention-log-bytes", "", "cap of all logs together, e.g. 1GiB (default: the profile's; off: no cap)")
	fs.StringVar(&settings.Notifications, "retention-notifications", "", "days (30d) or hours (12h) after which delivered and dead notifications are deleted, counted from their creation; a deleted dead one can no longer be retried (default: the profile's; off keeps them)")
	BindEnv(fs, "retention-runs", "retention-logs", "retention-log-bytes", "retention-notifications")
	fs.StringVar(&configFile, "config", "", "the server's YAML file of flag: value settings: its retention settings and data directory apply here too")
	fs.StringVar(&profile, "profile", "", "the profile the server runs, whose retention defaults apply ("+strings.Join(buildProfiles(opts), ", ")+"; default "+opts.defaultProfile()+")")
	BindEnv(fs, "config", "profile")
	fs.BoolVar(&dryRun, "dry-run", false, "count what would be deleted; delete nothing")
	return c
}

// buildProfiles are the profiles of this build, in their usual order.
func buildProfiles(opts Options) []string {
	var out []string
	for _, p := range profileOrder {
		if _, ok := opts.Profiles[p]; ok {
			out = append(out, p)
		}
	}
	return out
}

// retentionProfileDefaults is the retention policy the server of profile
// (empty: the binary's default) keeps by default. A pass must start from
// the same defaults as the server: the edge binary serving standalone keeps
// Runs 30 days, and a pass with the edge defaults would delete those older
// than 3. On PostgreSQL the cluster's defaults are the only ones.
func retentionProfileDefaults(opts Options, db *dbFlags, profile string, store retention.Policy) (retention.Policy, error) {
	dsn, err := db.resolve(opts)
	if err != nil {
		return retention.Policy{}, err
	}
	if IsPostgresURL(dsn) {
		if profile != "" && profile != ProfileCluster {
			return retention.Policy{}, Usagef("--profile %s is an embedded database's profile, and this is the cluster's PostgreSQL database: leave --profile out", profile)
		}
		return store, nil
	}
	p := cmp.Or(profile, opts.defaultProfile())
	if p == ProfileCluster {
		return retention.Policy{}, Usagef("--profile cluster runs on PostgreSQL, and this is an embedded database: give --database-url, or the profile the server on this data directory runs")
	}
	return opts.Profiles[p].Defaults.Retention, nil
}

func describe(k retention.Kind, d retention.Deleted) string {
	switch k {
	case retention.KindRuns:
		return fmt.Sprintf("runs: %s, %s, %s, %s (%s)", plural.Count(d.Runs, "run", "runs"), plural.Count(d.Attempts, "attempt", "attempts"),
			plural.Count(d.Events, "event", "events"), logCount(d.Logs), retention.FormatBytes(d.LogBytes))
	case retention.KindLogs:
		return fmt.Sprintf("old logs: %s (%s)", logCount(d.Logs), retention.FormatBytes(d.LogBytes))
	case retention.KindNotifications:
		return fmt.Sprintf("old notifications: %d delivered or dead", d.Notifications)
	case retention.KindSessions:
		return "expired console sessions: " + plural.Count(d.Sessions, "session", "sessions")
	}
	if d.Logs == 0 && d.LogBytes > 0 {
		// A dry run knows only how far the logs are over the cap: whole
		// logs go, oldest first, so the pass deletes at least this much.
		return fmt.Sprintf("logs over the cap: %s over it; the oldest whole logs holding at least that much", retention.FormatBytes(d.LogBytes))
	}
	return fmt.Sprintf("logs over the cap: %s (%s)", logCount(d.Logs), retention.FormatBytes(d.LogBytes))
}

func logCount(n int64) string { return plural.Count(n, "log", "logs") }

func describeShort(d retention.Deleted) string {
	return plural.Count(d.Runs, "run", "runs") + ", " + logCount(d.Logs) + ", " + plural.Count(d.Notifications, "notification", "notifications")
}

// summary is a pass's last line: what it deleted, whether it ended by an
// error (printed after it) or could not remove some logs, and what became
// of the space: SQLite gives the pages it freed back to the file system
// (incremental auto-vacuum), PostgreSQL keeps them for its own rows.
func summary(w io.Writer, rep retention.Report, err error, postgres bool) {
	var parts []string
	for _, k := range retention.Kinds {
		if d, ok := rep.ByKind[k]; ok && (d != (retention.Deleted{}) || err == nil) {
			parts = append(parts, describe(k, d))
		}
	}
	took := rep.Elapsed.Round(time.Millisecond)
	if err != nil {
		if len(parts) == 0 {
			fmt.Fprintf(w, "stopped after %s by the error below, having deleted nothing\n", took)
			return
		}
		fmt.Fprintf(w, "stopped after %s by the error below, having deleted %s\n", took, strings.Join(parts, "; "))
		return
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing")
	}
	ended := "done in " + took.String()
	if n := len(rep.Kept); n > 0 {
		ended = fmt.Sprintf("incomplete after %s (%s not removed)", took, logCount(int64(n)))
	}
	space := retention.FormatBytes(rep.FreedBytes) + " given back to the file system"
	if postgres {
		space = "PostgreSQL reuses the space of the deleted rows once autovacuum has run; none is given back to the file system"
	}
	fmt.Fprintf(w, "%s: %s; %s\n", ended, strings.Join(parts, "; "), space)
}

// ruleNames are the rules as an operator knows them, by their settings.
var ruleNames = map[retention.Kind]string{
	retention.KindRuns:          "the runs rule (--retention-runs)",
	retention.KindLogs:          "the logs rule (--retention-logs)",
	retention.KindLogBytes:      "the log cap (--retention-log-bytes)",
	retention.KindNotifications: "the notifications rule (--retention-notifications)",
}

// keptError is the error of a pass that could not remove some logs: it
// deleted everything else it could, and says what to do about them.
func keptError(rep retention.Report) error {
	if len(rep.Kept) == 0 {
		return nil
	}
	them := "each stays"
	if len(rep.Kept) == 1 {
		them = "it stays"
	}
	first := rep.Kept[0]
	problem := first.Problem()
	msg := fmt.Sprintf("could not remove %s (listed above): %s named for removal, and each pass tries it again first; every other rule and Run went on",
		plural.Count(int64(len(rep.Kept)), "log file", "log files"), them)
	if len(rep.Cut) > 0 {
		var rules []string
		for _, k := range rep.Cut {
			rules = append(rules, ruleNames[k])
		}
		msg += fmt.Sprintf(" (%s stopped after %d such files; the rest of its work waits for the next pass)", strings.Join(rules, " and "), retention.KeptPerRule)
	}
	// failed_precondition (exit 4): the files' state forbids their
	// removal, and the same pass fails the same way until it is changed.
	return qlerror.New(qlerror.FailedPrecondition, "%s; %s: %s", msg, first.Path, retention.ProblemAdvice(problem)).
		Because(retention.RefusalLogsNotRemovable, "files", len(rep.Kept), "path", first.Path, "problem", problem)
}
