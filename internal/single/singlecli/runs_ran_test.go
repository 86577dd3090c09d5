package singlecli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// `runs list` gives a finished Run's RAN (how long its attempts ran,
// added up) and `runs show` a ran line; -o json of both carries it as
// ranMs, the API's Runs too; given --api-url, both print what they print
// on the database.
func TestRunsListAndShowSayHowLongAFinishedRunsAttemptsRanOnTheDatabaseAndOverTheAPI(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, twinsFile)
	reader := newToken(t, dir, "reader", "read")
	base := serveAPI(t, dir, "standalone")
	db := readOnlyDB(t, dir)
	waitCursors(t, db)
	t.Setenv("QL_DATA_DIR", "")
	made := queuedRun.FindStringSubmatch(onDB(t, dir, "triggers", "run", "alpha", "--request-id", "ran").out)
	if made == nil {
		t.Fatal("triggers run alpha queued no Run")
	}
	waitRunsEnded(t, db)
	var want int64
	if err := db.QueryRow(`SELECT sum(finished_at_ms - started_at_ms) FROM attempts WHERE run_id = ?`, made[1]).Scan(&want); err != nil {
		t.Fatal(err)
	}
	t.Setenv("QL_TOKEN", reader)

	list := onDB(t, dir, "runs", "list")
	header, row := regexp.MustCompile(`(?m)^ID +STATE +RAN +SCHEDULED FOR `), regexp.MustCompile(`(?m)^`+made[1]+` +succeeded +\d+(\.\d+)?(ms|s) `)
	if list.code != 0 || !header.MatchString(list.out) || !row.MatchString(list.out) {
		t.Fatalf("runs list: exit %d\n%s%s\nwant a RAN column saying how long the succeeded Run ran", list.code, list.out, list.err)
	}
	sameAs(t, "runs list", overAPI(t, base, "runs", "list"), list, nil)
	show := onDB(t, dir, "runs", "show", made[1])
	if show.code != 0 || !regexp.MustCompile(`\nran        \d+(\.\d+)?(ms|s) \(its attempts' run times added up`).MatchString(show.out) {
		t.Fatalf("runs show: exit %d\n%s%s\nwant a ran line", show.code, show.out, show.err)
	}
	sameAs(t, "runs show", overAPI(t, base, "runs", "show", made[1]), show, nil)

	js := onDB(t, dir, "runs", "list", "-o", "json")
	var page struct {
		Runs []struct {
			ID    string
			RanMs *int64
		}
	}
	if err := json.Unmarshal([]byte(js.out), &page); err != nil || js.code != 0 || len(page.Runs) != 1 || page.Runs[0].RanMs == nil || *page.Runs[0].RanMs != want {
		t.Fatalf("runs list -o json: exit %d %s %v; want the Run with ranMs %d", js.code, js.out, err, want)
	}
	sameAs(t, "runs list -o json", overAPI(t, base, "runs", "list", "-o", "json"), js, nil)
	detail := onDB(t, dir, "runs", "show", made[1], "-o", "json")
	if !strings.Contains(detail.out, `"ranMs": `) {
		t.Fatalf("runs show -o json: %s; want ranMs", detail.out)
	}
	sameAs(t, "runs show -o json", overAPI(t, base, "runs", "show", made[1], "-o", "json"), detail, nil)
}
