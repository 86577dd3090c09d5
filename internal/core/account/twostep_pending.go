package account

import (
	"context"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// PendingStep is a sign-in whose password was right, waiting for its
// second step's code. It is a row, not a signature under one process's
// key, so the code may be typed to any replica, or to the server after
// a restart. The browser's form holds a random ticket; the row holds only
// the ticket's SHA-256 (Digest), so reading the table signs nobody in.
type PendingStep struct {
	// Digest is the SHA-256 of the ticket, the row's key.
	Digest []byte
	// UserID is the account whose password was right, and Stamp the
	// PasswordStamp of the hash it was checked against: a password
	// changed meanwhile ends the step.
	UserID, Stamp string
	// Browser is the SHA-256 of the browser's sign-in cookie (the CSRF
	// value the password was sent with): the step is answered only from
	// that browser.
	Browser []byte
	// ExpiresAtMs ends the step, on the store's clock.
	ExpiresAtMs int64
}

// PendingSteps keeps the second steps waiting for their code (a server's
// SQLite store; the cluster's runtime role, which serves the console).
// Every time of one is the store's clock, as a session's is. Rows past
// their end are deleted when read or used, and ExpiredBatch at a time at
// each new one, so the table holds little more than the steps of the
// last minutes; deleting the account deletes its rows.
type PendingSteps interface {
	// PendingStepCreate stores p, ending lifetime from now.
	PendingStepCreate(ctx context.Context, p PendingStep, lifetime time.Duration) error
	// PendingStepOf returns the step of digest; NotFound when there is
	// none or it has ended (an ended one is deleted).
	PendingStepOf(ctx context.Context, digest []byte) (PendingStep, error)
	// PendingStepUse deletes the step of digest, which makes it usable
	// once: false when there was none or it had ended (used by another
	// request meanwhile, on any server).
	PendingStepUse(ctx context.Context, digest []byte) (bool, error)
}

// ExpiredBatch bounds the ended steps one new step deletes.
const ExpiredBatch = 100

// ErrNoPendingStep is the error of a second step that does not exist or
// has ended.
func ErrNoPendingStep() error {
	return qlerror.New(qlerror.NotFound, "no such second step of a sign-in; sign in again")
}
