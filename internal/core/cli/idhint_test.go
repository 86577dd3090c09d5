package cli

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// An id refused before any database is opened (missing, or no id) names
// the command that lists such ids with the location flag this command was
// given: pasted as printed, it lists the same database's ids, not those
// of the default data directory, or of none.
func TestAnIDRefusalNamesTheListingCommandWithTheSameLocation(t *testing.T) {
	t.Parallel()
	record := func(context.Context, string) (*Backend, error) {
		return nil, errors.New("not opening in this test")
	}
	opts := Options{Binary: "ql-edge", OpenSQLite: record, OpenSQLiteReadOnly: record}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"notifications", "retry", "nope", "--data-dir", "/srv/my ql"},
			"give a notification id as printed by `ql-edge notifications list --state dead --data-dir '/srv/my ql'`"},
		{[]string{"notifications", "retry", "--data-dir", "/srv/ql"},
			"notifications retry takes one notification id, as printed by `ql-edge notifications list --state dead --data-dir /srv/ql`"},
		{[]string{"notifications", "retry", "nope", "--api-url", "https://ql.example.com:8080"},
			"as printed by `ql-edge notifications list --state dead --api-url https://ql.example.com:8080`"},
		{[]string{"runs", "show", "nope", "--data-dir", "/srv/ql"}, "give a run id as printed by `ql-edge runs list --data-dir /srv/ql`"},
		{[]string{"runs", "logs", "--data-dir", "/srv/ql"}, "runs logs takes one run id, as printed by `ql-edge runs list --data-dir /srv/ql`"},
		{[]string{"runs", "rerun", "x"}, "give a run id as printed by `ql-edge runs list`"},
	} {
		code, _, stderr := qlWith(t, opts, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d stderr %q; want exit 2 saying %q", c.args, code, stderr, c.want)
		}
	}
}
