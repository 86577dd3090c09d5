package loop

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// An error every round meets again is said once, then once a minute with
// how many times it was met meanwhile; an error in other words is said at
// once, after the count of the last one's repeats not said yet.
func TestAnErrorEveryRoundMeetsIsSaidOnceAMinuteWithItsCount(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 5, 2, 0, 0, 0, time.UTC)
	var said []string
	q := NewQuiet(func(err error, held int) { said = append(said, fmt.Sprintf("%s [%d]", err, held)) })
	q.now = func() time.Time { return at }
	full := errors.New("claim notifications: the disk is full")
	step := func(d time.Duration, err error) {
		at = at.Add(d)
		q.Error(err)
	}
	step(0, full)
	for range 59 {
		step(time.Second, full)
	}
	step(time.Second, full)
	step(time.Second, full)
	step(time.Second, errors.New("claim notifications: the database is locked"))
	step(time.Second, full)
	want := []string{
		"claim notifications: the disk is full [0]",
		"claim notifications: the disk is full [59]",
		"claim notifications: the disk is full [1]",
		"claim notifications: the database is locked [0]",
		"claim notifications: the disk is full [0]",
	}
	if fmt.Sprintf("%q", said) != fmt.Sprintf("%q", want) {
		t.Fatalf("said\n%q\nwant\n%q", said, want)
	}
}
