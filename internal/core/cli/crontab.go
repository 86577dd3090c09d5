package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
)

func crontabCommand(opts Options) *cobra.Command {
	c := &cobra.Command{Use: "crontab", Short: "Move jobs from a crontab"}
	var project, zone, account, scriptsDir string
	var system bool
	convert := &cobra.Command{
		Use:   "convert FILE --project NAME --tz ZONE",
		Short: "Print a definitions file holding a crontab's jobs",
		Long: `Read a crontab (FILE, or - for standard input) and print a definitions file for ` + "`" + opts.Binary + ` apply` + "`" + `:
one task and one trigger per entry, named after the entry's program (made unique by a number), in
project --project. Entries are 5 fields, 6 with seconds first (as the qinglong panel's crontab writes
them), or @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly, then the command; 7 and
ranges ending in 7 (or SUN) in day-of-week are written with 0 for Sunday. The panel's "task SCRIPT"
is converted, named after the script, and reported, since no task command exists here (write the
interpreter and the script's path, or give --scripts-dir, the folder the scripts are in here, to have
each written so). The panel's subscription (its repo command: URL WHITELIST BLACKLIST DEPENDENCE
BRANCH) becomes a task cloning the repository into "$QL_SCRIPTS_DIR/OWNER_REPO" (_BRANCH added when one is
named, as the panel names its folders), then updating it to the branch's head, noted with the
` + "`" + opts.Binary + ` crontab scripts` + "`" + ` command that turns its whitelisted scripts into tasks; its raw command becomes a
task downloading the file into "$QL_SCRIPTS_DIR/raw_NAME". Their Runs fail while QL_SCRIPTS_DIR is
empty: a single node sets it` + opts.clusterOnly(`, and so does a cluster worker (its --scripts-dir), each worker keeping its own
copy: pin such a task with placement.labels to the workers that run the scripts, or make one per worker`) + `. The panel's update
commands are not converted, and the row id it writes before each command (ID=12 task ...) is left out. --tz is the zone of the entries until a CRON_TZ= or TZ= line sets another for the
lines after it (TZ also goes into their env, as cron passes it on); SHELL=/bin/sh or /bin/bash sets
their shell; any other VAR= line goes into the env of the tasks after it (MAILTO is noted: nothing
is mailed). A "\%" in a command is a "%"; an unescaped "%" (cron's standard input) is refused.
Comments and blank lines are skipped, but for the panel's commented tasks ("# SCHEDULE task ..." or
"# SCHEDULE ID=N ...": its disabled tasks and those of six fields), converted with the trigger
disabled (enabled: false) and noted. Every line not converted (@reboot, bad syntax, "%") is
reported on standard error with its line number and why, as is an entry converted with a
difference (both day fields restricted where cron would require both), and the command then exits 1
after printing the file of the others. The file starts with a comment of what QingLong does
otherwise than cron (timeout 1h, misfire fire_once, a fresh working directory, its environment,
--concurrency). A system crontab (/etc/crontab, a file in /etc/cron.d: read so by default, or
with --system) names a user between the schedule and the command: it becomes the task's runAs
(noted once per user: switching accounts needs the server started as root), except for the account
--account names, the one the server runs commands as; a user column that is no user name is refused
(a user crontab given as a system one). Check the file with ` + "`" + opts.Binary + ` apply --dry-run -f FILE` + "`" + `.`,
		Example: "  crontab -l | " + opts.Binary + " crontab convert - --project ops --tz Europe/Berlin > ops.yaml\n" +
			"  " + opts.Binary + " apply --dry-run -f ops.yaml",
		Args: oneArg("crontab convert takes one file: the crontab's path, or - for standard input"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkProjectAndZone(project, zone); err != nil {
				return err
			}
			o := crontab.Options{Zone: zone, System: system, Account: account, ScriptsDir: scriptsDir, Binary: opts.Binary, Edge: opts.OpenPostgres == nil}
			if task.CheckWorkingDir(scriptsDir) != nil {
				return &UsageError{Err: fmt.Errorf("--scripts-dir %q must be an absolute, clean path: the scripts folder as the server sees it (like /ql/scripts)", scriptsDir)}
			}
			if !cmd.Flags().Changed("system") {
				o.System = systemCrontab(args[0])
			}
			if account != "" {
				if err := (task.RunAs{User: account}).Validate("--account"); err != nil {
					return &UsageError{Err: err}
				}
			}
			in := cmd.InOrStdin()
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return fmt.Errorf("open the crontab: %w", err)
				}
				defer f.Close() //nolint:errcheck // read only
				in = f
			}
			if o.System && !cmd.Flags().Changed("system") {
				fmt.Fprintf(textWriter{cmd.ErrOrStderr()}, "note: %s is read as a system crontab: each entry names its user before the command (--system=false reads it as a user crontab)\n", args[0])
			}
			return convertCrontab(cmd, in, project, o, opts.crontabServer())
		},
	}
	convert.Flags().StringVar(&project, "project", "", "the project the tasks and triggers go in (required)")
	convert.Flags().StringVar(&zone, "tz", "", "IANA time zone of the entries before any CRON_TZ= line (required), e.g. Europe/Berlin")
	convert.Flags().BoolVar(&system, "system", false, "read a system crontab, whose entries name a user between the schedule and the command (default: true for /etc/crontab and files in /etc/cron.d, false otherwise)")
	convert.Flags().StringVar(&scriptsDir, "scripts-dir", "", "the folder, an absolute path, holding the scripts the qinglong panel's task command ran: each task SCRIPT becomes node SCRIPT (.js), python3 -u SCRIPT (.py) bash SCRIPT (.sh) or tsx SCRIPT (.ts) run there, as its workingDir (default: $QL_SCRIPTS_DIR, the scripts folder every command a single node starts has"+
		opts.clusterOnly(", as does every command a cluster worker given --scripts-dir starts")+"; without it task lines stay as written, reported)")
	BindEnv(convert.Flags(), "scripts-dir")
	convert.Flags().StringVar(&account, "account", "", "with a system crontab: the account the server runs commands as; entries naming it get no runAs (default: every entry's user becomes its task's runAs)")
	c.AddCommand(convert, crontabScriptsCommand(opts))
	return c
}

// systemCrontab reports whether path is where cron keeps system crontabs
// (/etc/crontab, a file in /etc/cron.d), whose entries name their user:
// read as a user crontab, that user would be taken for the command.
func systemCrontab(path string) bool {
	clean := filepath.Clean(path)
	return clean == "/etc/crontab" || filepath.Dir(clean) == "/etc/cron.d"
}

// convertCrontab prints in's entries as a definitions file of project,
// its header saying what holds on server, on standard output and every
// line it reports on standard error; it fails when a line was not
// converted, after printing the others.
func convertCrontab(cmd *cobra.Command, in io.Reader, project string, o crontab.Options, server crontab.Server) error {
	res, err := crontab.Convert(in, o)
	if err != nil {
		return err
	}
	out, err := res.Definitions(project, server)
	if err != nil {
		return err
	}
	if _, err := cmd.OutOrStdout().Write(out); err != nil {
		return err
	}
	refused := 0
	for _, p := range res.Problems {
		fmt.Fprintf(textWriter{cmd.ErrOrStderr()}, "%s\n", p)
		if p.Kind == crontab.NotConverted {
			refused++
		}
	}
	if refused > 0 {
		return fmt.Errorf("%d %s of the crontab %s not converted (above); the file printed holds the %d converted",
			refused, map[bool]string{true: "line", false: "lines"}[refused == 1], map[bool]string{true: "was", false: "were"}[refused == 1], len(res.Entries))
	}
	return nil
}

// checkProjectAndZone checks the --project and --tz that every file the
// crontab commands print needs: a project's name, and a time zone, which
// has no default (cron.TimezoneRequired says why).
func checkProjectAndZone(project, zone string) error {
	if err := validate.Name("--project", project); err != nil {
		return &UsageError{Err: err}
	}
	if zone == "" {
		return Usagef("--tz is required: %s", cron.TimezoneRequired)
	}
	if err := cron.CheckTimezone(zone); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

// crontabServer is what a converted file's header says of this binary's
// server: its name, and the default --concurrency of the profile serve
// runs without --profile. The full binary's reader may as well serve the
// file with --profile edge or cluster, whose defaults differ, so its
// header says theirs too; ql-edge's is for the edge profile it serves.
func (o Options) crontabServer() crontab.Server {
	def := o.defaultProfile()
	s := crontab.Server{Binary: o.Binary, Concurrency: crontab.DefaultConcurrency(o.Profiles[def].Defaults.Concurrency)}
	if def != ProfileStandalone {
		return s
	}
	var others []string
	for _, p := range profileOrder {
		if prof, ok := o.Profiles[p]; ok && p != def {
			others = append(others, "with --profile "+p+" "+crontab.DefaultConcurrency(prof.Defaults.Concurrency))
		}
	}
	s.OtherProfiles = strings.Join(others, "; ")
	return s
}
