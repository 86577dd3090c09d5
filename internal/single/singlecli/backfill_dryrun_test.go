package singlecli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A backfill's dry run, over the API (`"dryRun": true`) and on the CLI
// (`--dry-run`, text and JSON), says it wrote nothing, writes nothing, and
// counts — occurrences, first and last, new Runs, existing ones — what the
// backfill then does.
func TestABackfillDryRunWritesNothingAndCountsWhatTheBackfillThenDoes(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	operator := newToken(t, dir, "op", "operate")
	db := readOnlyDB(t, dir)
	runs := func() int {
		t.Helper()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM runs`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	window := []string{"triggers", "backfill", "hourly", "--from", "2020-01-01T00:00:00Z", "--to", "2020-01-01T05:00:00Z", "--data-dir", dir}
	if code, out, errOut := ql(t, "triggers", "backfill", "hourly", "--from", "2020-01-01T01:00:00Z", "--to", "2020-01-01T02:00:00Z", "--data-dir", dir); code != 0 {
		t.Fatalf("backfill of two hours: %d %q %q", code, out, errOut)
	}
	before := runs()

	code, out, errOut := ql(t, append(window, "--dry-run")...)
	want := "dry run, nothing was written: trigger hourly: 6 occurrences from 2020-01-01T00:00:00.000Z to 2020-01-01T05:00:00.000Z, 4 would be admitted, 2 already have a run"
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("backfill --dry-run: %d %q %q; want %q", code, out, errOut, want)
	}
	type report struct {
		DryRun                          bool
		Occurrences, Admitted, Existing int
		Truncated                       bool
		FirstMs, LastMs                 int64
		RunIDs                          []string
	}
	first, last := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), time.Date(2020, 1, 1, 5, 0, 0, 0, time.UTC).UnixMilli()
	preview := report{DryRun: true, Occurrences: 6, Admitted: 4, Existing: 2, FirstMs: first, LastMs: last, RunIDs: []string{}}
	var cliJSON report
	code, out, errOut = ql(t, append(window, "--dry-run", "-o", "json")...)
	if err := json.Unmarshal([]byte(out), &cliJSON); code != 0 || err != nil || fmt.Sprint(cliJSON) != fmt.Sprint(preview) || !strings.Contains(out, `"dryRun": true`) {
		t.Fatalf("backfill --dry-run -o json: %d %q %q (%v); want %+v", code, out, errOut, err, preview)
	}

	base := serveAPI(t, dir, "standalone")
	_, listed := call(t, "GET", base+"/api/v1/triggers", operator, "")
	list, _ := listed["triggers"].([]any)
	if len(list) != 1 {
		t.Fatalf("triggers: %v", listed)
	}
	id, _ := list[0].(map[string]any)["triggerId"].(string)
	body := fmt.Sprintf(`{"fromMs":%d,"toMs":%d,"dryRun":true}`, first, last)
	st, raw := call(t, "POST", base+"/api/v1/triggers/"+id+"/backfill", operator, body)
	var apiJSON report
	if b, _ := json.Marshal(raw); st != 200 || json.Unmarshal(b, &apiJSON) != nil || fmt.Sprint(apiJSON) != fmt.Sprint(preview) {
		t.Fatalf("backfill dry run over the API: %d %v; want %+v", st, raw, preview)
	}
	if got := runs(); got != before {
		t.Fatalf("%d runs after the dry runs, want %d as before them", got, before)
	}

	var done report
	code, out, errOut = ql(t, append(window, "-o", "json")...)
	if err := json.Unmarshal([]byte(out), &done); code != 0 || err != nil {
		t.Fatalf("backfill: %d %q %q (%v)", code, out, errOut, err)
	}
	if done.DryRun || len(done.RunIDs) != done.Admitted {
		t.Fatalf("backfill %+v: want no dry run and a run id per admitted occurrence", done)
	}
	done.DryRun, done.RunIDs = true, []string{}
	if fmt.Sprint(done) != fmt.Sprint(preview) {
		t.Fatalf("backfill %+v after its dry run %+v: want the same counts", done, preview)
	}
	if got := runs(); got != before+preview.Admitted {
		t.Fatalf("%d runs after the backfill, want %d", got, before+preview.Admitted)
	}
}

// boundedFile holds two triggers firing hourly through 2021 only, on the
// hour and at half past, and one firing every second.
const boundedFile = `project: demo
tasks:
  - name: quick
    script: echo bounded
triggers:
  - name: in2021
    task: quick
    cron: "0 * * * *"
    timezone: UTC
    startAt: 2021-01-01T00:00:00Z
    endAt: 2022-01-01T00:00:00Z
  - name: halfpast2021
    task: quick
    cron: "30 * * * *"
    timezone: UTC
    startAt: 2021-01-01T00:00:00Z
    endAt: 2022-01-01T00:00:00Z
  - name: secondly
    task: quick
    cron: "* * * * * *"
    timezone: UTC
`

// A backfill that takes no occurrence of a window holding some says why
// and what to do, on the CLI (text and JSON) and over the API alike: the
// window holds none from the trigger's startAt on (it ends before it, or
// reaches across it to an occurrence before it only), none up to its
// endAt, or only occurrences the schedule has not decided yet — on a data
// directory where no server ever ran, every one since the trigger was
// applied.
func TestABackfillTakingNoOccurrenceSaysWhyAndWhatToDo(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, boundedFile)
	applied := time.Now().Truncate(time.Second).Add(time.Second)
	type report struct {
		Occurrences  int
		NothingTaken *struct {
			Reason, Message string
			AtMs            int64
		}
	}
	start, end := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	type window struct {
		trigger, from, to string
		// reason and why are the JSON's reason and a part of its message,
		// which the text report ends with.
		reason, why string
	}
	cases := []window{
		{"in2021", "2020-06-01T00:00:00Z", "2020-06-02T00:00:00Z", "before_start", "the window holds no occurrence from the trigger's startAt 2021-01-01T00:00:00Z on"},
		{"in2021", "2022-06-01T00:00:00Z", "2022-06-02T00:00:00Z", "after_end", "the window holds no occurrence up to the trigger's endAt 2022-01-01T00:00:00Z"},
		// Across a bound, the window's one occurrence beyond it.
		{"halfpast2021", "2020-12-31T23:00:00Z", "2021-01-01T00:10:00Z", "before_start", "the window holds no occurrence from the trigger's startAt 2021-01-01T00:00:00Z on"},
		{"halfpast2021", "2021-12-31T23:50:00Z", "2022-01-01T01:00:00Z", "after_end", "move the window to 2022-01-01T00:00:00Z or earlier"},
	}
	// A window of the secondly trigger's occurrences since it was applied,
	// which no server has decided.
	time.Sleep(time.Until(applied.Add(2 * time.Second)))
	cases = append(cases, window{"secondly", applied.UTC().Format(time.RFC3339), time.Now().UTC().Format(time.RFC3339Nano), "not_decided",
		"are not decided yet: the schedule admits them itself"})
	for _, c := range cases {
		args := []string{"triggers", "backfill", c.trigger, "--from", c.from, "--to", c.to, "--data-dir", dir}
		code, out, errOut := ql(t, args...)
		if code != 0 || !strings.Contains(out, "0 occurrences, 0 admitted, 0 already had a run; ") || !strings.Contains(out, c.why) {
			t.Errorf("backfill of %s from %s to %s: %d %q %q; want 0 occurrences because %q", c.trigger, c.from, c.to, code, out, errOut, c.why)
		}
		var got report
		code, out, errOut = ql(t, append(args, "--dry-run", "-o", "json")...)
		if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.Occurrences != 0 || got.NothingTaken == nil ||
			got.NothingTaken.Reason != c.reason || !strings.Contains(got.NothingTaken.Message, c.why) {
			t.Errorf("backfill of %s from %s to %s -o json: %d %q %q (%v); want nothingTaken %s", c.trigger, c.from, c.to, code, out, errOut, err, c.reason)
		}
	}

	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	_, listed := call(t, "GET", base+"/api/v1/triggers", operator, "")
	list, _ := listed["triggers"].([]any)
	id := ""
	for _, x := range list {
		if m, _ := x.(map[string]any); m["name"] == "in2021" {
			id, _ = m["triggerId"].(string)
		}
	}
	body := fmt.Sprintf(`{"fromMs":%d,"toMs":%d}`, start.AddDate(0, -1, 0).UnixMilli(), start.Add(-time.Millisecond).UnixMilli())
	st, raw := call(t, "POST", base+"/api/v1/triggers/"+id+"/backfill", operator, body)
	var got report
	if b, _ := json.Marshal(raw); st != 200 || json.Unmarshal(b, &got) != nil || got.NothingTaken == nil || got.NothingTaken.Reason != "before_start" ||
		got.NothingTaken.AtMs != start.UnixMilli() || !strings.Contains(got.NothingTaken.Message, "move the window to 2021-01-01T00:00:00Z or later") {
		t.Fatalf("backfill over the API of the month before startAt: %d %v; want nothingTaken before_start at %d naming it", st, raw, start.UnixMilli())
	}
	// The last day before endAt, 24 occurrences: a dry run writes a
	// Run per occurrence before rolling back, under the API's 10 s limit
	// for a request, and a month's 744 could outlast it under the race
	// detector on a loaded machine; a window taking some says nothing
	// whatever its size.
	if st, raw = call(t, "POST", base+"/api/v1/triggers/"+id+"/backfill", operator, fmt.Sprintf(`{"fromMs":%d,"toMs":%d,"dryRun":true}`,
		end.AddDate(0, 0, -1).UnixMilli(), end.Add(-time.Millisecond).UnixMilli())); st != 200 || raw["nothingTaken"] != nil || raw["occurrences"] != float64(24) {
		t.Fatalf("backfill over the API of the last day before endAt: %d %v; want its 24 occurrences and no nothingTaken", st, raw)
	}
}

// A backfill's window may start at or before 1970-01-01T00:00:00Z (epoch
// 0 or less) on the database and over the API alike: `triggers backfill`
// prints the same report either way, and the API takes the bounds as
// epoch milliseconds, 0 and below included. Not parallel: it sets
// $QL_TOKEN.
func TestABackfillFromBefore1970IsTakenOnTheDatabaseAndOverTheAPIAlike(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, manualFile)
	operator := newToken(t, dir, "op", "operate")
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", operator)
	// The hourly trigger's first occurrences are 1970's first hours.
	want := `"occurrences": 3`
	for _, from := range []string{"1970-01-01T00:00:00Z", "1969-12-31T23:30:00Z"} {
		args := []string{"triggers", "backfill", "hourly", "--from", from, "--to", "1970-01-01T02:30:00Z", "--dry-run", "-o", "json"}
		dbCode, onDB, dbErr := ql(t, append(args, "--data-dir", dir)...)
		if dbCode != 0 || !strings.Contains(onDB, want) || !strings.Contains(onDB, `"firstMs": 0`) {
			t.Fatalf("backfill --from %s on the database: exit %d, %q %q; want %s from epoch 0", from, dbCode, onDB, dbErr, want)
		}
		apiCode, overAPI, apiErr := ql(t, append(args, "--api-url", base)...)
		if apiCode != dbCode || overAPI != onDB {
			t.Fatalf("backfill --from %s over the API: exit %d, %q %q; want exit %d and %q as on the database", from, apiCode, overAPI, apiErr, dbCode, onDB)
		}
	}

	_, listed := call(t, "GET", base+"/api/v1/triggers", operator, "")
	list, _ := listed["triggers"].([]any)
	if len(list) != 1 {
		t.Fatalf("triggers: %v", listed)
	}
	id, _ := list[0].(map[string]any)["triggerId"].(string)
	for _, fromMs := range []int64{0, -30 * 60 * 1000} {
		body := fmt.Sprintf(`{"fromMs":%d,"toMs":%d,"dryRun":true}`, fromMs, (150 * time.Minute).Milliseconds())
		if st, raw := call(t, "POST", base+"/api/v1/triggers/"+id+"/backfill", operator, body); st != 200 || raw["occurrences"] != 3.0 || raw["firstMs"] != 0.0 {
			t.Fatalf("backfill %s over the API: %d %v; want 3 occurrences from epoch 0", body, st, raw)
		}
	}
}
