package cli

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A follower that gives up after an outage tells the user to run the
// command again as they gave it: over --api-url, with the server's
// address (and --attempt N when given), which `ql runs logs ID -f` alone
// would not reach.
func TestAFollowerThatGivesUpSaysTheCommandAsGiven(t *testing.T) {
	t.Parallel()
	const id = "0193a8a0-0000-7000-8000-00000000abcd"
	for _, c := range []struct {
		args []string
		from string
		want string
	}{
		{[]string{id, "-f", "--api-url", "https://ql.example:8080", "--attempt", "2"}, "the server",
			"run `ql runs logs " + id + " -f --attempt 2 --api-url https://ql.example:8080` again"},
		{[]string{id, "-f", "--api-url", "http://[::1]:8080/a b"}, "the server",
			"run `ql runs logs " + id + " -f --api-url 'http://[::1]:8080/a b'` again"},
		{[]string{id, "-f"}, "the database", "run `ql runs logs " + id + " -f` again"},
	} {
		cmd := runsLogsCommand(Options{Binary: "ql"})
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatal(err)
		}
		l := logFollower{from: c.from, again: followAgain(cmd.Flags(), id), runID: id, out: io.Discard, errOut: io.Discard,
			downSince: time.Now().Add(-followOutageLimit - time.Second)}
		err := l.outage(t.Context(), qlerror.New(qlerror.Unavailable, "connection refused"))
		if !qlerror.Is(err, qlerror.Unavailable) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: giving up: %v; want %q", c.args, err, c.want)
		}
	}
}
