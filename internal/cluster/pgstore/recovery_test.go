package pgstore

import (
	"context"
	"fmt"
	"io"
	"log/slog"
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

// drift is one departure from the admission shape and the reason the
// recovery source must name for it.
type drift struct {
	name   string
	sql    string // $1 is the run id
	reason string
}

var drifts = []drift{
	{"run dispatching", `UPDATE qinglong.runs SET state = 'dispatching', version = 3, last_event_seq = 3 WHERE id = $1`, "run_dispatching"},
	{"run running", `UPDATE qinglong.runs SET state = 'running' WHERE id = $1`, "run_state"},
	{"run lost", `UPDATE qinglong.runs SET state = 'lost' WHERE id = $1`, "run_state"},
	{"run without trigger", `UPDATE qinglong.runs SET trigger_id = NULL, trigger_revision = NULL WHERE id = $1`, "run_not_scheduled"},
	{"run cancel requested", `UPDATE qinglong.runs SET cancel_requested_at_ms = created_at_ms WHERE id = $1`, "run_cancel_requested"},
	{"run queued time missing", `UPDATE qinglong.runs SET queued_at_ms = NULL WHERE id = $1`, "run_queued_at_missing"},
	{"run finished time", `UPDATE qinglong.runs SET finished_at_ms = created_at_ms WHERE id = $1`, "run_finished_at"},
	{"run version", `UPDATE qinglong.runs SET version = 3 WHERE id = $1`, "run_version"},
	{"run last event", `UPDATE qinglong.runs SET last_event_seq = 3 WHERE id = $1`, "run_last_event_seq"},
	{"run updated", `UPDATE qinglong.runs SET updated_at_ms = updated_at_ms + 1 WHERE id = $1`, "run_updated"},
	{"attempt missing", `DELETE FROM qinglong.attempts WHERE run_id = $1`, "attempt_missing"},
	{"newer attempt", `INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms)
		SELECT gen_random_uuid(), run_id, 2, executor, 'claimed', created_at_ms, created_at_ms FROM qinglong.attempts WHERE run_id = $1`, "attempt_newer"},
	{"attempt starting", `UPDATE qinglong.attempts SET state = 'starting' WHERE run_id = $1`, "attempt_state"},
	{"attempt local executor", `UPDATE qinglong.attempts SET executor = 'local_process' WHERE run_id = $1`, "attempt_executor"},
	{"worker", `UPDATE qinglong.attempts SET worker_id = gen_random_uuid() WHERE run_id = $1`, "attempt_worker_id"},
	{"session", `UPDATE qinglong.attempts SET session_id = gen_random_uuid() WHERE run_id = $1`, "attempt_session_id"},
	{"lease token", `UPDATE qinglong.attempts SET lease_token_sha256 = repeat('b', 64), lease_expires_at_ms = created_at_ms + 1 WHERE run_id = $1`, "attempt_lease_token"},
	{"lease version", `UPDATE qinglong.attempts SET lease_version = 1 WHERE run_id = $1`, "attempt_lease_version"},
	{"offer", `UPDATE qinglong.attempts SET offer_id = gen_random_uuid() WHERE run_id = $1`, "attempt_offer_id"},
	{"offered at", `UPDATE qinglong.attempts SET offered_at_ms = created_at_ms WHERE run_id = $1`, "attempt_offered_at"},
	{"offer acked", `UPDATE qinglong.attempts SET offer_acked_at_ms = created_at_ms WHERE run_id = $1`, "attempt_offer_acked_at"},
	{"callback token", `UPDATE qinglong.attempts SET callback_token_sha256 = repeat('a', 64) WHERE run_id = $1`, "attempt_callback_token"},
	{"callback seq", `UPDATE qinglong.attempts SET last_callback_seq = 0 WHERE run_id = $1`, "attempt_last_callback_seq"},
	{"callback at", `UPDATE qinglong.attempts SET last_callback_at_ms = created_at_ms WHERE run_id = $1`, "attempt_last_callback_at"},
	{"deadline", `UPDATE qinglong.attempts SET deadline_at_ms = created_at_ms WHERE run_id = $1`, "attempt_deadline_at"},
	{"backoff", `UPDATE qinglong.attempts SET available_at_ms = created_at_ms WHERE run_id = $1`, "attempt_available_at"},
	{"started", `UPDATE qinglong.attempts SET started_at_ms = created_at_ms WHERE run_id = $1`, "attempt_started_at"},
	{"finished", `UPDATE qinglong.attempts SET finished_at_ms = created_at_ms WHERE run_id = $1`, "attempt_finished_at"},
	{"exit code", `UPDATE qinglong.attempts SET exit_code = 0 WHERE run_id = $1`, "attempt_exit_code"},
	{"result code", `UPDATE qinglong.attempts SET result_code = 'ok' WHERE run_id = $1`, "attempt_result_code"},
	{"error code", `UPDATE qinglong.attempts SET error_code = 'spawn_failed' WHERE run_id = $1`, "attempt_error_code"},
	{"error message", `UPDATE qinglong.attempts SET error_message = 'x' WHERE run_id = $1`, "attempt_error_message"},
	{"log path", `UPDATE qinglong.attempts SET log_path = '/tmp/x' WHERE run_id = $1`, "attempt_log_path"},
	{"log bytes", `UPDATE qinglong.attempts SET log_bytes = 1 WHERE run_id = $1`, "attempt_log_bytes"},
	{"log truncated", `UPDATE qinglong.attempts SET log_truncated = true WHERE run_id = $1`, "attempt_log_truncated"},
	{"attempt updated", `UPDATE qinglong.attempts SET updated_at_ms = updated_at_ms + 1 WHERE run_id = $1`, "attempt_updated"},
}

func TestRecoveryHoldsEveryDriftFromTheAdmissionShape(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	// One pristine control Run beside one Run per drift, all admitted by
	// the real scheduler; each drift is applied to its own Run only.
	_, runs := s.admitRuns(t, "drifts", len(drifts)+1)
	control := runs["t000"]
	byRun := map[string]drift{}
	for i, d := range drifts {
		id := runs[triggerName(i+1)]
		s.exec(t, d.sql, id)
		byRun[id] = d
	}
	// A small page, so candidates and pristine Runs share pages.
	got, examined := allCandidates(t, s.runtime, 7)
	if examined != len(drifts)+1 {
		t.Fatalf("examined %d runs, want %d", examined, len(drifts)+1)
	}
	if _, held := got[control]; held {
		t.Fatal("the untouched control run became a candidate")
	}
	for id, d := range byRun {
		t.Run(d.name, func(t *testing.T) {
			c, ok := got[id]
			if !ok {
				t.Fatalf("drift %q is not a recovery candidate", d.name)
			}
			if c.Reason != d.reason {
				t.Fatalf("reason %q, want %q", c.Reason, d.reason)
			}
		})
	}
}

func triggerName(i int) string { return fmt.Sprintf("t%03d", i) }

func TestRecoveryNeverExaminesFinishedRuns(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "finished", 5)
	for i, state := range []string{"succeeded", "failed", "cancelled", "timed_out"} {
		s.exec(t, `UPDATE qinglong.runs SET state = $2, finished_at_ms = created_at_ms, version = 9 WHERE id = $1`, runs[triggerName(i)], state)
	}
	s.exec(t, `UPDATE qinglong.runs SET state = 'running' WHERE id = $1`, runs["t004"])
	got, examined := allCandidates(t, s.runtime, 2)
	if examined != 1 || len(got) != 1 || got[runs["t004"]].Reason != "run_state" {
		t.Fatalf("examined %d, candidates %v; only the unfinished run may be examined", examined, got)
	}
}

func TestRecoveryHorizonIsDatabaseTimeAndBoundsTheScan(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "horizon", 3)
	for _, id := range runs {
		s.exec(t, `UPDATE qinglong.runs SET state = 'running' WHERE id = $1`, id)
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

func TestRecoveryGateConvergesAndChangesNothing(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	_, runs := s.admitRuns(t, "gate", 6)
	s.exec(t, `UPDATE qinglong.runs SET state = 'dispatching' WHERE id = $1`, runs["t002"])
	s.exec(t, `UPDATE qinglong.attempts SET worker_id = gen_random_uuid() WHERE run_id = $1`, runs["t004"])
	before := s.fingerprintRuns(t)
	rep, err := recovery.Gate{Source: s.runtime, PageSize: 2, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Examined != 6 || rep.HeldCount != 2 || len(rep.Held) != 2 || rep.Pages != 4 {
		t.Fatalf("report %+v", rep)
	}
	held := map[string]string{rep.Held[0].RunID: rep.Held[0].Reason, rep.Held[1].RunID: rep.Held[1].Reason}
	if held[runs["t002"]] != "run_dispatching" || held[runs["t004"]] != "attempt_worker_id" {
		t.Fatalf("held %v", held)
	}
	if after := s.fingerprintRuns(t); after != before {
		t.Fatal("the recovery gate changed runs, attempts or events; candidates must be held untouched")
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
