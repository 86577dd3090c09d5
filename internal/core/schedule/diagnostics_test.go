package schedule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

func TestTheNextRoundStartsAtOnceOnlyAfterAFullPageThatMadeProgress(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		taken  int
		counts map[Outcome]int
		want   bool
	}{
		{"full page, all admitted", 4, map[Outcome]int{Admitted: 4}, true},
		{"full page, one initialized among failures", 4, map[Outcome]int{Initialized: 1, Failed: 3}, true},
		{"full page, one skipped among races", 4, map[Outcome]int{Skipped: 1, Raced: 3}, true},
		{"full page, all failed", 4, map[Outcome]int{Failed: 4}, false},
		{"full page, all raced", 4, map[Outcome]int{Raced: 4}, false},
		{"full page, all unavailable", 4, map[Outcome]int{Unavailable: 2, Failed: 2}, false},
		{"short page, all admitted", 3, map[Outcome]int{Admitted: 3}, false},
		{"empty page", 0, map[Outcome]int{}, false},
	} {
		s := Summary{Taken: c.taken, Counts: c.counts}
		if got := s.StartNextAtOnce(4); got != c.want {
			t.Errorf("%s: start the next round at once = %v, want %v", c.name, got, c.want)
		}
	}
}

// sqlStateErr stands in for a driver error that reports a SQLSTATE.
type sqlStateErr struct{ state, text string }

func (e sqlStateErr) Error() string    { return e.text }
func (e sqlStateErr) SQLState() string { return e.state }

func records(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

func TestRoundRecordsCarryStableCodesCountsAndReasonsButNoDriverText(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	d := Diagnostics{Log: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	driver := sqlStateErr{"40001", `ERROR: could not serialize access (password=hunter2)`}
	first, last := int64(1000), int64(1005)
	d.Round(context.Background(), Summary{
		Taken: 3, Counts: map[Outcome]int{Admitted: 1, Failed: 2}, FirstAcquiredMs: &first, LastAcquiredMs: &last,
		Errors: []error{
			&TicketError{TriggerID: "t-1", Outcome: Failed, Reason: "write_failed", Err: fmt.Errorf("commit: %w", driver)},
			&TicketError{TriggerID: "t-2", Outcome: Failed, Reason: "task_digest_mismatch",
				Err: qlerror.New(qlerror.Internal, "task x revision 1 has another digest")},
		},
	})
	d.RoundFailed(qlerror.Wrap(qlerror.Unavailable, errors.New("dial tcp: secret-host:5432"), "claiming schedule rows"))
	recs := records(t, &buf)
	if len(recs) != 4 {
		t.Fatalf("%d records, want a round, two tickets and a round failure:\n%s", len(recs), buf.String())
	}
	round, t1, t2, failed := recs[0], recs[1], recs[2], recs[3]
	if round["code"] != CodeRound || round["level"] != "INFO" || round["taken"] != 3.0 || round["admitted"] != 1.0 ||
		round["failed"] != 2.0 || round["raced"] != 0.0 || round["first_acquired_ms"] != 1000.0 || round["last_acquired_ms"] != 1005.0 {
		t.Fatalf("round record %v", round)
	}
	if _, ok := round["owner"]; ok {
		t.Fatalf("a scheduler without an owner logs one: %v", round)
	}
	if t1["code"] != CodeTicketFailed || t1["level"] != "WARN" || t1["trigger_id"] != "t-1" || t1["outcome"] != "failed" ||
		t1["reason"] != "write_failed" || t1["sqlstate"] != "40001" || t1["error"] != "commit of the ticket ended failed (write_failed)" {
		t.Fatalf("first ticket record %v", t1)
	}
	if t2["reason"] != "task_digest_mismatch" || t2["error_code"] != "internal" || t2["error"] != "task x revision 1 has another digest" {
		t.Fatalf("second ticket record %v", t2)
	}
	if failed["code"] != CodeRoundFailed || failed["error_code"] != "unavailable" || failed["error"] != "claiming schedule rows" {
		t.Fatalf("round failure record %v", failed)
	}
	if out := buf.String(); strings.Contains(out, "hunter2") || strings.Contains(out, "secret-host") || strings.Contains(out, "serialize") {
		t.Fatalf("driver text reached the diagnostic log:\n%s", out)
	}
}

func TestAnEmptyRoundIsDebugAndAStoppedRoundsTicketsAreNotWarnings(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	d := Diagnostics{Log: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), Owner: "replica-a"}
	d.Round(context.Background(), Summary{Counts: map[Outcome]int{}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d.Round(ctx, Summary{Taken: 1, Counts: map[Outcome]int{Unavailable: 1},
		Errors: []error{&TicketError{TriggerID: "t-1", Outcome: Unavailable, Err: context.Canceled}}})
	recs := records(t, &buf)
	if len(recs) != 3 {
		t.Fatalf("%d records:\n%s", len(recs), buf.String())
	}
	if recs[0]["level"] != "DEBUG" || recs[0]["owner"] != "replica-a" {
		t.Fatalf("empty round record %v", recs[0])
	}
	if _, ok := recs[0]["first_acquired_ms"]; ok {
		t.Fatalf("an empty round reports an acquired time: %v", recs[0])
	}
	if recs[2]["code"] != CodeTicketFailed || recs[2]["level"] != "DEBUG" || recs[2]["error"] != "interrupted" {
		t.Fatalf("abandoned ticket record %v", recs[2])
	}
}
