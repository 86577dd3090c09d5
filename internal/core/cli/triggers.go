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
occurrence: it fires no more unless republished. -o json adds each
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
			w := cmd.OutOrStdout()
			if out == "json" {
				return writeJSON(w, view.NewTriggerList(list, next))
			}
			tw := newTable(w)
			fmt.Fprintln(tw, "PROJECT\tTRIGGER\tREV\tENABLED\tCRON\tZONE\tNEXT FIRE\tLAST SCHEDULED\tCLAIM")
			for _, t := range list {
				claim := "-"
				if t.ClaimOwner != nil {
					claim = *t.ClaimOwner + " until " + fmtMs(t.ClaimExpiresAtMs)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%t\t%s\t%s\t%s\t%s\t%s\n", t.ProjectName, t.Name, t.Revision, t.Enabled, t.Cron.Expression, t.Cron.Timezone, nextFire(t), fmtMs(t.LastScheduledAtMs), claim)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if next != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "more: --after %s\n", next)
			}
			return nil
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

// nextFire is a trigger's next nominal fire time, with its jittered due
// time when jitter moves it, or "ended" once endAt has passed.
func nextFire(t schedule.TriggerStatus) string {
	switch {
	case t.NextFireAtMs != nil && t.NextDueAtMs == nil:
		return "ended"
	case t.NextDueAtMs != nil && *t.NextDueAtMs != *t.NextFireAtMs:
		return fmtMs(t.NextFireAtMs) + " (due " + fmtMs(t.NextDueAtMs) + ")"
	}
	return fmtMs(t.NextFireAtMs)
}
