package cli

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
)

func triggersCommand(opts Options) *cobra.Command {
	c := &cobra.Command{Use: "triggers", Short: "List, show, run, pause, resume, enable, disable and backfill triggers"}
	var db dbFlags
	var out, project, after, search string
	var limit int
	list := &cobra.Command{
		Use:   "list",
		Short: "List triggers with next fire time, last run and claim",
		Example: "  " + opts.Binary + " triggers list --project examples\n" +
			"  " + opts.Binary + " triggers list --search hello\n" +
			"  " + opts.Binary + " triggers list --search jd_bean_sign.js",
		Long: `List triggers with their schedule state. --search finds a trigger by
its names and titles or by its task's script or command, and a FOUND IN column
(-o json: "foundIn") says which: name, script or command. NEXT FIRE is the next nominal
occurrence; with jitter, "(due …)" follows it: the instant the occurrence is
actually admitted. "ended" means the trigger's endAt lies before its next
occurrence: it fires no more unless republished. "archived" means the
trigger's project is archived: nothing of it runs until the project's
definitions file says status: active and is applied again, and what fell
due meanwhile is then recorded in the ledger as "project_archived", not
run. -o json says so with "archived": true and no next fire time. "paused with its project" means
the trigger's project is paused (` + "`" + opts.Binary + ` projects pause` + "`" + `) and its resume resumes it
(-o json: "pausedWithProject": true). "none worked
out here" means the zone database of this host lacks the trigger's stored
zone (a newer one published it): its occurrences cannot be worked out here, and
a line under the table says so and what mends it (-o json: "nextFireUnknown",
with no next fire time). LAST RUN is the trigger's newest run (the one admitted
last): its state and the time it was scheduled for, "-" when it has none; a
rerun shows when it was admitted, marked "(rerun)", since it repeats an older
Run's occurrence however long after, and a backfill's Run likewise, marked
"(backfill)". -o json gives it as lastRun (id, state, scheduledForMs,
createdAtMs, rerunOf for a rerun, origin, and finishedAtMs once it ended), as GET /api/v1/triggers does, and the time it last scheduled an
occurrence as lastScheduledAtMs (` + "`" + opts.Binary + ` triggers show` + "`" + ` prints it too). -o json adds each
trigger's time policies (jitterMs, startAtMs, endAtMs, catchUpWindowMs) and its
overlap policy when it is not allow. A line under the table warns of a trigger
with a backlog (ten or more Runs queued: its command is slower than its period
or the slots are full) or starving (overlap cancel_previous, and three of its
newest five Runs were cancelled before they started); -o json gives them as
warnings (code backlog or starving, count, message). Read with --data-dir while no
server runs on it, a line under the table says that a NEXT FIRE in the past is due
and waits for one.` + opts.clusterOnly(`
On the cluster the admin role's URL lists the triggers without their runs, which
it may not read: LAST RUN is "?" and a line under the table says to use the
runtime role's URL (-o json: "lastRunsUnknown", and no lastRun).`),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			if limit < 1 || limit > 500 {
				return Usagef("--limit %d is outside 1–500", limit)
			}
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			projectID, err := listedProject(cmd.Context(), b, project)
			if err != nil {
				return err
			}
			v, err := triggerPage(cmd.Context(), b, schedule.TriggerListParams{ProjectID: projectID, Limit: limit, After: after, Search: search})
			if err != nil {
				return err
			}
			var notes []string
			for _, t := range v.Triggers {
				if t.NextFireUnknown != "" {
					notes = append(notes, asSuggested(cmd, fmt.Sprintf("%s/%s: %s (%s)", t.ProjectName, t.Name, nextFiresUnknown, t.NextFireUnknown)))
				}
				for _, warning := range t.Warnings {
					notes = append(notes, fmt.Sprintf("%s/%s: %s", t.ProjectName, t.Name, warning.Message))
				}
			}
			if v.LastRunsUnknown != "" {
				notes = append(notes, "LAST RUN "+lastRunUnknown+": "+v.LastRunsUnknown)
			}
			// Only a page with an overdue trigger asks, with the host's
			// clock: the clock of the database no server runs on.
			nowMs := time.Now().UnixMilli()
			if slices.ContainsFunc(v.Triggers, func(t view.Trigger) bool { return overdue(t, nowMs) }) {
				if u := unservedDir(cmd, b); u.DataDir != "" {
					note := unservedTriggers(cmd, u)
					notes = append(notes, note)
					v.NoServer = &view.NoServer{DataDir: u.DataDir, Message: note}
				}
			}
			// A TITLE column beside the trigger's name only on a page that
			// has a title: most triggers have none.
			titled := slices.ContainsFunc(v.Triggers, func(t view.Trigger) bool { return t.Title != "" })
			header := []string{"PROJECT", "TRIGGER"}
			if titled {
				header = append(header, "TITLE")
			}
			header = append(header, "REV", "ENABLED", "CRON", "ZONE", "NEXT FIRE", "LAST RUN", "CLAIM")
			// A search says where it found each trigger: a script's file
			// name matches no column the table shows.
			if search != "" {
				header = append(header, "FOUND IN")
			}
			return printListing(cmd, out, listing[view.Trigger]{
				json:   v,
				header: header,
				items:  v.Triggers,
				row: func(t view.Trigger) []string {
					claim := "-"
					if t.ClaimOwner != nil {
						claim = *t.ClaimOwner + " until " + fmtMs(t.ClaimExpiresAtMs)
					}
					row := []string{t.ProjectName, t.Name}
					if titled {
						row = append(row, cmp.Or(t.Title, "-"))
					}
					row = append(row, fmt.Sprint(t.Revision), fmt.Sprint(t.Enabled), t.Cron.Expression, t.Cron.Timezone,
						nextFire(t), lastRun(t, v.LastRunsUnknown != ""), claim)
					if search != "" {
						row = append(row, cmp.Or(string(t.FoundIn), "-"))
					}
					return row
				},
				notes: notes,
				next:  v.Next,
				none:  NoneLine("trigger", project != "" || after != "" || search != "", "`"+suggest(cmd, "apply", "-f", "FILE")+"` publishes the triggers of a definitions file") + searchReads(search),
			})
		},
	}
	addDBFlags(list, &db, opts.OpenPostgres != nil)
	addServerFlag(list, &db)
	addOutputFlag(list, &out)
	list.Flags().StringVar(&project, "project", "", "only triggers of this project (name or id)")
	list.Flags().IntVar(&limit, "limit", 100, "page size (1–500)")
	list.Flags().StringVar(&after, "after", "", "continue after this trigger id")
	list.Flags().StringVar(&search, "search", "", "only triggers whose project/trigger name, task name, or trigger, task or project title, or whose task's script or command (program and arguments), holds this text (case of A–Z ignored; % and _ match themselves); a FOUND IN column says which")
	c.AddCommand(list, triggersShowCommand(opts), triggersPauseCommand(opts, true), triggersPauseCommand(opts, false),
		triggersRunCommand(opts), triggersBackfillCommand(opts), triggersEnableCommand(opts, true), triggersEnableCommand(opts, false))
	return c
}

// nextFiresUnknown is what the trigger listing and `triggers show` say of
// next fires this server cannot work out, before the refusal saying why.
const nextFiresUnknown = "none worked out here"

// nextFire is a trigger's next nominal fire time, with its jittered due
// time when jitter moves it, "ended" once endAt has passed, or "archived"
// or "paused" (its cursor is then a time that passes without a Run), or
// nextFiresUnknown when this server cannot work it out (a stored zone its
// host lacks), the stored cursor being no time it fires at.
func nextFire(t view.Trigger) string {
	switch {
	case t.Archived:
		return "archived"
	case t.PausedWithProject:
		return "paused with its project"
	case t.Paused:
		return "paused"
	case t.NextFireUnknown != "":
		return nextFiresUnknown
	case t.Ended:
		return "ended"
	case t.NextDueAtMs != nil && *t.NextDueAtMs != *t.NextFireAtMs:
		return fmtMs(t.NextFireAtMs) + " (due " + fmtMs(t.NextDueAtMs) + ")"
	}
	return fmtMs(t.NextFireAtMs)
}

// lastRunUnknown is the LAST RUN cell of a listing whose role may not read
// Runs, before the note saying so: "-" would say the trigger never ran.
const lastRunUnknown = "?"

// lastRun is the LAST RUN cell: the state of the trigger's newest Run and
// the time it is listed at (the occurrence it is for; a rerun's admission,
// marked as a rerun), "-" when it has none.
func lastRun(t view.Trigger, unknown bool) string {
	switch {
	case unknown:
		return lastRunUnknown
	case t.LastRun == nil:
		return "-"
	}
	at := t.LastRun.ListedAtMs()
	if mark := t.LastRun.Mark(); mark != "" {
		return string(t.LastRun.State) + " " + fmtMs(&at) + " (" + string(mark) + ")"
	}
	return string(t.LastRun.State) + " " + fmtMs(&at)
}

// triggerPage is a page of triggers as `triggers list` prints it, each
// with its newest Run: shaped here from the database, or by the server
// that --api-url names, from the same view. A database role that may not
// read Runs (the cluster's admin role, which may list triggers) lists
// them all the same, saying why no last Run is shown.
func triggerPage(ctx context.Context, b *Backend, p schedule.TriggerListParams) (view.TriggerList, error) {
	if b.api != nil {
		return b.api.TriggerPage(ctx, p)
	}
	list, next, err := b.Triggers.TriggerList(ctx, p)
	if err != nil {
		return view.TriggerList{}, err
	}
	if len(list) == 0 {
		return view.NewTriggerList(list, next, nil), nil
	}
	last, err := b.LastRuns.RunsLast(ctx, view.TriggerIDs(list))
	if qlerror.CodeOf(err) == qlerror.PermissionDenied {
		v := view.NewTriggerList(list, next, nil)
		v.LastRunsUnknown = err.Error()
		return v, nil
	}
	if err != nil {
		return view.TriggerList{}, err
	}
	return view.NewTriggerList(list, next, last), nil
}

// searchReads is what an empty list given search adds to its line: what a
// search reads, names and commands, and what it does not: a variable's
// value, which a user of a panel whose search reads env may type.
func searchReads(search string) string {
	if search == "" {
		return ""
	}
	return "; --search reads project, trigger and task names and titles and the task's script or command, not its env"
}
