package dbcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// EnvAdminURL names the admin role's URL for `ql workers`.
const EnvAdminURL = cli.EnvAdminURL

// WorkersCommand is `ql workers` with its subcommands.
func WorkersCommand() *cobra.Command { return newWorkersCommand(os.Getenv) }

func newWorkersCommand(getenv func(string) string) *cobra.Command {
	c := &cobra.Command{
		Use:   "workers",
		Short: "Manage the cluster's worker credentials: create, list, rotate, drain, resume, revoke",
		Long: "Manage the workers allowed to run the cluster's commands. Connects with $" + EnvAdminURL + "\n" +
			"(else $" + EnvURL + "); URLs come from the environment only. create, rotate, drain, resume and revoke\n" +
			"need the admin role's URL; list reads with the admin or the runtime role's.",
	}
	c.AddCommand(workersCreateCommand(getenv), workersListCommand(getenv), workersRotateCommand(getenv), workersRevokeCommand(getenv),
		workersDrainCommand(getenv), workersResumeCommand(getenv))
	return c
}

// openWorkerAdmin connects as the admin role.
func openWorkerAdmin(cmd *cobra.Command, getenv func(string) string) (*pgstore.Admin, error) {
	url, err := urlFrom(cmd, getenv, EnvAdminURL)
	if err != nil {
		return nil, err
	}
	a, err := pgstore.OpenAdmin(cmd.Context(), url)
	if err != nil {
		return nil, pgstore.ForCommand(err)
	}
	// A credential written by one build on a schema another build
	// migrated may miss what the other reads (or name what it lacks): during
	// a rollback, the older binary's `ql workers` after the newer build's
	// migrate. Refused before anything is read or written, as `ql apply`,
	// `ql runs` and a replica refuse.
	if err := a.CheckHistory(cmd.Context()); err != nil {
		a.Close()
		return nil, pgstore.ForCommand(err)
	}
	return a, nil
}

// sqlStater is what PostgreSQL errors offer, without importing the driver.
type sqlStater interface{ SQLState() string }

// Which roles may run a subcommand, as its refusal names them: only the
// admin role changes credentials; the runtime role reads workers and
// their sessions too (the console's workers page reads them with it).
const (
	needsAdmin      = "the admin role's URL"
	needsAdminOrRun = "the admin or the runtime role's URL"
)

// explainWorkerErr names the role to use when the URL's role may not do
// what `ql workers verb` does (needs: needsAdmin or needsAdminOrRun); the
// store's own messages already say what else to do.
func explainWorkerErr(err error, verb, needs string) error {
	var st sqlStater
	if errors.As(err, &st) && st.SQLState() == "42501" {
		return qlerror.New(qlerror.PermissionDenied, "%v\n`ql workers %s` needs %s in $%s (or $%s)", err, verb, needs, EnvAdminURL, EnvURL)
	}
	return pgstore.ForCommand(err)
}

// checkWorkerName refuses a name no worker can have before connecting.
func checkWorkerName(name string) error {
	if err := validate.Name("worker name", name); err != nil {
		return cli.Usagef("%v (e.g. build-01)", err)
	}
	return nil
}

func oneName(verb string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return cli.Usagef("workers %s takes one worker name", verb)
		}
		return checkWorkerName(args[0])
	}
}

func workersCreateCommand(getenv func(string) string) *cobra.Command {
	var labels string
	var maxConcurrency int
	c := &cobra.Command{
		Use:     "create NAME",
		Short:   "Create a worker and print its credential, once",
		Example: "  ql workers create w1 --labels region=eu,gpu=a100 > w1.cred",
		Long: "Creates a worker and prints its credential on standard output, once: QingLong keeps only its digest\n" +
			"and cannot show it again. Store it where the worker reads it, readable only by the worker's user:\n\n" +
			"  (umask 077; ql workers create build-01 > /etc/qinglong/worker.credential)\n" +
			"  ql worker --server https://replica:8081 --credential-file /etc/qinglong/worker.credential\n\n" +
			"--labels are the worker's labels (k=v,k=v): a task's placement labels must all be among them.\n" +
			"--max-concurrency caps how many commands the worker runs at once, whatever it asks for.",
		Args:         oneName("create"),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			parsed, err := task.ParseWorkerLabels("--labels", labels)
			if err != nil {
				return &cli.UsageError{Err: err}
			}
			if maxConcurrency < 1 || maxConcurrency > workerproto.MaxCapacity {
				return cli.Usagef("--max-concurrency %d is outside 1–%d", maxConcurrency, workerproto.MaxCapacity)
			}
			a, err := openWorkerAdmin(cmd, getenv)
			if err != nil {
				return err
			}
			defer a.Close()
			cred, err := a.WorkerCreate(cmd.Context(), args[0], parsed, maxConcurrency)
			if err != nil {
				return explainWorkerErr(err, "create", needsAdmin)
			}
			fmt.Fprintln(cmd.OutOrStdout(), cred)
			fmt.Fprintf(cmd.ErrOrStderr(), "worker %s created. Its credential, printed on standard output, is shown only this once and cannot be shown again: "+
				"store it in a file readable only by the worker's user (chmod 600) and start the worker with --credential-file FILE; "+
				"if it is lost or leaked, `ql workers rotate %s --keep-old 0` gives the worker a new one and refuses the old one from its next request on.\n", args[0], args[0])
			return nil
		},
	}
	cli.ListVar(c.Flags(), &labels, "labels", "the worker's labels, k=v (e.g. region=eu,gpu=true)")
	cli.BindEnv(c.Flags(), "labels")
	c.Flags().IntVar(&maxConcurrency, "max-concurrency", 4, fmt.Sprintf("most commands the worker runs at once (1–%d)", workerproto.MaxCapacity))
	return c
}

func workersListCommand(getenv func(string) string) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "list",
		Short: "List the workers: labels, sessions, capacity and free slots, last heartbeat, state",
		Long: `List the workers: labels, sessions, capacity and free slots, last heartbeat, state.
Reads with the admin or the runtime role's URL. STATE is draining after ` + "`ql workers drain`" + `, and
"draining (stopping)" while the worker's process stops on its own (a signal): it takes no new work
and finishes its commands, for up to its stop timeout. SESSIONS is 1 while a worker process runs
with the credential, else 0: a process that registers with it replaces the one before, which kills
its commands and exits. One that stopped cleanly ended its session, and a revoked credential's is
not counted; one that crashed or was cut off counts until its session's lease (45s) passes or a new
process replaces it. FREE is as of the session's last heartbeat (every 10s), not the moment: a Run
granted or ended since shows at the next one; a draining worker has none free.
LAST HEARTBEAT says how long ago it was, in database time ("12s ago"). A worker with a live
session that has not been heard from for two heartbeats (20s) or more, frozen or cut off before
its lease passes, says so in STATE, "active (silent 25s)"; -o json gives "heartbeatAgeMs" and
"silentForMs".
LABELS are those a task's placement is matched against: the running process's, which are the
credential's plus those it gave with ` + "`ql-worker --labels`" + `, or the credential's while none runs.
With -o json, "labels" stays the credential's and "sessionLabels" is a list holding the running
process's set (empty while none runs).
READS names the grant fields its running process honours: projectEnv, a project's env, which a
worker built before it would leave out, so a Run of a project with an env goes only to a worker
reading it; "none" is such an old worker (upgrade it: ` + "`ql-worker --version`" + `), "-" none running.
With -o json, "reads" lists them (null while none runs).`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out != "table" && out != "json" {
				return cli.Usagef("--output %q is not one of table, json", out)
			}
			a, err := openWorkerAdmin(cmd, getenv)
			if err != nil {
				return err
			}
			defer a.Close()
			list, err := a.WorkerList(cmd.Context())
			if err != nil {
				return explainWorkerErr(err, "list", needsAdminOrRun)
			}
			w := cmd.OutOrStdout()
			if out == "json" {
				return writeWorkersJSON(w, list)
			}
			tw := cli.NewTable(w)
			fmt.Fprintln(tw, "NAME\tSTATE\tLABELS\tSESSIONS\tCAPACITY\tFREE\tMAX\tLAST HEARTBEAT\tREADS")
			for _, x := range list {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", x.Name, shownState(x), shownLabels(x),
					x.Sessions, x.Capacity, x.FreeSlots, x.MaxConcurrency, shownHeartbeat(x), shownReads(x))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if len(list) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), cli.NoneLine("worker", false, "`ql workers create NAME` makes one, whose credential a worker starts with"))
			}
			return nil
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "table", cli.OutputFlagUsage)
	return c
}

// defaultKeepReplaced is how long a rotation keeps the replaced
// credential unless told: time to put the new one in place and restart
// the worker, which finishes its commands first (its stop timeout).
const defaultKeepReplaced = time.Hour

func workersRotateCommand(getenv func(string) string) *cobra.Command {
	var keep time.Duration
	c := &cobra.Command{
		Use:   "rotate NAME",
		Short: "Give a worker a new credential and print it, once; the old one stays valid for --keep-old",
		Long: "Gives the worker a new credential and prints it on standard output, once, as create does; the worker\n" +
			"keeps its name, labels, state and history. The credential it replaces stays valid for --keep-old\n" +
			"(database time), so the running worker goes on until it is restarted with the new one:\n\n" +
			"  (umask 077; ql workers rotate build-01 > /etc/qinglong/worker.cred.new)\n" +
			"  mv /etc/qinglong/worker.cred.new /etc/qinglong/worker.cred   # on the worker's host\n" +
			"  systemctl restart qinglong-worker   # it finishes its commands first, up to its stop timeout\n\n" +
			"A worker still holding the old credential when that time ends is refused and exits 5, as a revoked\n" +
			"one does. If the old credential leaked, give --keep-old 0: it is refused from the next request on.\n" +
			"Only the latest replaced credential is kept: rotating again refuses the one before it at once.\n" +
			"A revoked worker cannot rotate (revocation is final).",
		Args:         oneName("rotate"),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if keep < 0 || keep > pgstore.MaxKeepReplaced {
				return cli.Usagef("%s", validate.DurationOutOfRange("--keep-old", cmd.Flags().Lookup("keep-old").Value.String(), 0, pgstore.MaxKeepReplaced))
			}
			a, err := openWorkerAdmin(cmd, getenv)
			if err != nil {
				return err
			}
			defer a.Close()
			r, err := a.WorkerRotate(cmd.Context(), args[0], keep)
			if err != nil {
				return explainWorkerErr(err, "rotate", needsAdmin)
			}
			fmt.Fprintln(cmd.OutOrStdout(), r.Credential)
			old := "refused from its next request on"
			if keep > 0 {
				old = "valid until " + fmtMs(&r.KeptUntilMs) + " (--keep-old " + validate.Duration(keep) + "), then refused"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "worker %s has a new credential. It is printed on standard output, shown only this once: "+
				"store it in a file readable only by the worker's user (chmod 600) and restart the worker with it. The credential it replaced is %s.\n", args[0], old)
			return nil
		},
	}
	cli.DurationVar(c.Flags(), &keep, "keep-old", defaultKeepReplaced, "how long the replaced credential stays valid (0–"+validate.DurationBound(pgstore.MaxKeepReplaced)+"; 0 if it leaked)")
	return c
}

func workersRevokeCommand(getenv func(string) string) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke NAME",
		Short: "Revoke a worker's credential: it is refused from now on",
		Long: "Revokes the worker's credential: every request with it is refused from now on, and its running\n" +
			"attempts end lost when their leases expire (then retried where the task allows). To let the\n" +
			"worker finish its commands first, drain it and revoke it once `ql workers list` shows no sessions.",
		Args:         oneName("revoke"),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := openWorkerAdmin(cmd, getenv)
			if err != nil {
				return err
			}
			defer a.Close()
			r, err := a.WorkerRevoke(cmd.Context(), args[0])
			if err != nil {
				return explainWorkerErr(err, "revoke", needsAdmin)
			}
			if r.Already {
				fmt.Fprintf(cmd.OutOrStdout(), "worker %s: revoked already (at %s); nothing changed\n", args[0], fmtMs(&r.AtMs))
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "worker %s: revoked\n", args[0])
			return nil
		},
	}
}

func workersDrainCommand(getenv func(string) string) *cobra.Command {
	return &cobra.Command{
		Use:   "drain NAME",
		Short: "Drain a worker: it gets no new work and finishes what it runs",
		Long: "Drains the worker: it gets no new work, finishes what it runs and exits 0 once idle; started\n" +
			"again while drained, it exits 4 at once. `ql workers resume NAME` returns it to service.",
		Args:         oneName("drain"),
		SilenceUsage: true,
		RunE:         workerChange(getenv, "drain", (*pgstore.Admin).WorkerDrain, "draining; it gets no new work, finishes what it runs, then its process exits (`ql workers list` counts its SESSIONS 0 once it has; `ql workers resume` undoes the drain)"),
	}
}

func workersResumeCommand(getenv func(string) string) *cobra.Command {
	return &cobra.Command{
		Use:   "resume NAME",
		Short: "Return a drained worker to service",
		Long: "Returns a drained worker to service: a session it opens from now on takes work again. A worker\n" +
			"process that exited on its drain must be started again; one still finishing its commands exits\n" +
			"once idle, as drained, and takes work when started again. Until it exits `ql workers list` shows\n" +
			"it \"draining (resumed)\" (-o json: \"resumed\": true), with no free slot.",
		Args:         oneName("resume"),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := openWorkerAdmin(cmd, getenv)
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.WorkerResume(cmd.Context(), args[0]); err != nil {
				return explainWorkerErr(err, "resume", needsAdmin)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "worker %s: %s\n", args[0], resumed(cmd.Context(), a, args[0]))
			return nil
		},
	}
}

// resumed says what resuming worker name made of it. A worker whose
// process stops on its own (a signal, or an error that ends it) drains
// whatever its credential says, and so does one whose process heard the
// drain being lifted (it exits once its commands end): resuming cannot
// return that process to work, and "active" alone would say it did.
func resumed(ctx context.Context, a *pgstore.Admin, name string) string {
	const active = "active; a worker process started from now on takes work"
	list, err := a.WorkerList(ctx)
	if err != nil {
		return active
	}
	for _, w := range list {
		switch {
		case w.Name != name:
		case w.DrainedBy == pgstore.DrainedByWorker:
			return "active; its process running now is stopping on its own and takes no new work, whatever the credential says: " +
				"it exits once its commands end, and a worker process started again takes work"
		case w.Resumed:
			return "active for its next start; its process running now heard the drain and still finishes its commands, " +
				"taking no new work, then exits: start it again and it takes work (`ql workers list` shows it draining (resumed) until then)"
		}
	}
	return active
}

// workerChange is the body of a command that changes one named worker's
// state through the admin role and says what it became.
func workerChange(getenv func(string) string, verb string, change func(*pgstore.Admin, context.Context, string) error, became string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a, err := openWorkerAdmin(cmd, getenv)
		if err != nil {
			return err
		}
		defer a.Close()
		if err := change(a, cmd.Context(), args[0]); err != nil {
			return explainWorkerErr(err, verb, needsAdmin)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "worker %s: %s\n", args[0], became)
		return nil
	}
}

// shownState is a worker's STATE in the table: its state, and for a
// worker draining because its process stops on its own, that it does; for
// one not heard from for pgstore.SilentAfter or more while its session
// lives, for how long.
func shownState(x pgstore.WorkerInfo) string {
	var why []string
	switch {
	case x.DrainedBy == pgstore.DrainedByWorker:
		why = append(why, "stopping")
	case x.Resumed:
		why = append(why, "resumed")
	}
	if d := x.SilentFor(); d > 0 {
		why = append(why, "silent "+validate.Duration(d.Truncate(time.Second)))
	}
	if len(why) == 0 {
		return x.State
	}
	return x.State + " (" + strings.Join(why, ", ") + ")"
}

// shownHeartbeat is the LAST HEARTBEAT cell: its time and, in database
// time, how long ago it was; "-" for none.
func shownHeartbeat(x pgstore.WorkerInfo) string {
	if x.LastHeartbeatMs == nil || x.HeartbeatAgeMs == nil {
		return "-"
	}
	ago := time.Duration(max(*x.HeartbeatAgeMs, 0)) * time.Millisecond
	return fmtMs(x.LastHeartbeatMs) + " (" + validate.Duration(ago.Truncate(time.Second)) + " ago)"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// fmtMs renders epoch milliseconds as UTC RFC 3339, "-" for none.
func fmtMs(ms *int64) string {
	if ms == nil {
		return "-"
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// shownLabels is the LABELS cell: the label set placement matches
// (pgstore.WorkerInfo.PlacementLabels, a list of one).
func shownLabels(x pgstore.WorkerInfo) string {
	return orDash(task.FormatWorkerLabels(x.PlacementLabels()[0]))
}

// shownReads is the READS cell: the grant fields its running processes
// read, "none" for a worker built before them, "-" with none running.
func shownReads(x pgstore.WorkerInfo) string {
	reads := x.Reads()
	switch {
	case reads == nil:
		return "-"
	case len(reads) == 0:
		return "none"
	}
	return strings.Join(reads, ",")
}

// workerJSON is the stable shape of a worker in `ql workers list -o json`.
// Labels are the credential's, as ever; SessionLabels, added beside them,
// are each live session's, which placement matches.
type workerJSON struct {
	Name            string              `json:"name"`
	State           string              `json:"state"`
	DrainedBy       string              `json:"drainedBy,omitempty"`
	Resumed         bool                `json:"resumed,omitempty"`
	Labels          map[string]string   `json:"labels"`
	SessionLabels   []map[string]string `json:"sessionLabels"`
	MaxConcurrency  int                 `json:"maxConcurrency"`
	Sessions        int                 `json:"sessions"`
	Capacity        int                 `json:"capacity"`
	FreeSlots       int                 `json:"freeSlots"`
	LastHeartbeatMs *int64              `json:"lastHeartbeatMs"`
	// HeartbeatAgeMs is how long before the listing, in database time, the
	// last heartbeat was; SilentForMs, present once a worker with a live
	// session has not been heard from for pgstore.SilentAfter, how long.
	HeartbeatAgeMs *int64 `json:"heartbeatAgeMs"`
	SilentForMs    int64  `json:"silentForMs,omitempty"`
	CreatedAtMs    int64  `json:"createdAtMs"`
	// Reads are the grant fields its live processes read (projectEnv);
	// [] for a worker built before them, null while none runs.
	Reads []string `json:"reads"`
}

func writeWorkersJSON(w io.Writer, list []pgstore.WorkerInfo) error {
	out := struct {
		Workers []workerJSON `json:"workers"`
	}{Workers: make([]workerJSON, 0, len(list))}
	for _, x := range list {
		labels := x.Labels
		if labels == nil {
			labels = map[string]string{}
		}
		sessionLabels := x.SessionLabels
		if sessionLabels == nil {
			sessionLabels = []map[string]string{}
		}
		out.Workers = append(out.Workers, workerJSON{Name: x.Name, State: x.State, DrainedBy: x.DrainedBy, Resumed: x.Resumed, Labels: labels, SessionLabels: sessionLabels, MaxConcurrency: x.MaxConcurrency,
			Sessions: x.Sessions, Capacity: x.Capacity, FreeSlots: x.FreeSlots, LastHeartbeatMs: x.LastHeartbeatMs, HeartbeatAgeMs: x.HeartbeatAgeMs, SilentForMs: x.SilentFor().Milliseconds(), CreatedAtMs: x.CreatedAtMs, Reads: x.Reads()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
