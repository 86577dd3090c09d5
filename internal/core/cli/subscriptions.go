package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/scripts"
	"github.com/qinglong/qinglong/internal/core/subscription"
)

func subscriptionsCommand(opts Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "subscriptions",
		Short: "List, add, edit and remove the subscriptions: git repositories pulled on a schedule into the scripts folder",
		Long: `A subscription is the qinglong panel's subscription (its repo command): a task and a trigger named repo-OWNER-REPO[-BRANCH]
that clone the repository into OWNER_REPO[_BRANCH] of the scripts folder on their first Run and update
it on each later one, as crontab convert makes of the panel's repo command; its task is labelled with the URL,
branch, match and exclude, and stays a task (export and apply show and change it). A pull adds no
task: ` + "`" + opts.Binary + ` crontab scripts` + "`" + ` (or the console's Tasks from this subscription) makes tasks of its
scripts. add, edit and rm are recorded in the audit trail by name and URL, never the URL's credentials,
and are refused while this device's clock reads behind the newest time the database recorded.`,
	}
	c.AddCommand(subscriptionsListCommand(opts), subscriptionsAddCommand(opts), subscriptionsEditCommand(opts), subscriptionsRmCommand(opts))
	return c
}

func subscriptionsListCommand(opts Options) *cobra.Command {
	var f scriptsFlags
	c := &cobra.Command{
		Use:     "list",
		Short:   "List every project's subscriptions: URL (without credentials), branch, schedule, folder, match and exclude",
		Example: "  " + opts.Binary + " subscriptions list --data-dir /var/lib/qinglong",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := f.folder(opts); err != nil {
				return err
			}
			b, err := openDefinitions(cmd.Context(), opts, &f.db, false)
			if err != nil {
				return err
			}
			defer b.Close()
			subs, err := subscription.List(cmd.Context(), b.Definitions)
			if err != nil {
				return err
			}
			if len(subs) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no subscriptions")
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tPROJECT\tURL\tBRANCH\tSCHEDULE\tFOLDER\tMATCH\tEXCLUDE\tENABLED")
			for _, s := range subs {
				schedule := "-"
				if s.Trigger != "" {
					schedule = s.Cron + " " + s.Timezone
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%t\n", s.Name, s.Project, userText(subscription.Redacted(s.URL)), dash(s.Branch), userText(schedule),
					userText(dash(s.Folder)), userText(dash(s.Match)), userText(dash(s.Exclude)), s.Enabled)
			}
			return w.Flush()
		},
	}
	addScriptsFlags(c, &f, opts, false)
	return c
}

// dash is s, or - for nothing.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func subscriptionsAddCommand(opts Options) *cobra.Command {
	var f scriptsFlags
	var form subscription.Form
	var disabled bool
	c := &cobra.Command{
		Use:   "add URL",
		Short: "Add a subscription: its pull task and trigger, published at once",
		Long: `Add a subscription of the repository URL (https://, http://, ssh://, git://, file:// for one on
this host, or user@host:OWNER/REPO.git), named after its owner, repository and --branch as crontab
convert names the panel's repo command's. A subscription of that name in any project is refused: both would
pull into one folder. Its first pull is its trigger's first fire, or ` + "`" + opts.Binary + ` triggers run PROJECT/NAME` + "`" + `.`,
		Example: "  " + opts.Binary + " subscriptions add https://github.com/OWNER/REPO.git --project jd --cron '0 */6 * * *' --tz Asia/Shanghai --match 'jd_|jx_' --data-dir /var/lib/qinglong",
		Args:    oneArg("subscriptions add takes one repository URL, such as https://github.com/OWNER/REPO.git"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if form.Project == "" || form.Cron == "" || form.Timezone == "" {
				return Usagef("subscriptions add needs --project, --cron and --tz")
			}
			form.URL, form.Enabled = args[0], !disabled
			if _, err := f.folder(opts); err != nil {
				return err
			}
			b, err := openDefinitions(cmd.Context(), opts, &f.db, true)
			if err != nil {
				return err
			}
			defer b.Close()
			pull, form, errs := subscription.Save(cmd.Context(), b.Definitions, b.Catalog, form, "", actor())
			if len(errs) > 0 {
				return errors.Join(commandWords(errs, opts.Binary)...)
			}
			if b.Record != nil {
				e := audit.Subscription(audit.SubscriptionCreated, actor(), form.Project, pull.Name, subscription.Redacted(form.URL), form.Note())
				if err := audit.RecordDone(cmd.Context(), b.Record, e, "subscription "+pull.Name+" was added"); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "added subscription %s to project %s, pulling into %s of the scripts folder; pull it now with `%s triggers run %s/%s`\n",
				pull.Name, form.Project, userText(pull.Folder), opts.Binary, form.Project, pull.Name)
			return nil
		},
	}
	c.Flags().StringVar(&form.Project, "project", "", "the project of its task and trigger (required; made when missing)")
	c.Flags().StringVar(&form.Branch, "branch", "", "the branch to pull (default: the repository's default branch)")
	c.Flags().StringVar(&form.Cron, "cron", "", "when to pull: a cron expression, 5 fields or 6 with seconds first (required)")
	c.Flags().StringVar(&form.Timezone, "tz", "", "IANA time zone of the cron (required), e.g. Asia/Shanghai")
	c.Flags().StringVar(&form.Match, "match", "", "a regular expression: the scripts to make tasks of (the panel's whitelist), kept for crontab scripts and the console")
	c.Flags().StringVar(&form.Exclude, "exclude", "", "a regular expression: the scripts to leave out (the panel's blacklist)")
	c.Flags().BoolVar(&disabled, "disabled", false, "add it with its task and trigger disabled")
	addScriptsFlags(c, &f, opts, true)
	return c
}

// subscriptionEditFlags are the flags of what `subscriptions edit` changes.
var subscriptionEditFlags = []string{"url", "branch", "cron", "tz", "match", "exclude", "enabled", "disabled"}

func subscriptionsEditCommand(opts Options) *cobra.Command {
	var f scriptsFlags
	var given subscription.Form
	var enabled, disabled bool
	c := &cobra.Command{
		Use:   "edit NAME",
		Short: "Edit a subscription: change what its flags give and keep the rest, as the console's edit does",
		Long: `Edit the subscription NAME as the console's Subscriptions page edits it: what a flag gives
changes (an empty --branch, --match or --exclude clears it), everything else stays as it is, and so
does what was set on its task as a task (its other env, timeout, title, other labels and triggers);
its task gets the pull script of its URL and branch again. Its name and folder follow its repository
and branch, so a --url or --branch making another name is refused: add that one and remove this one.

Without --url the stored URL is kept with its credentials. A --url typed with a user and token
replaces the task's credentials; typed without them, it keeps the credential variables its task's env
gives from a secret if it leads to the same scheme, host and port (the stored URL's user kept in it),
and removes them if it leads elsewhere, which the command says.

A subscription is enabled when its task is and one of its triggers at least (of its name, or of
another a task labelled by hand is fired by), as list shows. Unless --enabled or --disabled changes
that, the enabled state of its task and of each of its triggers stays as it is; --disabled disables
its task and its trigger of its name, --enabled enables the two, or the task and all its triggers
when it has none of its name.`,
		Example: "  " + opts.Binary + " subscriptions edit repo-owner-repo --cron '30 */4 * * *' --match 'jd_|jx_' --data-dir /var/lib/qinglong\n" +
			"  " + opts.Binary + " subscriptions edit repo-owner-repo --url https://TOKEN@github.com/OWNER/REPO.git --disabled --data-dir /var/lib/qinglong",
		Args: oneArg("subscriptions edit takes one subscription name, such as repo-owner-repo: `" + opts.Binary + " subscriptions list` shows them"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			if fs.Changed("enabled") && fs.Changed("disabled") {
				return Usagef("subscriptions edit takes --enabled or --disabled, not both")
			}
			if !slices.ContainsFunc(subscriptionEditFlags, fs.Changed) {
				return Usagef("subscriptions edit changes only what its flags give, and none was given: give one or more of --%s", strings.Join(subscriptionEditFlags, ", --"))
			}
			b, _, sub, err := openSubscription(cmd.Context(), opts, &f, args[0])
			if err != nil {
				return err
			}
			defer b.Close()
			// The stored URL is sent as the console's form shows it, without
			// its credentials, which Save keeps for a URL sent so.
			form := subscription.Form{Project: sub.Project, URL: subscription.Redacted(sub.URL), Branch: sub.Branch, Match: sub.Match, Exclude: sub.Exclude,
				Cron: sub.Cron, Timezone: sub.Timezone, Enabled: sub.Enabled}
			for _, v := range []struct {
				flag  string
				field *string
				given string
			}{{"url", &form.URL, given.URL}, {"branch", &form.Branch, given.Branch}, {"cron", &form.Cron, given.Cron},
				{"tz", &form.Timezone, given.Timezone}, {"match", &form.Match, given.Match}, {"exclude", &form.Exclude, given.Exclude}} {
				if fs.Changed(v.flag) {
					*v.field = v.given
				}
			}
			if fs.Changed("enabled") {
				form.Enabled = enabled
			}
			if fs.Changed("disabled") {
				form.Enabled = !disabled
			}
			saved, form, errs := subscription.Save(cmd.Context(), b.Definitions, b.Catalog, form, sub.Name, actor())
			if len(errs) > 0 {
				return errors.Join(commandWords(errs, opts.Binary)...)
			}
			if b.Record != nil {
				e := audit.Subscription(audit.SubscriptionUpdated, actor(), form.Project, saved.Name, subscription.Redacted(form.URL), saved.AuditNote(form))
				if err := audit.RecordDone(cmd.Context(), b.Record, e, "subscription "+saved.Name+" was edited"); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "edited subscription %s of project %s, pulling into %s of the scripts folder; pull it now with `%s triggers run %s/%s`\n",
				saved.Name, form.Project, userText(saved.Folder), opts.Binary, form.Project, saved.Name)
			if saved.SecretCredentialsDropped {
				fmt.Fprintf(cmd.OutOrStdout(), "its URL now leads to another host, port or scheme than the one its task's credentials given from a secret (%s, %s) were set for, "+
					"so they were removed from the task's env and it pulls without credentials: to pull with some, give --url with the user and token, or set those variables in the task's env again\n",
					crontab.CredentialUserVariable, crontab.CredentialPasswordVariable)
			}
			return nil
		},
	}
	c.Flags().StringVar(&given.URL, "url", "", "the repository URL; its owner, repository and --branch must still make NAME (default: the stored one, its credentials kept)")
	c.Flags().StringVar(&given.Branch, "branch", "", "the branch to pull, empty for the repository's default; it must still make NAME")
	c.Flags().StringVar(&given.Cron, "cron", "", "when to pull: a cron expression, 5 fields or 6 with seconds first")
	c.Flags().StringVar(&given.Timezone, "tz", "", "IANA time zone of the cron, e.g. Asia/Shanghai")
	c.Flags().StringVar(&given.Match, "match", "", "a regular expression: the scripts to make tasks of (the panel's whitelist), empty for none")
	c.Flags().StringVar(&given.Exclude, "exclude", "", "a regular expression: the scripts to leave out (the panel's blacklist), empty for none")
	c.Flags().BoolVar(&enabled, "enabled", false, "enable it if it is disabled: its task and trigger (all its triggers when none has its name)")
	c.Flags().BoolVar(&disabled, "disabled", false, "disable it if it is enabled: its task and trigger")
	addScriptsFlags(c, &f, opts, true)
	return c
}

// commandWords are errs with the refusals whose words send the reader to
// the console (a name taken, a name missing) saying the commands of
// binary to run instead, their reasons and params as they were.
func commandWords(errs []error, binary string) []error {
	out := make([]error, len(errs))
	for i, err := range errs {
		p := qlerror.ParamsOf(err)
		switch qlerror.ReasonOf(err) {
		case subscription.RefusalExists:
			err = qlerror.New(qlerror.Conflict, "a subscription named %s exists already (project %s), pulling into the same folder: change it with `%s subscriptions edit %s`, "+
				"or remove it first with `%s subscriptions rm %s`", p["name"], p["project"], binary, p["name"], binary, p["name"]).
				Because(subscription.RefusalExists, "name", p["name"], "project", p["project"])
		case subscription.RefusalMissing:
			err = qlerror.New(qlerror.NotFound, "there is no subscription named %q (removed, or its task's subscription/url label removed): `%s subscriptions list` lists them", p["name"], binary).
				Because(subscription.RefusalMissing, "name", p["name"])
		}
		out[i] = err
	}
	return out
}

func subscriptionsRmCommand(opts Options) *cobra.Command {
	var f scriptsFlags
	var withFolder bool
	c := &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove a subscription; its folder stays unless --with-folder",
		Long: `Remove the subscription NAME: its task loses the labels that made it one, and it and its trigger
are disabled (a task is never deleted: its Runs and history stay, and its script pulls what it
pulled if it is enabled again). Its folder stays in the scripts
folder, with the tasks made of its scripts, unless --with-folder deletes it and all it holds.`,
		Example: "  " + opts.Binary + " subscriptions rm repo-owner-repo --data-dir /var/lib/qinglong",
		Args:    oneArg("subscriptions rm takes one subscription name, such as repo-owner-repo (subscriptions list shows them)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, folder, sub, err := openSubscription(cmd.Context(), opts, &f, args[0])
			if err != nil {
				return err
			}
			defer b.Close()
			if err := subscription.End(cmd.Context(), b.Definitions, b.Catalog, sub, actor()); err != nil {
				return err
			}
			note, said := "its folder "+sub.Folder+" kept", "its folder "+sub.Folder+" stays in the scripts folder"
			var removeErr error
			if withFolder && sub.Folder != "" {
				gone, err := folder.Remove(sub.Folder, true)
				switch {
				case qlerror.ReasonOf(err) == scripts.RefusalMissing:
					said = "its folder " + sub.Folder + " was not in the scripts folder"
				case err != nil:
					removeErr = err
				default:
					note = fmt.Sprintf("its folder %s deleted (%s)", sub.Folder, plural.Count(gone.Entries, "entry", "entries"))
					said = note
				}
			}
			if b.Record != nil {
				e := audit.Subscription(audit.SubscriptionDeleted, actor(), sub.Project, sub.Name, subscription.Redacted(sub.URL), note)
				if err := audit.RecordDone(cmd.Context(), b.Record, e, "subscription "+sub.Name+" was removed"); err != nil {
					return errors.Join(err, removeErr)
				}
			}
			if removeErr != nil {
				return removeErr
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed subscription %s of project %s; %s\n", sub.Name, sub.Project, userText(said))
			return nil
		},
	}
	c.Flags().BoolVar(&withFolder, "with-folder", false, "also delete its folder in the scripts folder, with all it holds")
	addScriptsFlags(c, &f, opts, true)
	return c
}

// openSubscription opens the data directory's database for a change of
// the subscription named name (openDefinitions) and reads it, with the
// scripts folder it pulls into; the caller closes the backend. A name no
// subscription has is refused in the commands' words (commandWords).
func openSubscription(ctx context.Context, opts Options, f *scriptsFlags, name string) (*Backend, *scripts.Folder, subscription.Subscription, error) {
	folder, err := f.folder(opts)
	if err != nil {
		return nil, nil, subscription.Subscription{}, err
	}
	b, err := openDefinitions(ctx, opts, &f.db, true)
	if err != nil {
		return nil, nil, subscription.Subscription{}, err
	}
	sub, err := subscription.Find(ctx, b.Definitions, name)
	if err != nil {
		b.Close()
		return nil, nil, subscription.Subscription{}, errors.Join(commandWords([]error{err}, opts.Binary)...)
	}
	return b, folder, sub, nil
}

// openDefinitions opens the data directory's database for the
// subscriptions commands, for a change when write (refused while the
// clock reads behind the database), and refuses one whose definitions
// cannot be read.
func openDefinitions(ctx context.Context, opts Options, f *dbFlags, write bool) (*Backend, error) {
	open := openExisting
	if write {
		open = openExistingForWrite
	}
	b, err := open(ctx, opts, f)
	if err != nil {
		return nil, err
	}
	if b.Definitions == nil {
		b.Close()
		return nil, errors.New("this database holds no definitions a subscription could be read from: give --data-dir a single node's data directory")
	}
	return b, nil
}
