package cli

import (
	"crypto/tls"
	"errors"
	"net"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// notSent marks a failure to reach a server before any of the request
// left: nothing answered at the address, or the TLS handshake failed. The
// server cannot have acted on it.
type notSent struct{ err error }

func (e notSent) Error() string { return e.err.Error() }

func (e notSent) Unwrap() error { return e.err }

// neverSent reports whether err, from sending a request, failed before the
// request left: dialling or the TLS handshake.
func neverSent(err error) bool {
	var op *net.OpError
	var verify *tls.CertificateVerificationError
	var header tls.RecordHeaderError
	return errors.As(err, &op) && op.Op == "dial" || errors.As(err, &verify) || errors.As(err, &header)
}

// answerLost reports whether err, the failure of a write, may have come
// after the write was done: the network or the database failed while the
// request was under way (a proxy that forwarded it and never answered, a
// connection lost before the COMMIT's answer), so only asking again tells
// what became of it. A timeout (the API's 504, a database lock waited out)
// is not one: it is answered once the write was rolled back; nor is a
// database that takes no writes (a standby), which refused the statement
// before anything was written. A command interrupted (Ctrl-C) while its
// request was under way is one: stopping the client does not stop a
// server that has the request, and execute says it was interrupted beside
// the advice.
func answerLost(err error) bool {
	var ns notSent
	return qlerror.CodeOf(err) == qlerror.Unavailable && !errors.As(err, &ns) && qlerror.ReasonOf(err) != schedule.RefusalNotPrimary
}

// lostAnswerError is a write's failure whose outcome is unknown, with
// what the user can do: ask again as it says, which is safe because the
// request carries its request id (or, for a backfill, its occurrences'
// keys). It keeps err's code, so the command exits as it would have.
type lostAnswerError struct {
	err    error
	advice string
}

func (e *lostAnswerError) Error() string { return e.err.Error() + "; " + e.advice }

func (e *lostAnswerError) Unwrap() error { return e.err }

// lostAnswerView is, with -o json, what a write whose answer was lost
// prints on stdout beside the error on stderr: the request id it sent and
// the command that asks again, for a script to take them from.
type lostAnswerView struct {
	TriggerID      string `json:"triggerId,omitempty"`
	RerunOf        string `json:"rerunOf,omitempty"`
	RequestID      string `json:"requestId,omitempty"`
	OutcomeUnknown bool   `json:"outcomeUnknown"`
	AskAgain       string `json:"askAgain"`
}

// lostAnswer is the error of a write whose answer was lost (err): what
// says what it may have done, v.AskAgain is the command that asks again.
// With -o json (out) v goes to stdout first.
func lostAnswer(cmd *cobra.Command, out string, err error, what string, v lostAnswerView) error {
	v.OutcomeUnknown = true
	if out == "json" {
		if werr := writeJSON(cmd.OutOrStdout(), v); werr != nil {
			return werr
		}
	}
	return &lostAnswerError{err: err, advice: what + ": ask again with `" + v.AskAgain + "`"}
}

// requestIDFlag refuses an explicitly empty --request-id: it is mostly an
// unset variable ($CI_JOB_ID in the wrong job), and a generated id in its
// place would make a retry of the same command a second request.
func requestIDFlag(cmd *cobra.Command, requestID string) error {
	if cmd.Flags().Changed("request-id") && requestID == "" {
		return Usagef("--request-id is empty (an unset variable?): give 1–%d letters, digits, '.', '_' or '-', the same on every retry, or leave the flag out for a generated one", schedule.MaxRequestIDLen)
	}
	return nil
}
