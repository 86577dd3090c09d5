package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/view"
)

func triggersCommand(opts Options) *cobra.Command {
	c := &cobra.Command{Use: "triggers", Short: "Inspect triggers and their schedule state"}
	var db dbFlags
	var out, project, after string
	var limit int
	list := &cobra.Command{
		Use:   "list",
		Short: "List triggers with next fire time, last scheduled time and claim",
		Long: `List triggers with their schedule state. NEXT FIRE is the next nominal
occurrence; with jitter, "(due …)" follows it: the instant the occurrence is
actually admitted. "ended" means the trigger's endAt lies before its next
occurrence: it fires no more unless republished. "archived" means the
trigger's project is archived: nothing of it runs until the project's
definitions file says status: active and is applied again, and what fell
due meanwhile is then recorded in the ledger as "project_archived", not
run. -o json says so with "archived": true and no next fire time. "none worked
out here" means the zone database of this host lacks the trigger's stored
zone (a newer one published it): its occurrences cannot be worked out here, and
a line under the table says so and what mends it (-o json: "nextFireUnknown",
with no next fire time). -o json adds each
trigger's time policies (jitterMs, startAtMs, endAtMs, catchUpWindowMs) and its
overlap policy when it is not allow.`,
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
			projectID, err := resolveProject(cmd.Context(), b.Triggers, project)
			if err != nil {
				return err
			}
			list, next, err := b.Triggers.TriggerList(cmd.Context(), schedule.TriggerListParams{ProjectID: projectID, Limit: limit, After: after})
			if err != nil {
				return err
			}
			v := view.NewTriggerList(list, next)
			unknown := map[string]bool{}
			var notes []string
			for _, t := range v.Triggers {
				if t.NextFireUnknown != "" {
					unknown[t.TriggerID] = true
					notes = append(notes, asSuggested(cmd, fmt.Sprintf("%s/%s: %s (%s)", t.ProjectName, t.Name, nextFiresUnknown, t.NextFireUnknown)))
				}
			}
			return printListing(cmd, out, listing[schedule.TriggerStatus]{
				json:   v,
				header: []string{"PROJECT", "TRIGGER", "REV", "ENABLED", "CRON", "ZONE", "NEXT FIRE", "LAST SCHEDULED", "CLAIM"},
				items:  list,
				row: func(t schedule.TriggerStatus) []string {
					claim := "-"
					if t.ClaimOwner != nil {
						claim = *t.ClaimOwner + " until " + fmtMs(t.ClaimExpiresAtMs)
					}
					return []string{t.ProjectName, t.Name, fmt.Sprint(t.Revision), fmt.Sprint(t.Enabled), t.Cron.Expression, t.Cron.Timezone,
						nextFire(t, unknown[t.TriggerID]), fmtMs(t.LastScheduledAtMs), claim}
				},
				notes: notes,
				next:  next,
			})
		},
	}
	addDBFlags(list, &db, opts.OpenPostgres != nil)
	addServerFlag(list, &db)
	addOutputFlag(list, &out)
	list.Flags().StringVar(&project, "project", "", "only triggers of this project (name or id)")
	list.Flags().IntVar(&limit, "limit", 100, "page size (1–500)")
	list.Flags().StringVar(&after, "after", "", "continue after this trigger id")
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
// nextFiresUnknown when this server cannot work it out (unknown: a stored
// zone its host lacks), the stored cursor being no time it fires at.
func nextFire(t schedule.TriggerStatus, unknown bool) string {
	switch {
	case t.Archived:
		return "archived"
	case t.Paused:
		return "paused"
	case unknown:
		return nextFiresUnknown
	case t.Ended:
		return "ended"
	case t.NextDueAtMs != nil && *t.NextDueAtMs != *t.NextFireAtMs:
		return fmtMs(t.NextFireAtMs) + " (due " + fmtMs(t.NextDueAtMs) + ")"
	}
	return fmtMs(t.NextFireAtMs)
}
