package pgstore

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/cluster/recovery"
)

// allCandidates pages through RecoveryPage to the end.
func allCandidates(t *testing.T, r *Runtime, limit int) (map[string]recovery.Candidate, int) {
	t.Helper()
	out := map[string]recovery.Candidate{}
	examined := 0
	p := recovery.PageParams{Limit: limit}
	for {
		page, err := r.RecoveryPage(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		examined += page.Examined
		for _, c := range page.Candidates {
			out[c.RunID] = c
		}
		if page.Next == "" {
			return out, examined
		}
		p = recovery.PageParams{HorizonMs: page.HorizonMs, After: page.Next, Limit: limit}
	}
}

func TestRecoveryExcludesPristineSchedulerOutput(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "pristine", 5)
	got, examined := allCandidates(t, s.runtime, recovery.MaxPageSize)
	if examined != 5 || len(got) != 0 {
		t.Fatalf("examined %d, candidates %v; admission's own output must be excluded", examined, got)
	}
}

// drift is one shape no rule moves on and the reason the recovery source
// must name for it.
type drift struct {
	name   string
	sql    string // $1 is the run id
	reason string
}

// leased puts the latest Attempt of Run $1 under a lease.
const leased = `UPDATE qinglong.attempts SET worker_id = gen_random_uuid(), session_id = gen_random_uuid(), lease_token_sha256 = repeat('b', 64),
	lease_version = 1, lease_expires_at_ms = created_at_ms + 600000 WHERE run_id = $1`

var drifts = []drift{
	{"run created", `UPDATE qinglong.runs SET state = 'created' WHERE id = $1`, "run_state"},
	{"run waiting approval", `UPDATE qinglong.runs SET state = 'waiting_approval' WHERE id = $1`, "run_state"},
	{"attempt missing", `DELETE FROM qinglong.attempts WHERE run_id = $1`, "attempt_missing"},
	{"attempt local executor", `UPDATE qinglong.attempts SET executor = 'local_process' WHERE run_id = $1`, "attempt_executor"},
	{"queued run cancel requested", `UPDATE qinglong.runs SET cancel_requested_at_ms = created_at_ms WHERE id = $1`, "run_cancel_requested"},
	{"queued run leased", leased, "attempt_leased_while_waiting"},
	{"dispatching without lease", `UPDATE qinglong.runs SET state = 'dispatching' WHERE id = $1`, "run_unleased"},
	{"running without lease", `UPDATE qinglong.runs SET state = 'running' WHERE id = $1;
		UPDATE qinglong.attempts SET state = 'running', started_at_ms = created_at_ms WHERE run_id = $1`, "run_unleased"},
	{"queued with a running attempt", `UPDATE qinglong.attempts SET state = 'running' WHERE run_id = $1`, "attempt_state"},
	{"running with a claimed attempt", leased + `; UPDATE qinglong.runs SET state = 'running' WHERE id = $1`, "attempt_state"},
	{"queued attempt started", `UPDATE qinglong.attempts SET started_at_ms = created_at_ms WHERE run_id = $1`, "attempt_started_at"},
	{"running attempt finished", leased + `; UPDATE qinglong.runs SET state = 'running' WHERE id = $1;
		UPDATE qinglong.attempts SET state = 'running', started_at_ms = created_at_ms, finished_at_ms = created_at_ms WHERE run_id = $1`, "attempt_finished_at"},
}

// normal are shapes some rule moves on: never candidates.
var normal = []drift{
	{"dispatching under a lease", leased + `; UPDATE qinglong.runs SET state = 'dispatching', version = 3 WHERE id = $1`, ""},
	{"running under a lease", leased + `; UPDATE qinglong.runs SET state = 'running', version = 4 WHERE id = $1;
		UPDATE qinglong.attempts SET state = 'running', started_at_ms = created_at_ms WHERE run_id = $1`, ""},
	{"running with a cancel intent", leased + `; UPDATE qinglong.runs SET state = 'running', cancel_requested_at_ms = created_at_ms WHERE id = $1;
		UPDATE qinglong.attempts SET state = 'starting' WHERE run_id = $1`, ""},
	{"retry waiting for its backoff", `UPDATE qinglong.runs SET state = 'retry_wait', version = 6 WHERE id = $1;
		UPDATE qinglong.attempts SET state = 'lost', finished_at_ms = created_at_ms WHERE run_id = $1;
		INSERT INTO qinglong.attempts (id, run_id, number, executor, state, available_at_ms, created_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), run_id, 2, executor, 'claimed', created_at_ms + 10000, created_at_ms, created_at_ms FROM qinglong.attempts WHERE run_id = $1`, ""},
	{"queued again after a release", `UPDATE qinglong.runs SET version = 5, updated_at_ms = updated_at_ms + 1 WHERE id = $1;
		UPDATE qinglong.attempts SET updated_at_ms = updated_at_ms + 1 WHERE run_id = $1`, ""},
}

func TestRecoveryHoldsEveryShapeNoRuleMovesOn(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	// One pristine control Run beside one Run per shape, all admitted by
	// the real scheduler; each shape is given to its own Run only.
	shapes := append(append([]drift{}, drifts...), normal...)
	_, runs := s.admitRuns(t, "drifts", len(shapes)+1)
	control := runs["t000"]
	byRun := map[string]drift{}
	for i, d := range shapes {
		id := runs[triggerName(i+1)]
		for _, stmt := range strings.Split(d.sql, ";") {
			s.exec(t, stmt, id)
		}
		byRun[id] = d
	}
	// A small page, so candidates and normal Runs share pages.
	got, examined := allCandidates(t, s.runtime, 7)
	if examined != len(shapes)+1 {
		t.Fatalf("examined %d runs, want %d", examined, len(shapes)+1)
	}
	if _, held := got[control]; held {
		t.Fatal("the untouched control run became a candidate")
	}
	for id, d := range byRun {
		t.Run(d.name, func(t *testing.T) {
			c, ok := got[id]
			switch {
			case d.reason == "" && ok:
				t.Fatalf("normal shape %q held as %q", d.name, c.Reason)
			case d.reason != "" && !ok:
				t.Fatalf("shape %q is not a recovery candidate", d.name)
			case ok && c.Reason != d.reason:
				t.Fatalf("reason %q, want %q", c.Reason, d.reason)
			}
		})
	}
}

func triggerName(i int) string { return fmt.Sprintf("t%03d", i) }

func TestRecoveryNeverExaminesFinishedRuns(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "finished", 6)
	for i, state := range []string{"succeeded", "failed", "cancelled", "timed_out", "lost"} {
		s.exec(t, `UPDATE qinglong.runs SET state = $2, finished_at_ms = created_at_ms, version = 9 WHERE id = $1`, runs[triggerName(i)], state)
	}
	s.exec(t, `UPDATE qinglong.runs SET state = 'dispatching' WHERE id = $1`, runs["t005"])
	got, examined := allCandidates(t, s.runtime, 2)
	if examined != 1 || len(got) != 1 || got[runs["t005"]].Reason != "run_unleased" {
		t.Fatalf("examined %d, candidates %v; only the unfinished run may be examined", examined, got)
	}
}

func TestRecoveryHorizonIsDatabaseTimeAndBoundsTheScan(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "horizon", 3)
	for _, id := range runs {
		s.exec(t, `UPDATE qinglong.runs SET state = 'dispatching' WHERE id = $1`, id)
	}
	before, err := s.runtime.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.runtime.RecoveryPage(t.Context(), recovery.PageParams{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	after, err := s.runtime.NowMs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if first.HorizonMs < before || first.HorizonMs > after {
		t.Fatalf("horizon %d not sampled from the database clock (between %d and %d)", first.HorizonMs, before, after)
	}
	if first.Examined != 1 || len(first.Candidates) != 1 || first.Next != first.Candidates[0].RunID {
		t.Fatalf("first page %+v", first)
	}
	// A Run created after the horizon (another replica admitting while we
	// recover) is outside this scan.
	for _, id := range runs {
		if id != first.Next {
			s.exec(t, `UPDATE qinglong.runs SET created_at_ms = $2, queued_at_ms = $2, updated_at_ms = $2 WHERE id = $1`, id, first.HorizonMs+60_000)
		}
	}
	rest, err := s.runtime.RecoveryPage(t.Context(), recovery.PageParams{HorizonMs: first.HorizonMs, After: first.Next, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rest.Examined != 0 || rest.Next != "" || rest.HorizonMs != first.HorizonMs {
		t.Fatalf("page after the horizon %+v", rest)
	}
}

func TestRecoveryPageRejectsOutOfRangePages(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for _, p := range []recovery.PageParams{{Limit: 0}, {Limit: recovery.MaxPageSize + 1}, {Limit: 1, After: "not-a-uuid"}} {
		if _, err := s.runtime.RecoveryPage(t.Context(), p); err == nil {
			t.Errorf("page %+v accepted", p)
		}
	}
}

// The scan only reads: what it holds stays exactly as it was.
func TestRecoveryScanHoldsCandidatesUntouched(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "gate", 6)
	s.exec(t, `UPDATE qinglong.runs SET state = 'dispatching' WHERE id = $1`, runs["t002"])
	s.exec(t, `UPDATE qinglong.attempts SET executor = 'local_process' WHERE run_id = $1`, runs["t004"])
	before := s.fingerprintRuns(t)
	settled := func(context.Context) (bool, error) { return false, nil }
	rep, err := recovery.Gate{Source: s.runtime, Sweep: settled, PageSize: 2, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Examined != 6 || rep.HeldCount != 2 || len(rep.Held) != 2 || rep.Pages != 4 {
		t.Fatalf("report %+v", rep)
	}
	held := map[string]string{rep.Held[0].RunID: rep.Held[0].Reason, rep.Held[1].RunID: rep.Held[1].Reason}
	if held[runs["t002"]] != "run_unleased" || held[runs["t004"]] != "attempt_executor" {
		t.Fatalf("held %v", held)
	}
	if after := s.fingerprintRuns(t); after != before {
		t.Fatal("the recovery scan changed runs, attempts or events; candidates must be held untouched")
	}
}

// fingerprintRuns digests every row of runs, attempts and run_events.
func (s *store) fingerprintRuns(t *testing.T) string {
	t.Helper()
	var fp string
	err := s.super.QueryRow(context.Background(), `SELECT
		(SELECT coalesce(md5(string_agg(r::text, '|' ORDER BY r.id)), '') FROM qinglong.runs r) ||
		(SELECT coalesce(md5(string_agg(a::text, '|' ORDER BY a.id)), '') FROM qinglong.attempts a) ||
		(SELECT coalesce(md5(string_agg(e::text, '|' ORDER BY e.run_id, e.seq)), '') FROM qinglong.run_events e)`).Scan(&fp)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}
