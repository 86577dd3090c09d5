package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/account"
)

func usersRequireTwoStepCommand(opts Options) *cobra.Command {
	var db dbFlags
	c := &cobra.Command{
		Use:   "require-two-step on|off",
		Short: "Require two-step sign-in of every console user, or leave it to each user",
		Long: `Require two-step sign-in (an authenticator app's code after the password) of every console user
(on), or leave it to each user again (off). While it is required, a user who signs in with a
password and has no two-step sign-in on can do nothing in the console but set it up on the Account
page, read that page and sign out: every other page sends them there, saying why. A user who has it
may not turn it off; users reset-two-step NAME still turns a user's off for a lost phone, and that
user sets it up again at the next sign-in. Nobody is locked out: the set-up stays open to every user
kept at it, owners included. API tokens are not passwords and are never asked for a code. The change
holds from each console session's next page and is recorded in the audit trail
(setting.two_step_required, its note on or off). An owner may change it on the console's Account
page too; users list says whether it is required and who has no two-step sign-in yet.` + opts.clusterOnly("\n\nOn the cluster it holds on every replica at once: each reads the setting from the database."),
		Example: "  " + opts.Binary + " users require-two-step on\n  " + opts.Binary + " users require-two-step off",
		Args: oneChecked("users require-two-step takes on or off", func(s string) error {
			if s != "on" && s != "off" {
				return fmt.Errorf("users require-two-step takes on or off, not %q", s)
			}
			return nil
		}),
		RunE: func(cmd *cobra.Command, args []string) error {
			on := args[0] == "on"
			b, err := openExistingForWrite(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Users == nil {
				return fmt.Errorf("this build cannot manage console users of this database")
			}
			changed, err := b.Users.TwoStepRequire(cmd.Context(), on, actor())
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch {
			case !changed && on:
				fmt.Fprintln(out, "two-step sign-in was already required of every console user; nothing changed")
			case !changed:
				fmt.Fprintln(out, "two-step sign-in was not required; nothing changed")
			case !on:
				fmt.Fprintln(out, "two-step sign-in is no longer required: each user chooses again, and those who have it keep it")
			default:
				list, err := b.Users.UserList(cmd.Context())
				if err != nil {
					return err
				}
				fmt.Fprintln(textWriter{out}, "two-step sign-in is now required of every console user (API tokens are not affected); "+withoutTwoStep(list))
			}
			return nil
		},
	}
	addDBWriteFlags(c, &db, opts.OpenPostgres != nil)
	return c
}

// withoutTwoStep says which active users have no two-step sign-in on,
// and so are sent to set it up at their next page.
func withoutTwoStep(list []account.User) string {
	var names []string
	for _, u := range list {
		if u.State() == account.StateActive && !u.TwoStepOn {
			names = append(names, u.Name)
		}
	}
	if len(names) == 0 {
		return "every active user has it on already"
	}
	return fmt.Sprintf("%d without it (%s) can only set it up, from their next page on", len(names), strings.Join(names, ", "))
}
