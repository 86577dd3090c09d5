package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/view"
)

// TryChannel sends one test message to a project's channel and says how
// it went (`ql notifications test`). An error with a trial whose Channel
// is set is the test's record that could not be written: the message
// went, and the trial says how.
type TryChannel func(ctx context.Context, project, channel string) (view.ChannelTrial, error)

// LocalChannelTrials sends test messages from this process, the channel
// read from defs and its secrets from secrets, as the server on this
// database sends its notifications, and records each in record's audit
// trail, named by who runs the command (notify.RecordTrial).
func LocalChannelTrials(defs catalog.DefinitionsReader, secrets notify.SecretResolver, record audit.Appender) TryChannel {
	d := notify.NewDeliverer(notify.DeliveryConfig{Secrets: secrets, Version: Version})
	return func(ctx context.Context, project, channel string) (view.ChannelTrial, error) {
		p, c, err := apply.ProjectChannel(ctx, defs, project, channel, nil)
		if err != nil {
			return view.ChannelTrial{}, err
		}
		t := d.Try(ctx, p.ID, p.Name, c)
		return view.NewChannelTrial(p.Name, c, t), notify.RecordTrial(ctx, record, actor(), p.Name, c, t)
	}
}

// TryChannel asks the server to send the test message.
func (c *apiClient) TryChannel(ctx context.Context, project, channel string) (view.ChannelTrial, error) {
	var out view.ChannelTrial
	err := c.post(ctx, "/api/v1/projects/"+url.PathEscape(project)+"/notifications/channels/"+url.PathEscape(channel)+"/test", struct{}{}, &out)
	return out, err
}

func notificationsTestCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out, project string
	c := &cobra.Command{
		Use:   "test CHANNEL --project PROJECT",
		Short: "Send a test message to a project's notification channel and say whether it arrived",
		Long: `Send one test message to a channel of a project's notifications block, as a notification of a Run
is sent (the same body, signature and headers; event "test", its title saying it is a test), wait for
the receiver's answer within the delivery timeout, and say how it went: delivered with the HTTP status
the receiver answered, or not, with the reason and what the receiver said (exit 1). No
notification is listed, retried or counted; the audit trail records who tested which channel and how
it went (channel.tested). The channel's secrets are read from the secrets file as the server reads
them, and never printed. Like the commands that write the database, it is refused while this
device's clock reads behind the newest time the database recorded (--clock-behind-ok sends it all
the same), as a server then sends no notification.
` + apiHelp("notifications test") + opts.clusterOnly(`
On the cluster give --api-url: a replica sends it with its own --secrets-file.`),
		Example: "  " + opts.Binary + " notifications test ops --project shop\n  " + opts.Binary + " notifications test ops --project shop -o json",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return Usagef("notifications test takes one channel name, as the project's notifications.channels names it")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			if project == "" {
				return Usagef("notifications test needs --project: channels are named within their project")
			}
			b, err := openExistingForWrite(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.TryChannel == nil {
				return errors.New("this command cannot send a test message from here: give --api-url, and the server sends it with its secrets file")
			}
			t, err := b.TryChannel(cmd.Context(), project, args[0])
			if t.Channel == "" {
				return err
			}
			// The message went: its outcome is said whether or not its
			// record could be written, and the record's error, which says
			// the outcome too, wins the exit.
			unrecorded := err
			if out == "json" {
				if err := writeJSON(cmd.OutOrStdout(), t); err != nil {
					return err
				}
			}
			what := fmt.Sprintf("test message to channel %s (%s) of project %s", t.Channel, t.ChannelKind, t.Project)
			if unrecorded != nil {
				return unrecorded
			}
			if !t.Delivered {
				return fmt.Errorf("%s not delivered (%s): %s; fix the channel, its secret or the receiver, and test again", what, t.Reason, t.Error)
			}
			if out != "json" {
				answer := "the mail server took it"
				if t.Status != 0 {
					answer = fmt.Sprintf("the receiver answered %d", t.Status)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s delivered: %s\n", what, answer)
			}
			return nil
		},
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	c.Flags().StringVar(&project, "project", "", "the project whose channel it is (name)")
	return c
}
