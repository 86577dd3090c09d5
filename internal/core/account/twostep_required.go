package account

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// TwoStepPolicy is whether every user must sign in with two-step: one
// setting of the database, so every replica of a cluster reads the same
// at each request. An owner changes it on the console's account page, an
// operator with `ql users require-two-step`; API tokens are never asked.
type TwoStepPolicy interface {
	// TwoStepRequired reports whether two-step sign-in is required of
	// every user.
	TwoStepRequired(ctx context.Context) (bool, error)
	// TwoStepRequire requires two-step sign-in of every user (on) or
	// leaves it to each, recording the change under actor in its
	// transaction (TwoStepRequiredEntry); false when it was so already,
	// which changes and records nothing.
	TwoStepRequire(ctx context.Context, on bool, actor string) (bool, error)
}

// TwoStepWall is what the console asks at each request of a user's
// session: whether the user may do nothing but set up two-step sign-in.
type TwoStepWall interface {
	// TwoStepWalled reports whether two-step sign-in is required and the
	// user has none on (a key begun and not confirmed is none), read in
	// one statement so the answer is one state of the database.
	TwoStepWalled(ctx context.Context, userID string) (bool, error)
}

// TwoStepRequiredSetting names the setting in the audit trail.
const TwoStepRequiredSetting = "two_step_required"

// TwoStepRequiredEntry is the audit record of the requirement turned on
// or off by actor.
func TwoStepRequiredEntry(on bool, actor string) audit.Entry {
	return audit.Entry{Actor: actor, Action: audit.SettingTwoStepRequired, ObjectKind: audit.KindSetting,
		ObjectID: TwoStepRequiredSetting, ObjectName: TwoStepRequiredSetting, Note: OnOff(on)}
}

// OnOff is how the trail and the command line say a setting's state.
func OnOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// The reasons of a refusal the requirement causes.
const (
	// RefusalTwoStepRequired: a user who signed in with a password and
	// has no two-step asked for anything but setting it up, reading the
	// account page or signing out.
	RefusalTwoStepRequired qlerror.Reason = "two_step_required"
	// RefusalTwoStepRequiredStaysOn: a user turning their own two-step
	// off while it is required.
	RefusalTwoStepRequiredStaysOn qlerror.Reason = "two_step_required_stays_on"
	// RefusalTwoStepRequiredOwnFirst: an owner without two-step of their
	// own requiring it in the console.
	RefusalTwoStepRequiredOwnFirst qlerror.Reason = "two_step_required_own_first"
)

// ErrTwoStepRequired refuses a walled user anything but the set-up.
func ErrTwoStepRequired() error {
	err := qlerror.New(qlerror.PermissionDenied, "two-step sign-in is required for every user of this console, and yours is not set up: "+
		"set it up on the Account page (scan the QR code with an authenticator app, type its code and your password) before anything else; until then only the Account page and Sign out work")
	err.Reason = RefusalTwoStepRequired
	return err
}

// ErrTwoStepRequiredStaysOn refuses a user turning their own two-step
// off while every user must have it.
func ErrTwoStepRequiredStaysOn() error {
	err := qlerror.New(qlerror.FailedPrecondition, "two-step sign-in is required for every user of this console, so yours stays on; "+
		"to move it to another phone, ask an owner to reset it (`ql users reset-two-step NAME`) and set it up again at your next sign-in")
	err.Reason = RefusalTwoStepRequiredStaysOn
	return err
}

// ErrTwoStepRequiredOwnFirst refuses an owner without two-step requiring
// it of everyone: they show it works for them first, on the same page.
func ErrTwoStepRequiredOwnFirst() error {
	err := qlerror.New(qlerror.FailedPrecondition, "set up your own two-step sign-in first (on this page, above), then require it of everyone; nothing changed")
	err.Reason = RefusalTwoStepRequiredOwnFirst
	return err
}
