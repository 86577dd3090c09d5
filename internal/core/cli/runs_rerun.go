package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
)

func runsRerunCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out, requestID string
	var follow followFlags
	c := &cobra.Command{
		Use:   "rerun RUN_ID [--request-id ID]",
		Short: "Re-run a finished run: a new run of the same revisions, linked to it",
		Long: `Admit a new Run that repeats a finished one (succeeded, failed, cancelled, timed out, or lost: its
attempt ended without an outcome and no retry is left): the same
trigger, the same task, trigger and execution revisions, so exactly the command that ran runs again,
even when the definitions were applied again since (` + "`" + opts.Binary + " triggers run`" + ` runs the current ones), and
the same scheduled time; it is due at once. The new Run names the original as its rerun_of. Its
idempotency key is ql3:rerun:v1:<run id>:<request id>, so repeating the command with the same
--request-id never makes a second Run (it prints the first one, even once the trigger has been
disabled since); without --request-id a fresh one is generated and printed; an empty one is refused.
When the answer is lost after the request left, the command says the re-run may have been made,
exits 1 and prints the command that asks again with the request id it sent. A Run that has not finished is refused. The trigger must still be runnable
(its project active, it and its task enabled: a disabled trigger is refused with the command that
enables it, as run now words it) and its overlap policy applies, as for run now: a refused request
prints "not re-run" (-o json: "skipped") and exits 3; under cancel_previous the unfinished Runs of
the trigger are cancelled first and the output names them (-o json: "cancelled").
Who asked (the operating-system user, or over --api-url the API token and the address it came from)
is recorded in the new Run's run.created event. On the database, a note on stderr says when nothing
will start the new Run, as for ` + "`" + opts.Binary + ` triggers run` + "`" + `, and on a data directory handed over
(export --with-state) it is refused as that is. ` + returnsQueued(opts, "new Run") + `
` + apiHelp("runs rerun") + opts.clusterOnly(" On the cluster the database path needs the runtime role's URL."),
		Example: "  " + opts.Binary + " runs rerun 0190a4f2-0000-7000-8000-000000000000\n" +
			"  " + opts.Binary + " runs rerun 0190a4f2-0000-7000-8000-000000000000 --request-id retry-7 --api-url https://ql.example.com:8080",
		Args: oneID("runs rerun takes one run id", "run id", "runs", "list"),
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
			req := schedule.RerunRequest{RunID: args[0], RequestID: requestID, Actor: actor()}
			if req.RequestID == "" {
				// Generated here, not in the store, so it can be printed and
				// given again to repeat this very request.
				id, err := schedule.RequestIDOf(schedule.RunNowRequest{})
				if err != nil {
					return err
				}
				req.RequestID = id
			}
			if _, err := schedule.RequestIDOf(schedule.RunNowRequest{RequestID: req.RequestID}); err != nil {
				return Usagef("--request-id: %v", err)
			}
			b, err := openExistingForWrite(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Manual == nil {
				return fmt.Errorf("this build cannot re-run runs of this database")
			}
			if err := refuseQueueingHandedOver(cmd.Context(), cmd, b); err != nil {
				return err
			}
			res, err := b.Manual.RunRerun(cmd.Context(), req)
			if answerLost(err) {
				return lostAnswer(cmd, out, err, "the request may have queued a re-run", lostAnswerView{RerunOf: req.RunID, RequestID: req.RequestID,
					AskAgain: suggest(cmd, append([]string{"runs", "rerun", req.RunID, "--request-id", req.RequestID}, outputWords(cmd)...)...)})
			}
			if err != nil {
				return rerunDisabledHint(cmd, b, req.RunID, err)
			}
			if res.Created && !follow.follow {
				noteUnattended(cmd, opts, b, res.RunID, 1)
			}
			if out == "json" {
				err = writeJSON(cmd.OutOrStdout(), rerunView{RerunOf: req.RunID, RequestID: req.RequestID, RunID: res.RunID, Created: res.Created,
					Skipped: string(res.Skipped), Unfinished: res.Unfinished, Waiting: res.Waiting, Cancelled: res.Cancelled, Waits: waitsOf(cmd.Context(), b, res.RunID)})
			} else {
				printRerun(cmd.OutOrStdout(), cmd, req, res)
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
	c.Flags().StringVar(&requestID, "request-id", "", "names this request: repeating it never makes a second Run (letters, digits, ._-; default: generated)")
	addFollowFlags(c, &follow, opts, "runs rerun 0190a4f2-0000-7000-8000-000000000000")
	return c
}

// rerunDisabledHint is err, when it refuses the trigger of Run runID as
// disabled, with the command that enables it worded as `triggers run`
// words it (disabledHint): by project and name, with this invocation's
// location flags. The refusal names the trigger by its id alone, so the
// Run is read back for it, on this refusal only.
func rerunDisabledHint(cmd *cobra.Command, b *Backend, runID string, err error) error {
	if qlerror.ReasonOf(err) != schedule.RefusalTriggerDisabled {
		return err
	}
	d, rerr := b.Runs.RunGet(cmd.Context(), runID)
	if rerr != nil || d.Run.TriggerID == "" {
		return err
	}
	return disabledHint(cmd, b.Triggers, d.Run.TriggerID, err)
}

// rerunView is `runs rerun -o json`.
type rerunView struct {
	RerunOf   string `json:"rerunOf"`
	RequestID string `json:"requestId"`
	RunID     string `json:"runId,omitempty"`
	Created   bool   `json:"created"`
	Skipped   string `json:"skipped,omitempty"`
	// Unfinished is the earlier Run the overlap policy refused this one
	// beside, with skipped; waiting says it is one that already waits
	// (queue_one), not an unfinished one.
	Unfinished string `json:"unfinished,omitempty"`
	Waiting    bool   `json:"waiting,omitempty"`
	// Cancelled are the unfinished Runs of the trigger its overlap policy
	// (cancel_previous) cancelled to admit the re-run, oldest first.
	Cancelled []string `json:"cancelled,omitempty"`
	// Waits is the API's answer's waits (waitsOf).
	Waits *view.Waiting `json:"waits,omitempty"`
}

func printRerun(w io.Writer, cmd *cobra.Command, req schedule.RerunRequest, res schedule.RerunResult) {
	switch {
	case res.Skipped != "":
		fmt.Fprintf(w, "run %s: not re-run (%s: %s)\n", req.RunID, res.Skipped, overlapRefusal(cmd, res.Unfinished, " of its trigger", res.Waiting))
	case res.Created && len(res.Cancelled) > 0:
		fmt.Fprintf(w, "run %s: re-run as run %s, queued (request %s; `%s`); %s\n", req.RunID, res.RunID, req.RequestID, suggest(cmd, "runs", "show", res.RunID),
			cancelledFor(res.RunID, res.Cancelled))
	case res.Created:
		fmt.Fprintf(w, "run %s: re-run as run %s, queued (request %s; `%s`)\n", req.RunID, res.RunID, req.RequestID, suggest(cmd, "runs", "show", res.RunID))
	default:
		fmt.Fprintf(w, "run %s: request %s already made run %s; nothing new was queued\n", req.RunID, req.RequestID, res.RunID)
	}
}
