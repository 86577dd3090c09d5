package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/view"
)

func notificationsCommand(opts Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "notifications",
		Short: "List notifications (of failures, successes, …), retry dead ones and test channels",
		Long: `Notifications — of the Run ends and passed-over occurrences a project's rules name — are written to an
outbox with the state change that causes them and
delivered by the server` + opts.clusterOnly(" (every replica on the cluster)") + ` with retries and backoff. A notification
whose deliveries all failed is dead: fix the channel (URL, secret, receiver), try it with
notifications test, then retry it.
Retention deletes delivered and dead notifications older than --retention-notifications
(` + notificationsRetentionDefault(opts) + `): a dead one can be retried only until then.
The server's API (GET /api/v1/notifications, POST /api/v1/notifications/ID/retry) and its web
console's Notifications page list and retry them too; given --api-url URL, these commands ask that
API instead of the database (a token in $QL_TOKEN: read to list, operate to retry).` +
			opts.clusterOnly("\nOn the cluster these commands need the runtime role's URL, as `ql runs` does."),
	}
	c.AddCommand(notificationsListCommand(opts), notificationsRetryCommand(opts), notificationsTestCommand(opts))
	return c
}

func notificationsListCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out, state, project, after string
	var limit int
	c := &cobra.Command{
		Use:   "list",
		Short: "List notifications, newest first",
		Long: `List notifications, newest first, a page at a time. When more follow the page, standard error
says so after the table: "more: --after ID"; give that flag to list the next page. -o json prints
the page as runs list and triggers list do, and as GET /api/v1/notifications answers:
{"notifications": [...], "next": "ID"}, next only when more follow.
SCOPE is what the rule that sent the notification covers, as the project's definitions have that
rule now: "project NAME" for a rule of the whole project, else the triggers and tasks it names
("triggers a,b; tasks c"); "-" when the definitions no longer have that rule (it was changed or
removed since). In JSON it is ruleScope: {"project": NAME, "triggers": [...], "tasks": [...]},
absent for "-".
ATTEMPTS counts every delivery and, for a notification retried by hand, how many came before the
retry, who retried it and when (retriedBy, attemptsBeforeRetry, retriedAtMs in JSON). NEXT ATTEMPT is
when a pending one is sent next: "due now" for one due since it was created — new, or brought
forward (retried by hand, its receiver back, the server restarted) — which the server sends at its
next round; in JSON nextAttemptAtMs keeps the stored time (its creation, so it sorts first in its
channel) and dueNow is true.
` + apiHelp("notifications list"),
		Example: "  " + opts.Binary + " notifications list --state dead\n  " + opts.Binary + " notifications list --project shop --state dead -o json\n  " +
			opts.Binary + " notifications list --limit 500 --after ID",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			s := notify.State(state)
			if s != "" && !slices.Contains(notify.States, s) {
				return Usagef("--state %q is not one of pending, delivered, dead", state)
			}
			if limit < 1 || limit > notify.MaxListed {
				return Usagef("--limit %d is outside 1–%d", limit, notify.MaxListed)
			}
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Notifications == nil {
				return fmt.Errorf("this build cannot list notifications of this database")
			}
			projectID, err := listedProject(cmd.Context(), b, project)
			if err != nil {
				return err
			}
			ms, next, err := b.Notifications.NotificationsList(cmd.Context(), notify.ListQuery{State: s, ProjectID: projectID, After: after, Limit: limit})
			if err != nil {
				return err
			}
			// The API's answer has the scopes already; a database is read
			// for them here, as the API reads its own.
			if b.api == nil && b.Definitions != nil {
				if err := apply.WithRuleScopes(cmd.Context(), b.Definitions, ms); err != nil {
					return err
				}
			}
			page := view.NewNotificationList(ms, next)
			return printListing(cmd, out, listing[view.Notification]{
				json:   page,
				header: []string{"ID", "STATE", "EVENT", "TRIGGER", "SCOPE", "CHANNEL", "ATTEMPTS", "NEXT ATTEMPT", "CREATED", "LAST ERROR"},
				items:  page.Notifications,
				row: func(v view.Notification) []string {
					name := v.Project
					if v.Trigger != "" {
						name += "/" + v.Trigger
					}
					return []string{v.ID, v.State, eventText(v), name, scopeText(v.RuleScope), v.Channel + " (" + v.ChannelKind + ")", attemptsText(v),
						nextAttemptText(v), fmtMs(&v.CreatedAtMs), v.LastError}
				},
				next: next,
				none: NoneLine("notification", project != "" || state != "" || after != "",
					"the rules of a project's notifications key queue one as its Runs end (`"+suggest(cmd, "apply", "-f", "FILE")+"` publishes them)"),
			})
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	c.Flags().StringVar(&state, "state", "", "only notifications in this state: pending, delivered or dead")
	c.Flags().StringVar(&project, "project", "", "only notifications of this project (name or id)")
	c.Flags().IntVar(&limit, "limit", notify.DefaultListed, fmt.Sprintf("page size (1–%d)", notify.MaxListed))
	c.Flags().StringVar(&after, "after", "", "continue after this notification id (printed as 'more:')")
	return c
}

func notificationsRetryCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out string
	c := &cobra.Command{
		Use:   "retry ID",
		Short: "Make a dead notification pending again, with the same idempotency key",
		Long: `Make a dead notification pending again, with the same idempotency key. Its attempts are kept
(ql notifications list shows them, and when it was retried by hand) and it gets the server's
--notify-max-attempts more; the server logs the outcome of its next deliveries as
notify.retried_by_hand_outcome. Retention deletes dead notifications older than the server's
--retention-notifications (` + notificationsRetentionDefault(opts) + `); one deleted can no longer be retried.
` + apiHelp("notifications retry") + `
The notification records who retried it, as the audit trail names people: your system user name
when this command writes the database, the API token and the address the request came from over the
API (--api-url too), the console's user or token and address from the console. The listing shows it
beside when.`,
		Args: oneID("notifications retry takes one notification id", "notification id", "notifications", "list", "--state", "dead"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			b, err := openExistingForWrite(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Notifications == nil {
				return fmt.Errorf("this build cannot retry notifications of this database")
			}
			m, err := b.Notifications.NotificationRetry(cmd.Context(), args[0], actor())
			if err != nil {
				return err
			}
			if out == "json" {
				return writeJSON(cmd.OutOrStdout(), view.NewNotificationRetry(m))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "notification %s is pending again; the server delivers it at its next round\n", m.ID)
			return nil
		},
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	return c
}

// attemptsText is a listed notification's ATTEMPTS column: every delivery
// it was given and, for one retried by hand, when and by whom, so the
// failures before the retry stay counted and the retry shows.
func attemptsText(v view.Notification) string {
	if v.RetriedAtMs == nil {
		return fmt.Sprint(v.Attempts)
	}
	by := ""
	if v.RetriedBy != "" {
		by = " by " + v.RetriedBy
	}
	return fmt.Sprintf("%d (%d before a retry by hand%s at %s)", v.Attempts, v.AttemptsBeforeRetry, by, fmtMs(v.RetriedAtMs))
}

// nextAttemptText is a listed notification's NEXT ATTEMPT column: "due
// now" for a row due from its creation, whose stored time is in the past,
// "-" for a delivered or dead one.
func nextAttemptText(v view.Notification) string {
	switch {
	case v.NextAttemptAtMs == nil:
		return "-"
	case v.DueNow:
		return "due now"
	}
	return fmtMs(v.NextAttemptAtMs)
}

// scopeText is a listed notification's SCOPE column: its rule's project
// when the rule covers it whole, else the triggers and tasks it names,
// "-" when its rule is not known.
func scopeText(s *view.RuleScope) string {
	if s == nil {
		return "-"
	}
	if len(s.Tasks) == 0 && len(s.Triggers) == 0 {
		return "project " + s.Project
	}
	var parts []string
	if len(s.Triggers) > 0 {
		parts = append(parts, "triggers "+strings.Join(s.Triggers, ","))
	}
	if len(s.Tasks) > 0 {
		parts = append(parts, "tasks "+strings.Join(s.Tasks, ","))
	}
	return strings.Join(parts, "; ")
}

// eventText is a listed notification's event, with how the Run ended for
// a finished rule's, whose event alone does not say it.
func eventText(v view.Notification) string {
	if v.Event == string(notify.OnFinished) && v.RunState != "" {
		return v.Event + " (" + v.RunState + ")"
	}
	return v.Event
}

// notificationsRetentionDefault says what --retention-notifications is
// when not given: each profile's own default, the same as its default
// runs period, which a --retention-runs given does not move.
func notificationsRetentionDefault(opts Options) string {
	var parts []string
	for _, p := range profileOrder {
		if prof, ok := opts.Profiles[p]; ok {
			parts = append(parts, p+" "+retention.AgeSetting(prof.Defaults.Retention.NotificationsAge))
		}
	}
	return "default: " + strings.Join(parts, ", ") + "; --retention-runs does not change it"
}
