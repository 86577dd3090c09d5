package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
)

// maxNotificationsListed bounds one listing.
const maxNotificationsListed = 500

func notificationsCommand(opts Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "notifications",
		Short: "List failure notifications and retry dead ones",
		Long: `Failure notifications are written to an outbox with the Run state change that causes them and
delivered by the server` + opts.clusterOnly(" (every replica on the cluster)") + ` with retries and backoff. A notification
whose deliveries all failed is dead: fix the channel (URL, secret, receiver), then retry it.
Retention deletes delivered and dead notifications older than --retention-notifications
(the runs period by default): a dead one can be retried only until then.` +
			opts.clusterOnly("\nOn the cluster these commands need the runtime role's URL, as `ql runs` does."),
	}
	c.AddCommand(notificationsListCommand(opts), notificationsRetryCommand(opts))
	return c
}

// notificationView is one outbox row as `notifications list -o json`
// prints it: the channel by name and kind only, never a URL, which may
// carry a token.
type notificationView struct {
	ID            string `json:"id"`
	State         string `json:"state"`
	Event         string `json:"event"`
	Project       string `json:"project"`
	Trigger       string `json:"trigger,omitempty"`
	RunID         string `json:"runId,omitempty"`
	Channel       string `json:"channel"`
	ChannelKind   string `json:"channelKind"`
	Attempts      int    `json:"attempts"`
	NextAttemptAt *int64 `json:"nextAttemptAtMs,omitempty"`
	LastError     string `json:"lastError,omitempty"`
	CreatedAtMs   int64  `json:"createdAtMs"`
	DeliveredAtMs *int64 `json:"deliveredAtMs,omitempty"`
}

func viewOf(m notify.Message) notificationView {
	v := notificationView{ID: m.ID, State: string(m.State), Event: string(m.Event), Project: m.Payload.Project, Trigger: m.Payload.Trigger,
		RunID: m.RunID, Channel: m.Channel.Name, ChannelKind: string(m.Channel.Kind), Attempts: m.Attempts, LastError: m.LastError,
		CreatedAtMs: m.CreatedAtMs}
	if m.State == notify.Pending {
		v.NextAttemptAt = &m.NextAttemptAtMs
	}
	if m.DeliveredAtMs != 0 {
		v.DeliveredAtMs = &m.DeliveredAtMs
	}
	return v
}

func notificationsListCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out, state string
	var limit int
	c := &cobra.Command{
		Use:     "list",
		Short:   "List notifications, newest first",
		Example: "  " + opts.Binary + " notifications list --state dead\n  " + opts.Binary + " notifications list -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			s := notify.State(state)
			if s != "" && s != notify.Pending && s != notify.Delivered && s != notify.Dead {
				return Usagef("--state %q is not one of pending, delivered, dead", state)
			}
			if limit < 1 || limit > maxNotificationsListed {
				return Usagef("--limit %d is outside 1–%d", limit, maxNotificationsListed)
			}
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Notifications == nil {
				return fmt.Errorf("this build cannot list notifications of this database")
			}
			ms, err := b.Notifications.NotificationsList(cmd.Context(), notify.ListQuery{State: s, Limit: limit})
			if err != nil {
				return err
			}
			views := make([]notificationView, len(ms))
			for i, m := range ms {
				views[i] = viewOf(m)
			}
			return printListing(cmd, out, listing[notificationView]{
				json:   views,
				header: []string{"ID", "STATE", "EVENT", "TRIGGER", "CHANNEL", "ATTEMPTS", "CREATED", "LAST ERROR"},
				items:  views,
				row: func(v notificationView) []string {
					name := v.Project
					if v.Trigger != "" {
						name += "/" + v.Trigger
					}
					return []string{v.ID, v.State, v.Event, name, v.Channel + " (" + v.ChannelKind + ")", fmt.Sprint(v.Attempts),
						fmtMs(&v.CreatedAtMs), v.LastError}
				},
			})
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addOutputFlag(c, &out)
	c.Flags().StringVar(&state, "state", "", "only notifications in this state: pending, delivered or dead")
	c.Flags().IntVar(&limit, "limit", 100, fmt.Sprintf("how many to list (1–%d)", maxNotificationsListed))
	return c
}

func notificationsRetryCommand(opts Options) *cobra.Command {
	var db dbFlags
	c := &cobra.Command{
		Use:   "retry ID",
		Short: "Make a dead notification pending again, with the same idempotency key",
		Long: `Make a dead notification pending again, with the same idempotency key and its attempts
counted afresh. Retention deletes dead notifications older than the server's
--retention-notifications (the runs period by default); one deleted can no longer be retried.`,
		Args: oneChecked("notifications retry takes one notification id, as printed by 'notifications list --state dead'", func(s string) error {
			if err := ids.Validate("notification id", strings.TrimSpace(s)); err != nil {
				return fmt.Errorf("%v; give a notification id as printed by `ql notifications list --state dead`", err)
			}
			return nil
		}),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := openExistingForWrite(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Notifications == nil {
				return fmt.Errorf("this build cannot retry notifications of this database")
			}
			m, err := b.Notifications.NotificationRetry(cmd.Context(), strings.TrimSpace(args[0]))
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "notification %s is pending again; the server delivers it at its next round\n", m.ID)
			return nil
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	return c
}
