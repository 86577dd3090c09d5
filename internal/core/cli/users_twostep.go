package cli

import (
	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/account"
)

func usersResetTwoStepCommand(opts Options) *cobra.Command {
	c := userVerb(opts, "reset-two-step", "Turn off a console user's two-step sign-in: for a lost phone",
		"Turn off the two-step sign-in of the console user NAME, who lost the phone with the authenticator app\nand the recovery codes: its secret and recovery codes are forgotten and its console sessions end at\nonce. The user then signs in with the password alone, and may turn two-step sign-in on again from the\naccount page with a new key. The reset is recorded in the audit trail (user.two_step_reset). A key the\nuser began to set up and never confirmed is forgotten, and the command says so; nothing else changes\nand nothing is recorded, since that key never signed anyone in. A user without either is left as it is.",
		func(cmd *cobra.Command, b *Backend, name string) (string, error) {
			done, err := b.Users.UserResetTwoStep(cmd.Context(), name, actor())
			return resetTwoStepText[done], err
		})
	c.Aliases = []string{"reset-2fa"}
	return c
}

// resetTwoStepText says, after the user's name, what a reset did.
var resetTwoStepText = map[account.TwoStepReset]string{
	account.ResetOn:      "has two-step sign-in turned off; it signs in with its password and may turn it on again",
	account.ResetWaiting: "had two-step sign-in waiting for its first code, never on: the waiting key is forgotten, and the account page offers a new one",
	account.ResetNothing: "has no two-step sign-in on; nothing changed",
}
