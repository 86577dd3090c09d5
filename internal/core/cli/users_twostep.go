package cli

import "github.com/spf13/cobra"

func usersResetTwoStepCommand(opts Options) *cobra.Command {
	c := userToggle(opts, "reset-two-step", "Turn off a console user's two-step sign-in: for a lost phone",
		"Turn off the two-step sign-in of the console user NAME, who lost the phone with the authenticator app\nand the recovery codes: its secret and recovery codes are forgotten and its console sessions end at\nonce. The user then signs in with the password alone, and may turn two-step sign-in on again from the\naccount page with a new key. The reset is recorded in the audit trail (user.two_step_reset). A user\nwithout two-step sign-in is left as it is: nothing changes and nothing is recorded.",
		"has two-step sign-in turned off; it signs in with its password and may turn it on again", "has no two-step sign-in on; nothing changed",
		func(cmd *cobra.Command, b *Backend, name string) (bool, error) {
			return b.Users.UserResetTwoStep(cmd.Context(), name, actor())
		})
	c.Aliases = []string{"reset-2fa"}
	return c
}
