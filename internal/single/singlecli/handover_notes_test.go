package singlecli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// handedOverdue is a data directory handed over (`export --all
// --with-state`) while its trigger hourly was overdue (its next
// occurrence an hour back, undecided) and one Run of it was queued by
// hand, with that Run's id.
func handedOverdue(t *testing.T) (dir, runID string) {
	t.Helper()
	dir, b := decidedWithHourlyAt(t, time.Now().UTC().Truncate(time.Hour).Add(-time.Hour).UnixMilli())
	defer b.Close()
	code, out, errOut := ql(t, "triggers", "run", "moving/hourly", "--data-dir", dir)
	id := regexp.MustCompile(`run (\S+) queued`).FindStringSubmatch(out)
	if code != 0 || id == nil {
		t.Fatalf("triggers run: exit %d %q %q", code, out, errOut)
	}
	if code, stdout, errOut := ql(t, "export", "--all", "--with-state", "-o", filepath.Join(t.TempDir(), "handover"), "--data-dir", dir); code != 0 {
		t.Fatalf("export --all --with-state: exit %d %q %q", code, stdout, errOut)
	}
	return dir, id[1]
}

// On a data directory handed over, where a plain `serve` is refused
// (database_handed_over), no note sends the reader to it: a queued Run's
// waiting reason (text and JSON) and the overdue
// notes of `triggers list` and `triggers show` each say the database was
// handed over and name the take-back instead.
func TestNoNoteOnAHandedOverDatabaseSuggestsAStartThatIsRefused(t *testing.T) {
	t.Parallel()
	dir, id := handedOverdue(t)
	takeBack := "after `ql-edge serve --take-back --data-dir " + dir + "` takes it back"
	plainServe := "`ql-edge serve --data-dir " + dir + "`"
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"runs show", []string{"runs", "show", id}, "nothing starts it: it stays queued here, and runs only " + takeBack},
		{"runs show -o json", []string{"runs", "show", id, "-o", "json"}, `"handedOver": true`},
		{"triggers list", []string{"triggers", "list"}, "each is admitted or passed over as its misfire policy says only " + takeBack},
		{"triggers show", []string{"triggers", "show", "moving/hourly"}, "it is decided only " + takeBack},
	} {
		code, out, errOut := ql(t, append(c.args, "--data-dir", dir)...)
		all := out + errOut
		if code != 0 || !strings.Contains(all, "was handed over (`export --with-state`), so no server runs here") || !strings.Contains(all, c.says) || strings.Contains(all, plainServe) {
			t.Errorf("%s on a handed-over database: exit %d\n%s\n%s\nwant it to say %q and never to name %s", c.name, code, out, errOut, c.says, plainServe)
		}
	}
}
