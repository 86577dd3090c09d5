package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
)

// backfillChunk is how many occurrences one backfill transaction admits:
// a long window goes as several, with progress after each.
const backfillChunk = 1_000

func triggersRunCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out, project, requestID string
	var force bool
	var follow followFlags
	c := &cobra.Command{
		Use:   "run NAME [--request-id ID] [--force]",
		Short: "Run a trigger now: admit one manual Run of it at once",
		Long: `Admit one manual Run of a trigger now (NAME is its name, project/name, or id), beside its schedule:
the cursor and the next fire times do not move. The Run's idempotency key is
ql3:manual:v1:<trigger id>:<request id>, so repeating the command with the same --request-id never
makes a second Run (it prints the first one, even once the trigger has been disabled since); without
--request-id a fresh one is generated and printed; an empty one is refused. When the answer is lost
after the request left (the server or the database may have made the Run), the command says so,
exits 1 and prints the command that asks again with the request id it sent (-o json: also on stdout,
as requestId and askAgain, with outcomeUnknown: true). Repeated with another --force than the first
time, a request id is refused as reused (exit 4). The trigger's overlap policy applies: under skip,
a request while an earlier Run of the trigger is unfinished is refused, under queue_one the Run waits for the unfinished one (refused
while one waits already, or one has not started yet), under cancel_previous the unfinished Runs are
cancelled first, the output names them (-o json: "cancelled") and the new Run takes the newest one's
place in the queue; a refused request prints "not run" (-o json: "skipped") and exits 3, so a script
can tell that nothing ran.
--force admits it regardless, to run at once. A paused trigger may run now; a disabled one,
or one of an archived project, may not (set the project's status: active and ` + "`" + opts.Binary + ` apply` + "`" + ` it first).
Who asked (the operating-system user, or over --api-url the API token and the address it came from),
the request id and --force are recorded in the Run's run.created event. A server starts the Run: when
none runs on the database, a note on stderr says so and what to start` + opts.clusterOnly(" (on the cluster: a replica, or a worker that can take it)") + `
(over --api-url a server answered, so there is no such note). On a data directory handed over
(export --with-state) it is refused (database_handed_over, exit 4): the triggers run where the
state was applied, so ask there. ` + returnsQueued(opts, "Run") + `
` + apiHelp("triggers run") +
			opts.clusterOnly(" On the cluster the database path needs the runtime role's URL, as `ql runs` does."),
		Args: oneTriggerArgs("run"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			if err := follow.check(out); err != nil {
				return err
			}
			if err := requestIDFlag(cmd, requestID); err != nil {
				return err
			}
			req := schedule.RunNowRequest{RequestID: requestID, Force: force, Actor: actor()}
			if req.RequestID == "" {
				// Generated here, not in the store, so it can be printed and
				// given again to repeat this very request.
				id, err := schedule.RequestIDOf(req)
				if err != nil {
					return err
				}
				req.RequestID = id
			}
			if _, err := schedule.RequestIDOf(req); err != nil {
				return Usagef("--request-id: %v", err)
			}
			b, err := openExistingForWrite(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Manual == nil {
				return fmt.Errorf("this build cannot run triggers of this database now")
			}
			if err := refuseQueueingHandedOver(cmd.Context(), cmd, b); err != nil {
				return err
			}
			_, id, err := resolveTriggerArg(cmd.Context(), b.Triggers, project, args[0])
			if err != nil {
				return err
			}
			req.TriggerID = id
			res, err := b.Manual.TriggerRunNow(cmd.Context(), req)
			if answerLost(err) {
				return lostAnswer(cmd, out, err, "the request may have queued a Run", lostAnswerView{TriggerID: id, RequestID: req.RequestID,
					AskAgain: suggest(cmd, runNowAgain(cmd, args[0], project, req)...)})
			}
			if err != nil {
				return disabledHint(cmd, b.Triggers, id, pinHint(cmd, b, id, err))
			}
			if res.Created && !follow.follow {
				noteUnattended(cmd, opts, b, res.RunID, 1)
			}
			if out == "json" {
				err = writeJSON(cmd.OutOrStdout(), runNowView{TriggerID: id, RequestID: req.RequestID, RunID: res.RunID, Created: res.Created,
					Skipped: string(res.Skipped), Unfinished: res.Unfinished, Waiting: res.Waiting, Cancelled: res.Cancelled, Waits: waitsOf(cmd.Context(), b, res.RunID)})
			} else {
				printRunNow(cmd.OutOrStdout(), cmd, args[0], req.RequestID, res)
			}
			if err == nil && res.Skipped != "" {
				return errRefused
			}
			if err == nil && follow.follow {
				return printRunLog(cmd, opts, b, res.RunID, 0, true, follow.exitStatus, 0)
			}
			return err
		},
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	c.Flags().StringVar(&project, "project", "", "the trigger's project (name or id), when its name is not unique")
	c.Flags().StringVar(&requestID, "request-id", "", "names this request: repeating it never makes a second Run (letters, digits, ._-; default: generated)")
	c.Flags().BoolVar(&force, "force", false, "admit the Run even when the trigger's overlap policy would refuse it")
	addFollowFlags(c, &follow, opts, "triggers run backup")
	return c
}

// runNowAgain is the command line of `triggers run` (cmd) asking req
// again for the trigger the user named name (in project, when given): its
// request id and force as sent, so the server answers the Run the first
// asking made, if it made one, and makes it if not.
func runNowAgain(cmd *cobra.Command, name, project string, req schedule.RunNowRequest) []string {
	words := []string{"triggers", "run", name}
	if project != "" {
		words = append(words, "--project", project)
	}
	words = append(words, "--request-id", req.RequestID)
	if req.Force {
		words = append(words, "--force")
	}
	return append(words, outputWords(cmd)...)
}

// outputWords is -o json when cmd was given it, for a command it suggests
// to print as it does.
func outputWords(cmd *cobra.Command) []string {
	if fl := cmd.Flags().Lookup("output"); fl != nil && fl.Value.String() == "json" {
		return []string{"-o", "json"}
	}
	return nil
}

// runNowView is `triggers run -o json`.
type runNowView struct {
	TriggerID string `json:"triggerId"`
	RequestID string `json:"requestId"`
	RunID     string `json:"runId,omitempty"`
	Created   bool   `json:"created"`
	Skipped   string `json:"skipped,omitempty"`
	// Unfinished is the earlier Run the overlap policy refused this one
	// beside, with skipped; waiting says it is one that already waits
	// (queue_one), not an unfinished one.
	Unfinished string `json:"unfinished,omitempty"`
	Waiting    bool   `json:"waiting,omitempty"`
	// Cancelled are the unfinished Runs cancel_previous cancelled to
	// admit this one, oldest first.
	Cancelled []string `json:"cancelled,omitempty"`
	// Waits is the API's answer's waits (waitsOf).
	Waits *view.Waiting `json:"waits,omitempty"`
}

// noteUnattended tells on stderr what would leave the runs Runs just
// queued (runID one of them) waiting with nothing to start them: without
// a word the user would wait for Runs that no server, replica or worker is
// there to take. It says nothing when the profile cannot tell, and never
// fails the command: the Runs are queued either way.
func noteUnattended(cmd *cobra.Command, opts Options, b *Backend, runID string, runs int) {
	noteUnattendedOf(cmd, opts, b, runID, runs, false)
}

// noteUnattendedOf is noteUnattended; for a follower (following) it says
// neither why no worker takes the Run (the follower says that itself, as
// it changes) nor that it could not tell (one who may read the database
// may not be able to look for its server, and the output is what they
// asked for).
func noteUnattendedOf(cmd *cobra.Command, opts Options, b *Backend, runID string, runs int, following bool) {
	if b.Unattended == nil {
		return
	}
	w := textWriter{cmd.ErrOrStderr()}
	u, err := b.Unattended(cmd.Context(), runID)
	if err != nil {
		if !following {
			fmt.Fprintf(w, "note: could not tell whether anything will start run %s: %v\n", runID, err)
		}
		return
	}
	waits := "the Run waits"
	if runs > 1 {
		waits = fmt.Sprintf("the %d Runs wait", runs)
	}
	switch {
	case u.NoServer && u.HandedOver:
		stays := "the Run stays queued here, and runs only"
		if runs > 1 {
			stays = fmt.Sprintf("the %d Runs stay queued here, and run only", runs)
		}
		fmt.Fprintf(w, "note: %s\n", handedOver(cmd, u.DataDir, stays))
	case u.NoServer:
		fmt.Fprintf(w, "note: no server is running on this database (%s): %s until `%s` starts there\n", u.DataDir, waits, suggest(cmd, "serve", "--data-dir", u.DataDir))
	}
	if u.NoReplica {
		fmt.Fprintf(w, "note: no replica is running on this database: %s until one starts (`%s serve --profile cluster`) and a worker takes it\n", waits, opts.Binary)
	}
	if u.Worker != nil && !following {
		fmt.Fprintf(w, "note: %s: %s\n", waits, u.Worker.Message())
	}
}

// overlapRefusal says why the overlap policy refused a Run: the earlier
// Run (of what) it was refused beside, with the command that shows it.
// Under queue_one (waiting) that Run already waits behind an unfinished
// one, and no second may; else it is unfinished. A server of an earlier
// build names none.
func overlapRefusal(cmd *cobra.Command, id, of string, waiting bool) string {
	switch {
	case id == "":
		return "an earlier run" + of + " is unfinished and the overlap policy refuses another"
	case waiting:
		return fmt.Sprintf("run %s%s already waits in the queue for an unfinished run before it (`%s`), and queue_one lets only one wait", id, of, suggest(cmd, "runs", "show", id))
	}
	return fmt.Sprintf("the earlier run %s%s is unfinished (`%s`) and the overlap policy refuses another", id, of, suggest(cmd, "runs", "show", id))
}

// cancelledFor says which unfinished Runs of the trigger its overlap
// policy cancelled to admit runID, and that runID starts once they have
// stopped: run now and re-run say it alike.
func cancelledFor(runID string, cancelled []string) string {
	runs, they := "run", "it has"
	if len(cancelled) > 1 {
		runs, they = "runs", "they have"
	}
	return fmt.Sprintf("its overlap policy, cancel_previous, cancelled the unfinished %s %s, and run %s starts once %s stopped",
		runs, strings.Join(cancelled, ", "), runID, they)
}

func printRunNow(w io.Writer, cmd *cobra.Command, name, requestID string, res schedule.RunNowResult) {
	switch {
	case res.Skipped != "":
		fmt.Fprintf(w, "trigger %s: not run (%s: %s); --force runs it anyway\n", name, res.Skipped, overlapRefusal(cmd, res.Unfinished, "", res.Waiting))
	case res.Created && len(res.Cancelled) > 0:
		fmt.Fprintf(w, "trigger %s: run %s queued (request %s; `%s`); %s\n", name, res.RunID, requestID, suggest(cmd, "runs", "show", res.RunID),
			cancelledFor(res.RunID, res.Cancelled))
	case res.Created:
		fmt.Fprintf(w, "trigger %s: run %s queued (request %s; `%s`)\n", name, res.RunID, requestID, suggest(cmd, "runs", "show", res.RunID))
	default:
		fmt.Fprintf(w, "trigger %s: request %s already made run %s; nothing new was queued\n", name, requestID, res.RunID)
	}
}

func triggersBackfillCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out, project, from, to string
	var maxN int
	var dryRun bool
	c := &cobra.Command{
		Use:     "backfill NAME --from T --to T [--max N] [--dry-run]",
		Short:   "Admit the past occurrences of a window that have no Run",
		Example: "  " + opts.Binary + " triggers backfill examples/disk-usage-hourly --from 2026-11-01T00:00:00Z --to 2026-11-02T00:00:00Z --dry-run",
		Long: `Admit a Run for every occurrence of a trigger's cron between --from and --to (RFC 3339 instants,
inclusive, like 2026-11-01T00:00:00Z) that has none, each with the idempotency key its scheduled
admission would have had: an occurrence that already ran (under any revision of the trigger) is
counted as existing and never run twice, and repeating a backfill admits nothing new. Occurrences
passed over (misfire, collapsed, paused, overlap, ...) get their Run now. Only occurrences the
schedule has already decided are taken: the ones from the trigger's next fire time on (from its
publication on, while no server has run its schedule) are left to it. A window that takes none of
its occurrences says why (it holds none from the trigger's startAt on, none up to its endAt, or
only occurrences not decided yet) and what to do; -o json gives it as nothingTaken. The
occurrences are those of the trigger's current revision (its cron, timezone and jitter): a window
before a change of cron holds the new cron's times, not the old ones (as a scheduler backfilling
with today's definition does); an occurrence that ran at the same instant under an older revision
still counts as existing. The window may reach back before the trigger was created (a backfill
fills history); the trigger's startAt and endAt bound it. At most --max occurrences are considered
(default 1000); the report says where the window was
cut. Overlap and pause do not apply. Progress goes to stderr every 1000 occurrences, and a note
when nothing will start the Runs queued, as for ` + "`" + opts.Binary + ` triggers run` + "`" + `, and on a data
directory handed over (export --with-state) it is refused as that is, --dry-run excepted.
Repeated, a backfill admits nothing twice and -o json names the Runs the existing occurrences
have (existingRunIds): those an earlier backfill, whose answer was lost, admitted.
--dry-run counts what the backfill would do — the occurrences, the first and last of them, how many
would get a Run and how many already have one — in the very transactions the backfill would run,
then rolls them back: it writes nothing.
` + apiHelp("triggers backfill") + `
Each 1000 occurrences are one request; the server records the API token and the address it came
from as who asked.` +
			opts.clusterOnly("\nOn the cluster the database path needs the runtime role's URL, as `ql runs` does."),
		Args: oneTriggerArgs("backfill"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			fromMs, err := rfc3339Flag("--from", from)
			if err != nil {
				return err
			}
			toMs, err := rfc3339Flag("--to", to)
			if err != nil {
				return err
			}
			switch {
			case fromMs > toMs:
				return Usagef("--from %s is after --to %s", from, to)
			case maxN < 1 || maxN > schedule.MaxBackfill:
				return Usagef("--max %d is outside 1–%d", maxN, schedule.MaxBackfill)
			}
			b, err := openExistingForWrite(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Manual == nil {
				return fmt.Errorf("this build cannot backfill triggers of this database")
			}
			if !dryRun {
				if err := refuseQueueingHandedOver(cmd.Context(), cmd, b); err != nil {
					return err
				}
			}
			_, id, err := resolveTriggerArg(cmd.Context(), b.Triggers, project, args[0])
			if err != nil {
				return err
			}
			req := schedule.BackfillRequest{TriggerID: id, FromMs: fromMs, ToMs: toMs, Max: maxN, DryRun: dryRun, Actor: actor(),
				Names: schedule.BackfillNames{From: "--from", To: "--to", Max: "--max"}}
			total, err := backfillChunks(cmd, b.Manual, req)
			if !dryRun && answerLost(err) {
				return lostAnswer(cmd, out, err, "the backfill may have admitted Runs: asking again admits no occurrence twice and names the Runs the occurrences have (existingRunIds)",
					lostAnswerView{TriggerID: id, AskAgain: suggest(cmd, backfillAgain(cmd, args[0], project, from, to, maxN)...)})
			}
			if err != nil {
				return disabledHint(cmd, b.Triggers, id, pinHint(cmd, b, id, err))
			}
			if !dryRun && len(total.RunIDs) > 0 {
				noteUnattended(cmd, opts, b, total.RunIDs[0], len(total.RunIDs))
			}
			if out == "json" {
				v := backfillView{TriggerID: id, DryRun: dryRun, Occurrences: total.Occurrences, Admitted: total.Admitted,
					Existing: total.Existing, Truncated: total.Truncated, RunIDs: append([]string{}, total.RunIDs...),
					ExistingRunIDs: append([]string{}, total.ExistingRunIDs...),
					NothingTaken:   view.NewNothingTaken(total.NoneTaken)}
				if total.Occurrences > 0 {
					v.FirstMs, v.LastMs = &total.FirstMs, &total.LastMs
				}
				if total.Truncated {
					v.ContinueFrom = continueFrom(total.LastMs)
				}
				return writeJSON(cmd.OutOrStdout(), v)
			}
			fmt.Fprintln(cmd.OutOrStdout(), backfillReport(args[0], dryRun, total))
			return nil
		},
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	c.Flags().StringVar(&project, "project", "", "the trigger's project (name or id), when its name is not unique")
	c.Flags().StringVar(&from, "from", "", "the window's first instant (RFC 3339, required)")
	c.Flags().StringVar(&to, "to", "", "the window's last instant (RFC 3339, required, not in the future)")
	c.Flags().IntVar(&maxN, "max", schedule.DefaultBackfillMax, fmt.Sprintf("at most this many occurrences (1–%d)", schedule.MaxBackfill))
	c.Flags().BoolVar(&dryRun, "dry-run", false, "count what the backfill would do and write nothing")
	return c
}

// backfillAgain is the command line of `triggers backfill` (cmd) asking
// the same window again.
func backfillAgain(cmd *cobra.Command, name, project, from, to string, maxN int) []string {
	words := []string{"triggers", "backfill", name}
	if project != "" {
		words = append(words, "--project", project)
	}
	words = append(words, "--from", from, "--to", to)
	if cmd.Flags().Changed("max") {
		words = append(words, "--max", strconv.Itoa(maxN))
	}
	return append(words, outputWords(cmd)...)
}

// backfillReport says what a backfill did, or for a dry run what it would
// do, labelled so that nobody takes a preview for Runs that exist.
func backfillReport(name string, dryRun bool, total schedule.BackfillResult) string {
	occurrences := "occurrences"
	if total.Occurrences == 1 {
		occurrences = "occurrence"
	}
	var msg string
	if dryRun {
		msg = fmt.Sprintf("dry run, nothing was written: trigger %s: %d %s", name, total.Occurrences, occurrences)
		if total.Occurrences > 0 {
			msg += fmt.Sprintf(" from %s to %s", fmtMs(&total.FirstMs), fmtMs(&total.LastMs))
		}
		has := "have"
		if total.Existing == 1 {
			has = "has"
		}
		msg += fmt.Sprintf(", %d would be admitted, %d already %s a run", total.Admitted, total.Existing, has)
	} else {
		msg = fmt.Sprintf("trigger %s: %d %s", name, total.Occurrences, occurrences)
		if total.Occurrences > 0 {
			msg += fmt.Sprintf(" from %s to %s", fmtMs(&total.FirstMs), fmtMs(&total.LastMs))
		}
		msg += fmt.Sprintf(", %d admitted, %d already had a run", total.Admitted, total.Existing)
	}
	if total.Truncated {
		msg += fmt.Sprintf("; cut at --max after %s: continue with --from %s", fmtMs(&total.LastMs), continueFrom(total.LastMs))
	}
	if why := total.NoneTaken.Message(); why != "" {
		msg += "; " + why
	}
	return msg
}

// continueFrom is the --from that continues a backfill cut at --max after
// the occurrence at lastMs: the millisecond after it.
func continueFrom(lastMs int64) string {
	return time.UnixMilli(lastMs + 1).UTC().Format(time.RFC3339Nano)
}

// backfillView is `triggers backfill -o json`.
type backfillView struct {
	TriggerID string `json:"triggerId"`
	// DryRun: the counts are what the backfill would do; nothing was
	// written and RunIDs is empty.
	DryRun      bool `json:"dryRun"`
	Occurrences int  `json:"occurrences"`
	Admitted    int  `json:"admitted"`
	Existing    int  `json:"existing"`
	Truncated   bool `json:"truncated"`
	// ContinueFrom is, when Truncated, the --from that continues the
	// backfill where --max cut it, as the text report prints it.
	ContinueFrom string `json:"continueFrom,omitempty"`
	// FirstMs and LastMs are nil when the window gave no occurrence; an
	// occurrence at 1970-01-01T00:00:00Z is 0, and printed.
	FirstMs *int64   `json:"firstMs,omitempty"`
	LastMs  *int64   `json:"lastMs,omitempty"`
	RunIDs  []string `json:"runIds"`
	// ExistingRunIDs are the Runs the existing occurrences already had:
	// a backfill repeated after its report was lost names the Runs the
	// first one admitted here.
	ExistingRunIDs []string `json:"existingRunIds"`
	// NothingTaken says why no occurrence was taken, when the window
	// holds some that are not a backfill's; absent otherwise.
	NothingTaken *view.NothingTaken `json:"nothingTaken,omitempty"`
}

// backfillChunks runs a backfill as transactions of at most backfillChunk
// occurrences each, reporting progress on stderr between them, and sums
// their results. A dry run's chunks add up as the backfill's would: each
// takes the window after the last one's occurrences, so none counts what
// another would have admitted.
func backfillChunks(cmd *cobra.Command, m schedule.Manual, req schedule.BackfillRequest) (schedule.BackfillResult, error) {
	var total schedule.BackfillResult
	left := req.Max
	for {
		part := req
		part.Max = min(left, backfillChunk)
		res, err := m.TriggerBackfill(cmd.Context(), part)
		if err != nil {
			return total, err
		}
		if total.Occurrences == 0 {
			total.FirstMs = res.FirstMs
		}
		total.Occurrences += res.Occurrences
		if total.Occurrences == 0 {
			total.NoneTaken = res.NoneTaken
		}
		total.Admitted += res.Admitted
		total.Existing += res.Existing
		total.RunIDs = append(total.RunIDs, res.RunIDs...)
		total.ExistingRunIDs = append(total.ExistingRunIDs, res.ExistingRunIDs...)
		if res.Occurrences > 0 {
			total.LastMs = res.LastMs
		}
		left -= res.Occurrences
		if !res.Truncated {
			return total, nil
		}
		if left == 0 {
			total.Truncated = true
			return total, nil
		}
		admitted := "admitted"
		if req.DryRun {
			admitted = "would be admitted"
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "backfill: %s so far (%d %s), up to %s\n", plural.Count(total.Occurrences, "occurrence", "occurrences"), total.Admitted, admitted, fmtMs(&res.LastMs))
		req.FromMs = res.LastMs + 1
	}
}

func rfc3339Flag(name, v string) (int64, error) {
	if v == "" {
		return 0, Usagef("%s is required: an RFC 3339 instant like 2026-11-01T00:00:00Z", name)
	}
	at, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return 0, Usagef("%s %q is not an RFC 3339 instant like 2026-11-01T00:00:00Z", name, v)
	}
	return at.UnixMilli(), nil
}
