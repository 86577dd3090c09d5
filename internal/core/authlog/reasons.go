package authlog

// The reasons of the console's, the setup page's and the worker
// ingress's lines (the API's are its refusals' reasons: token_missing,
// token_malformed, token_unknown, token_revoked, token_expired,
// address_throttled, token_over_rate).
const (
	// How a sign-in succeeded.
	ReasonPassword  = "password"
	ReasonToken     = "token"
	ReasonSetupCode = "setup_code"

	// Why a console sign-in failed. An unknown user's line names no user:
	// what was typed may be a password typed in the wrong field.
	ReasonUserUnknown    = "user_unknown"
	ReasonPasswordWrong  = "password_wrong"
	ReasonUserDisabled   = "user_disabled"
	ReasonTokenMalformed = "token_malformed"
	ReasonTokenUnknown   = "token_unknown"
	ReasonTokenRevoked   = "token_revoked"
	ReasonTokenExpired   = "token_expired"

	// ReasonCurrentPasswordWrong: a signed-in user's password change
	// whose current password was wrong (someone at an unattended browser
	// guessing it, or a typo). The line names the session's user.
	ReasonCurrentPasswordWrong = "current_password_wrong"

	// A sign-in's second step (two-step sign-in): how it succeeded, a
	// code of the authenticator app or a recovery code; and why it
	// failed, a wrong code (or recovery code) or a code of a time step
	// used already, which may be someone replaying a code seen. The
	// line names the user whose password was right; also a wrong code
	// on the account page's turning two-step off.
	ReasonTwoStepCode       = "password_and_code"
	ReasonRecoveryCode      = "password_and_recovery_code"
	ReasonTwoStepCodeWrong  = "two_step_code_wrong"
	ReasonTwoStepCodeReused = "two_step_code_reused"

	// ReasonSetupCodeWrong: a wrong first-owner setup code.
	ReasonSetupCodeWrong = "setup_code_wrong"

	// ReasonThrottled: refused with 429 because the address (or, for a
	// console sign-in, the pair of name and address, or the name) failed
	// too often.
	ReasonThrottled = "address_throttled"

	// ReasonSessionOverRate: a signed-in console session's request
	// refused with 429 because the session used up its requests a second.
	ReasonSessionOverRate = "session_over_rate"
)

// The worker ingress's reasons: no credential or one not shaped like one,
// one nobody holds, one an admin revoked, one a rotation replaced whose
// time passed, a worker's request on another worker's session or
// attempt, and a worker over its request rate.
//
//nolint:gosec // G101: the names of reasons, no credential
const (
	ReasonCredentialMissing  = "credential_missing"
	ReasonCredentialUnknown  = "credential_unknown"
	ReasonCredentialRevoked  = "credential_revoked"
	ReasonCredentialReplaced = "credential_replaced"
	ReasonOtherWorkers       = "other_workers"
	// ReasonWorkerOverRate: an authenticated worker refused with 429 for
	// sending more requests a second than the ingress allows a worker (a
	// worker's bug, or its credential used by more than one process).
	ReasonWorkerOverRate = "worker_over_rate"
)
