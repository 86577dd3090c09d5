package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/view"
)

func oneTriggerArgs(verb string) cobra.PositionalArgs {
	return oneArg("triggers " + verb + " takes one trigger: its name, project/name or id")
}

func triggersShowCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out, project string
	var runs, ledger int
	c := &cobra.Command{
		Use:     "show NAME",
		Short:   "Show a trigger: its schedule, next fire times, last runs and the occurrences it passed over",
		Example: "  " + opts.Binary + " triggers show examples/hello-every-10s --ledger 100",
		Long: `Show one trigger (NAME is its name, project/name, or id): its revision, cron, zone and misfire
policy, whether it is enabled, paused (with the pause note) or archived with its project, its next
fire times computed from the database's clock and shown in the trigger's zone (with jitter, each with
"(due …)", the instant it is admitted at; an occurrence whose nominal time has passed while it waits
out its jitter comes first: it has not fired yet; none, saying why and what mends it, when the zone
database of this host lacks the trigger's zone), a warning line when it has a backlog of queued Runs
or is starving under overlap cancel_previous (as ` + "`" + opts.Binary + ` triggers list` + "`" + ` says), its last --runs runs
(saying when older ones exist: ` + "`" + opts.Binary + ` runs list --trigger NAME` + "`" + ` lists them all), and its
occurrence ledger: every occurrence that fell due without a Run, with the reason (misfire, collapsed,
paused, ...) and how many; when its next occurrence is due and no decision took it yet, a line says it
waits for the scheduler (read with --data-dir while no server runs there: for which command). The ledger shows its newest --ledger entries and says when older ones are
left out; --ledger ` + strconv.Itoa(view.MaxLedgerShown) + ` shows all of it (the newest entries in full, older ones summed per reason).
Last come its newest ` + strconv.Itoa(schedule.AuditShown) + ` audit records, newest first: each pause, resume, enable and disable, who
asked (the operating-system user, or the API token or console user with its address), when, and the note.
` + apiHelp("triggers show") +
			opts.clusterOnly("\nOn the cluster this reads runs, so it needs the runtime role's URL, as `ql runs` does."),
		Args: oneTriggerArgs("show"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			if runs < 1 || runs > run.MaxPageSize {
				return Usagef("--runs %d is outside 1–%d", runs, run.MaxPageSize)
			}
			if ledger < 1 || ledger > view.MaxLedgerShown {
				return Usagef("--ledger %d is outside 1–%d", ledger, view.MaxLedgerShown)
			}
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Detail == nil && b.api == nil {
				return fmt.Errorf("this build cannot show triggers of this database")
			}
			_, id, err := resolveTriggerArg(cmd.Context(), b.Triggers, project, args[0])
			if err != nil {
				return err
			}
			v, err := triggerView(cmd.Context(), b, id, runs, ledger)
			if err != nil {
				return err
			}
			if out == "json" {
				return writeJSON(cmd.OutOrStdout(), v)
			}
			var unserved Unattended
			if overdue(v.Trigger, v.NowMs) {
				unserved = unservedDir(cmd, b)
			}
			return printTriggerDetail(cmd, v, unserved)
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	c.Flags().StringVar(&project, "project", "", "the trigger's project (name or id), when its name is not unique")
	c.Flags().IntVar(&runs, "runs", 10, fmt.Sprintf("how many of its last runs to show (1–%d)", run.MaxPageSize))
	c.Flags().IntVar(&ledger, "ledger", 20, fmt.Sprintf("how many of its newest ledger entries to show (1–%d; %d is the whole ledger)", view.MaxLedgerShown, view.MaxLedgerShown))
	return c
}

// triggerView is trigger id as `triggers show` prints it, with its last
// runs and its newest ledger entries: shaped here from the database, or
// by the server that --api-url names, from the same view.
func triggerView(ctx context.Context, b *Backend, id string, runs, ledger int) (view.TriggerDetail, error) {
	if b.api != nil {
		return b.api.TriggerView(ctx, id, runs, ledger)
	}
	d, err := b.Detail.TriggerDetail(ctx, id, view.DetailLedgerRead(ledger))
	if err != nil {
		return view.TriggerDetail{}, err
	}
	list, next, err := b.Runs.RunList(ctx, run.ListParams{TriggerID: id, Limit: runs})
	if err != nil {
		return view.TriggerDetail{}, err
	}
	v, err := view.NewTriggerDetail(d, list, next, ledger)
	if err != nil || b.LastRuns == nil {
		return v, err
	}
	last, err := b.LastRuns.RunsLast(ctx, []string{v.Trigger.TriggerID})
	if err != nil {
		return view.TriggerDetail{}, err
	}
	v.Trigger.Warnings = view.WarningsOf(v.Trigger.Cron, last[v.Trigger.TriggerID])
	return v, nil
}

func printTriggerDetail(cmd *cobra.Command, v view.TriggerDetail, unserved Unattended) error {
	w := textWriter{cmd.OutOrStdout()}
	t := v.Trigger
	paused := "no"
	if v.Paused {
		paused = "since " + fmtMs(v.PausedAtMs)
		if t.PausedWithProject {
			paused = "with its project " + t.ProjectName + " " + paused
		}
		if v.PauseNote != "" {
			paused += ": " + oneLine(v.PauseNote)
		}
	}
	next := "next " + fmtMs(t.NextFireAtMs)
	switch {
	case t.Archived:
		next = "archived (project " + t.ProjectName + " is archived)"
	case t.Ended:
		next = "ended (past endAt)"
	}
	fmt.Fprintf(w, "trigger    %s/%s (%s) revision %d\ntask       %s (%s) revision %d\ncron       %s  zone %s  misfire %s\nenabled    %t\npaused     %s\ncursor     %s, last scheduled %s\n",
		t.ProjectName, t.Name, t.TriggerID, t.Revision, t.TaskName, t.TaskID, t.TaskRevision, t.Cron.Expression, t.Cron.Timezone, t.Cron.MisfirePolicy,
		t.Enabled, paused, next, fmtMs(t.LastScheduledAtMs))
	if titles := titlesLine(t); titles != "" {
		fmt.Fprintf(w, "title      %s\n", titles)
	}
	if p := policiesLine(t); p != "" {
		fmt.Fprintf(w, "policies   %s\n", p)
	}
	for _, warning := range t.Warnings {
		fmt.Fprintf(w, "warning    %s\n", warning.Message)
	}
	note := ""
	switch {
	case t.Archived:
		note = "; archived: none of these fires until project " + t.ProjectName + " is active again"
	case !t.Enabled:
		note = "; disabled: none of these fires"
	case t.PausedWithProject:
		note = "; paused with its project: none of these fires until the project is resumed"
	case v.Paused:
		note = "; paused: none of these fires until it is resumed"
	}
	fmt.Fprintf(w, "\nnext fire times (clock %s%s):\n", fmtMs(&v.NowMs), note)
	for _, f := range v.NextFires {
		due := ""
		if f.DueAtMs != f.AtMs {
			due = "  (due " + fmtMs(&f.DueAtMs) + ")"
		}
		fmt.Fprintf(w, "  %s  %s%s\n", f.Local, fmtMs(&f.AtMs), due)
	}
	switch {
	case v.NextFiresUnknown != "":
		fmt.Fprintf(w, "  (%s: %s)\n", nextFiresUnknown, asSuggested(cmd, v.NextFiresUnknown))
	case len(v.NextFires) == 0:
		fmt.Fprintln(w, "  (none: the trigger has ended)")
	}
	tw := NewTable(w)
	fmt.Fprintln(tw, "\nRUN\tSTATE\tSCHEDULED FOR\tREV")
	for _, r := range v.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", r.ID, r.State, fmtMs(&r.ScheduledForMs), r.TriggerRevision)
	}
	if len(v.Runs) == 0 {
		fmt.Fprintln(tw, "(no runs)")
	}
	if v.RunsMore {
		fmt.Fprintf(tw, "(older runs than these %d are not shown: `%s` lists them all)\n", len(v.Runs), suggest(cmd, "runs", "list", "--trigger", t.ProjectName+"/"+t.Name))
	}
	fmt.Fprintln(tw, "\nPASSED OVER\tCOUNT\tFIRST\tLAST\tREV\tRECORDED")
	for _, e := range v.Ledger {
		count := fmt.Sprint(e.Count)
		if e.AtLeast {
			count = "≥" + count
		}
		reason := e.Reason
		if e.Compacted {
			reason += " (older, summed)"
		}
		if e.Backfilled > 0 {
			reason += " (" + plural.Count(e.Backfilled, "occurrence", "occurrences") + " backfilled since)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", reason, count, fmtMs(&e.FirstMs), fmtMs(&e.LastMs), e.TriggerRevision, fmtMs(&e.RecordedAtMs))
	}
	switch {
	case v.DueWhilePaused != nil:
		fmt.Fprintln(tw, dueWhilePausedNote(v.DueWhilePaused))
	case overdue(t, v.NowMs):
		// Its next occurrence fell due and no decision took it yet: it
		// has neither its Run nor a ledger entry, and will get one.
		fmt.Fprintf(tw, "(the occurrence at %s is due and waits for the scheduler to admit it or pass it over; %s)\n", fmtMs(t.NextFireAtMs), overdueWhy(cmd, unserved))
	case len(v.Ledger) == 0:
		fmt.Fprintln(tw, "(every occurrence so far got its run)")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if v.LedgerMore {
		fmt.Fprintf(w, "(older entries than these %d are not shown: --ledger %d shows the whole ledger)\n", len(v.Ledger), view.MaxLedgerShown)
	}
	return printAudit(w, v)
}

// dueWhilePausedNote says what a paused trigger's ledger does not show yet:
// the occurrences that fell due since the pause, recorded only at resume.
func dueWhilePausedNote(d *view.DueWhilePaused) string {
	count := plural.Count(d.Count, "occurrence", "occurrences")
	if d.AtLeast {
		count = "at least " + count
	}
	return fmt.Sprintf("(paused: %s fell due since the pause, %s to %s, without a run; the ledger records them, passed over as paused, when the trigger is resumed)",
		count, fmtMs(&d.FirstMs), fmtMs(&d.LastMs))
}

// printAudit prints the trigger's newest audit records, newest first.
func printAudit(w io.Writer, v view.TriggerDetail) error {
	if v.AuditUnreadable {
		_, err := fmt.Fprintf(w, "\naudit trail not shown: %s\n", view.AuditUnreadableHint)
		return err
	}
	tw := NewTable(w)
	fmt.Fprintln(tw, "\nAUDITED AT\tACTION\tBY\tNOTE")
	for _, a := range v.Audit {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", fmtMs(&a.AtMs), auditCell(a.Action), auditCell(a.Actor), cmp.Or(auditCell(a.Note), "-"))
	}
	if len(v.Audit) == 0 {
		fmt.Fprintln(tw, "(never paused, resumed, enabled or disabled)")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if v.AuditMore {
		fmt.Fprintf(w, "(older records than these %d are not shown: the table trigger_schedule_audit keeps them all)\n", len(v.Audit))
	}
	return nil
}

// auditCellRunes is the most characters of one audit text a table cell
// shows: a note may hold a thousand, which would bury the rest of the
// table; -o json carries it whole.
const auditCellRunes = 120

// auditCell makes an audit record's text safe for one table cell (a
// pause refuses control and text-direction characters in a note, but an
// actor, or a record written with SQL, may hold them): oneLine, at most
// auditCellRunes characters, cut with "…".
func auditCell(s string) string {
	if utf8.RuneCountInString(s) > auditCellRunes {
		s = string([]rune(s)[:auditCellRunes]) + "…"
	}
	return oneLine(s)
}

// policiesLine names a trigger's time policies and its overlap policy
// when it is not allow, or "" when it has none of them.
func policiesLine(t view.Trigger) string {
	var parts []string
	for _, p := range t.Cron.Policies() {
		value := validate.Duration(time.Duration(p.Ms) * time.Millisecond)
		if p.Instant {
			value = fmtMs(&p.Ms)
		}
		parts = append(parts, p.Name+" "+value)
	}
	if t.Cron.Overlap != "" {
		parts = append(parts, "overlap "+t.Cron.Overlap)
	}
	return strings.Join(parts, "  ")
}

// pauseRoles says which cluster roles may pause and resume: the replicas,
// which run as the runtime role, pause and resume from the API and the
// console, so that role may append to the audit of it as well.
const pauseRoles = "On the cluster this needs the admin or the runtime role's URL."

func triggersPauseCommand(opts Options, pause bool) *cobra.Command {
	var db dbFlags
	var project, note, out string
	verb := "resume"
	c := &cobra.Command{
		Use:   "resume NAME [--note TEXT]",
		Short: "Resume a paused trigger",
		Long: `Resume a paused trigger (NAME is its name, project/name, or id). The next decision sees what fell due
while it was paused and applies the trigger's misfire policy, as after an outage: under fire_once the
oldest missed occurrence runs once (if any), under skip one still within the grace period runs. Every
occurrence that fell due during the pause and got no Run is recorded in the ledger as "paused"
(` + "`" + opts.Binary + " triggers show`" + `). Resuming a trigger that is not paused changes nothing.
The resume is recorded as a pause is: who asked (the operating-system user, or over --api-url the API
token and the address it came from), when and the note, if given (why it runs again), which
` + "`" + opts.Binary + " triggers show`" + ` and the console show with its record.
` + apiHelp("triggers resume") + opts.clusterOnly("\n"+pauseRoles),
	}
	if pause {
		verb = "pause"
		c.Use, c.Short = "pause NAME [--note TEXT]", "Pause a trigger: nothing of it is scheduled until it is resumed"
		c.Example = "  " + opts.Binary + " triggers pause examples/hello-every-10s --note 'db upgrade'"
		c.Long = `Pause a trigger (NAME is its name, project/name, or id). While paused no occurrence of its
cron is admitted (` + "`" + opts.Binary + " triggers run`" + ` still runs it on request); it is schedule state, not a new
trigger revision, so publishing the trigger again does not resume it. Each pause and resume is
recorded with who (the operating-system user, or over --api-url the API token and the address it came
from), when (the database's clock) and the note, in the table trigger_schedule_audit (triggers show
shows its newest records). Pausing a paused trigger changes nothing and keeps the first note.
Resuming applies the trigger's misfire policy to what fell due meanwhile, as after an outage: under
fire_once (the default) the oldest missed occurrence runs once at resume, under skip one still within
the grace period; to run none, give the trigger catchUpWindow: 0s in its definitions file.
` + apiHelp("triggers pause") + opts.clusterOnly("\n"+pauseRoles)
		c.Flags().StringVar(&note, "note", "", "why it is paused, shown by triggers show (up to "+strconv.Itoa(schedule.MaxPauseNote)+" characters)")
	} else {
		c.Flags().StringVar(&note, "note", "", "why it runs again, kept with the resume's record and shown by triggers show (up to "+strconv.Itoa(schedule.MaxPauseNote)+" characters)")
	}
	c.Args = oneTriggerArgs(verb)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if err := checkOutput(out); err != nil {
			return err
		}
		b, err := openPauser(cmd, opts, &db, note, verb+" triggers", func(b *Backend) bool { return b.Pause != nil })
		if err != nil {
			return err
		}
		defer b.Close()
		t, err := findTrigger(cmd, b.Triggers, project, args[0])
		if err != nil {
			return err
		}
		res, err := b.Pause.TriggerPause(cmd.Context(), schedule.PauseRequest{TriggerID: t.TriggerID, Pause: pause, Note: note, Actor: actor()})
		if err != nil {
			return err
		}
		res.Queued = queuedAtPause(cmd.Context(), b, pause, res.Queued, run.ListParams{TriggerID: t.TriggerID})
		if out == "json" {
			return writeJSON(cmd.OutOrStdout(), view.NewTriggerPause(t.TriggerID, res))
		}
		msg := pauseMessage(args[0], suggest(cmd, "triggers", "resume", qualified(t)), pause, res)
		if left := run.QueuedBeforeThePause(res.Queued, suggest(cmd, "runs", "cancel", "--state", "queued", "--trigger", qualified(t))); left != "" {
			msg += "; " + left
		}
		fmt.Fprintln(cmd.OutOrStdout(), msg)
		return nil
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	c.Flags().StringVar(&project, "project", "", "the trigger's project (name or id), when its name is not unique")
	return c
}

// pauseMessage is what pausing (or resuming) trigger name did; resume is
// the command that resumes it, as suggest words it.
func pauseMessage(name, resume string, pause bool, res schedule.PauseResult) string {
	at := fmtMs(&res.AtMs)
	switch {
	case pause && res.Changed:
		return fmt.Sprintf("trigger %s: paused at %s; resume it with `%s`", name, at, resume)
	case pause:
		msg := fmt.Sprintf("trigger %s: already paused since %s; nothing changed", name, at)
		if res.Note != "" {
			msg += " (note: " + oneLine(res.Note) + ")"
		}
		return msg
	case res.Changed:
		return fmt.Sprintf("trigger %s: resumed at %s; what fell due while paused is recorded as paused, and the misfire policy decides whether the oldest of it runs", name, at)
	}
	return fmt.Sprintf("trigger %s: not paused; nothing changed", name)
}

// actor names who pauses or resumes, for the audit record: the
// operating-system user.
func actor() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return truncate(u.Username)
	}
	return truncate(cmp.Or(os.Getenv("USER"), "unknown"))
}

func truncate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 128 {
		return s[:128]
	}
	return cmp.Or(s, "unknown")
}

// openPauser opens the database (or the server --api-url names) for a
// pause or resume, once the note is one a pause keeps; can says whether
// the opened backend pauses what the command names, and action (such as
// "pause triggers") words the refusal of one that does not.
func openPauser(cmd *cobra.Command, opts Options, db *dbFlags, note, action string, can func(*Backend) bool) (*Backend, error) {
	if err := checkPauseNote(note); err != nil {
		return nil, err
	}
	b, err := openExistingForWrite(cmd.Context(), opts, db)
	if err != nil {
		return nil, err
	}
	if !can(b) {
		b.Close()
		return nil, fmt.Errorf("this build cannot %s of this database", action)
	}
	return b, nil
}

// checkPauseNote refuses a --note longer than a pause keeps, before the
// database is opened: a trigger's pause and a project's alike.
func checkPauseNote(note string) error {
	if n := utf8.RuneCountInString(note); n > schedule.MaxPauseNote {
		return Usagef("--note is %d characters; at most %d", n, schedule.MaxPauseNote)
	}
	return nil
}
