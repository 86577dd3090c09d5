package account

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// TwoStep is a user's two-step sign-in as stored: a TOTP secret, once its
// user confirmed it with a code, asked for after the password at every
// sign-in.
type TwoStep struct {
	// Secret is the TOTP secret in base32; "" when the user has none.
	Secret string
	// On is a confirmed secret; a Secret not On is one the account page
	// shows, waiting for its first code.
	On bool
	// LastStep is the newest time step a code was accepted for: a code
	// of that step or an older one is refused, so each is used once.
	LastStep int64
	// RecoveryLeft counts the recovery codes not used yet.
	RecoveryLeft int
}

// TwoStepStore keeps the users' two-step secrets and recovery codes (a
// server's SQLite store; the cluster's runtime role, which serves the
// console). Each change that turns it on or off, or spends a recovery
// code, is audited in its transaction under name and actor; a recovery
// code is stored only as its digest (RecoveryDigest). It keeps the
// sign-ins waiting for their second step too (PendingSteps), and reads
// and changes whether every user must have it (TwoStepPolicy), which the
// console's owners change and its wall reads (TwoStepWall).
type TwoStepStore interface {
	PendingSteps
	TwoStepPolicy
	TwoStepWall
	// TwoStepOf returns the user's two-step; the zero TwoStep when it has
	// none.
	TwoStepOf(ctx context.Context, userID string) (TwoStep, error)
	// TwoStepBegin stores secret as the user's, waiting for its first
	// code, in place of one waiting already; ErrTwoStepOn when it is on.
	TwoStepBegin(ctx context.Context, userID, secret string) error
	// TwoStepConfirm turns the waiting secret on with the recovery codes'
	// digests, step being the time step of the code that confirmed it
	// (used, so it cannot sign in too), only while the waiting secret is
	// still secret: ErrTwoStepOn when it is on already,
	// ErrTwoStepNotBegun when another or none waits.
	TwoStepConfirm(ctx context.Context, userID, name, actor, secret string, step int64, recovery []string) error
	// TwoStepUseStep records that a code of step was accepted, only while
	// two-step is on and no code of that step or a later one was: false
	// when one was (a replay).
	TwoStepUseStep(ctx context.Context, userID string, step int64) (bool, error)
	// TwoStepUseRecovery spends the recovery code of digest: false when
	// the user holds no unused code of it.
	TwoStepUseRecovery(ctx context.Context, userID, name, actor, digest string) (bool, error)
	// TwoStepOff turns two-step off, forgetting its secret and recovery
	// codes; ErrTwoStepOff when it is not on.
	TwoStepOff(ctx context.Context, userID, name, actor string) error
}

// TwoStepReset is what an operator's reset found, and so did.
type TwoStepReset int

const (
	// ResetNothing says the account had no secret; nothing changed.
	ResetNothing TwoStepReset = iota
	// ResetWaiting says a secret begun and never confirmed was
	// forgotten; two-step was off, and stays so.
	ResetWaiting
	// ResetOn says two-step was on, and is turned off.
	ResetOn
)

// The reasons of a refused two-step change or code.
const (
	RefusalTwoStepCodeWrong  qlerror.Reason = "two_step_code_wrong"
	RefusalTwoStepCodeReused qlerror.Reason = "two_step_code_reused"
	RefusalTwoStepOn         qlerror.Reason = "two_step_already_on"
	RefusalTwoStepOff        qlerror.Reason = "two_step_not_on"
	RefusalTwoStepNotBegun   qlerror.Reason = "two_step_not_begun"
)

// ErrTwoStepCodeWrong refuses a code that is neither the authenticator
// app's current one nor an unused recovery code.
func ErrTwoStepCodeWrong() error {
	err := qlerror.New(qlerror.Unauthenticated, "that is not the current code of your authenticator app, nor an unused recovery code; check the app's clock and type the code it shows now")
	err.Reason = RefusalTwoStepCodeWrong
	return err
}

// ErrTwoStepCodeReused refuses a code of a time step a code was accepted
// for already.
func ErrTwoStepCodeReused() error {
	err := qlerror.New(qlerror.Unauthenticated, "that code was used already; wait for the app's next code and type it")
	err.Reason = RefusalTwoStepCodeReused
	return err
}

// ErrTwoStepOn refuses to begin or confirm two-step for a user who has it.
func ErrTwoStepOn() error {
	err := qlerror.New(qlerror.FailedPrecondition, "two-step sign-in is on already; turn it off first to move it to another app")
	err.Reason = RefusalTwoStepOn
	return err
}

// ErrTwoStepOff refuses to turn off two-step for a user who has it not.
func ErrTwoStepOff() error {
	err := qlerror.New(qlerror.FailedPrecondition, "two-step sign-in is not on; nothing to turn off")
	err.Reason = RefusalTwoStepOff
	return err
}

// ErrTwoStepNotBegun refuses a confirmation whose secret is not the one
// waiting: turned on or begun again elsewhere meanwhile.
func ErrTwoStepNotBegun() error {
	err := qlerror.New(qlerror.Conflict, "this two-step setup is no longer the one waiting (it was started again in another window, or finished); reload the account page and scan the code it shows")
	err.Reason = RefusalTwoStepNotBegun
	return err
}
