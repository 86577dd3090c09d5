package singlecli

import (
	"database/sql"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/single/server"
)

// handedOverdue is a data directory handed over (`export --all
// --with-state`) while its trigger hourly was overdue (its next
// occurrence an hour back, undecided) and one Run of it was queued by
// hand, with that Run's id.
func handedOverdue(t *testing.T) (dir, runID string) {
	t.Helper()
	dir = installedDir(t)
	applyDefs(t, dir, handoverFile)
	b, err := server.OpenBackend(t.Context(), server.LayoutOf(dir).DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if sum, err := schedule.Round(t.Context(), b.Store, schedule.RoundConfig{PageSize: 16, Parallel: 1, GraceMs: 30_000, NewIDs: ids.Fill}); err != nil || sum.Progress() != 2 {
		t.Fatalf("round: %v, %v; want both triggers decided", sum.Counts, err)
	}
	db, err := sql.Open("sqlite", server.LayoutOf(dir).DB+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	due := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour).UnixMilli()
	if _, err := db.ExecContext(t.Context(), `UPDATE trigger_schedules SET next_fire_at_ms = ?, state_version = state_version + 1
		WHERE trigger_id = (SELECT id FROM triggers WHERE name = 'hourly')`, due); err != nil {
		t.Fatal(err)
	}
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
