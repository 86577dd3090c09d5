package notify

import (
	"errors"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// An email channel with several mistakes is refused naming all of them
// at once, each with its reason, not one per apply.
func TestAnEmailChannelsMistakesAreAllReportedAtOnce(t *testing.T) {
	t.Parallel()
	c := Channel{Name: "m", Kind: Email, Host: "smtp.example.com", From: "QingLong", Username: "ql"}
	err := c.Validate()
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) {
		t.Fatalf("%v: want every mistake at once", err)
	}
	var reasons []qlerror.Reason
	for _, e := range joined.Unwrap() {
		reasons = append(reasons, qlerror.ReasonOf(e))
	}
	want := []qlerror.Reason{RefusalMailAddress, validate.RefusalRequired, RefusalMailLogin}
	if len(reasons) != len(want) || reasons[0] != want[0] || reasons[1] != want[1] || reasons[2] != want[2] {
		t.Errorf("reasons %v, want %v", reasons, want)
	}
	for _, says := range []string{`m.from: "QingLong" is not a mail address`, "m.to: is required for email", "m.passwordSecret: give username and passwordSecret together"} {
		if !strings.Contains(err.Error(), says) {
			t.Errorf("the refusal does not say %q:\n%v", says, err)
		}
	}
	if !qlerror.Is(err, qlerror.Invalid) {
		t.Errorf("%v: want an invalid setting", err)
	}
}

// A username is sent in an SMTP command line: one holding a CR or LF,
// which would end that line and start another command, is refused as a
// from or to holding one is.
func TestAnEmailUsernameWithALineBreakIsRefused(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"ql\r\nRSET", "ql\nx", "ql\r"} {
		c := Channel{Name: "m", Kind: Email, Host: "smtp.example.com", From: "ql@example.com", To: []string{"ops@example.com"},
			Username: name, PasswordSecret: "mail_pass"}
		err := c.Validate()
		if qlerror.ReasonOf(err) != RefusalMailUsernameLine || !strings.Contains(err.Error(), "m.username: contains a line break") {
			t.Errorf("username %q: %v (reason %q), want %s", name, err, qlerror.ReasonOf(err), RefusalMailUsernameLine)
		}
	}
}
