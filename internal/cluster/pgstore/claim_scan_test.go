package pgstore

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/storetest"
)

// TestTheClaimReadsEachTicketAsAPlainScanOfItsRowReads: the tickets a
// claim returns through its shared, reused destinations are, field for
// field, what scanning the claimed rows' stored columns into plain pgx
// destinations gives, and each ticket's handle is its row's version. The
// page mixes two projects, tasks, crons, time zones and misfire policies,
// a revision with every time policy and one with none, an uninitialised
// row, rows with and without a last occurrence and a pause span, so that a
// value shared across rows, a lease or cursor pointed at another row's, or
// a column read into the wrong field shows.
func TestTheClaimReadsEachTicketAsAPlainScanOfItsRowReads(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	now, err := s.runtime.NowMs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	quiet := storetest.QuietCron(now)
	alpha := s.publishCron(t, "alpha", quiet)
	beta := s.publishCron(t, "beta", trigger.Cron{Expression: "17 3 * * *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce,
		JitterMs: 2_000, StartAtMs: now - 86_400_000, EndAtMs: now + 365*86_400_000,
		CatchUpWindowMs: 3_600_000, HasCatchUpWindow: true, Overlap: trigger.OverlapSkip})
	svc := s.fixture().Service
	second := func(p published, name string, c trigger.Cron) string {
		tg, _, err := svc.PublishTrigger(ctx, p.project.ID, ids.New(), p.task, 0, ids.New(), trigger.Spec{Name: name, Enabled: true, Cron: c})
		if err != nil {
			t.Fatal(err)
		}
		return tg.TriggerID
	}
	skip := quiet
	skip.Timezone, skip.MisfirePolicy = "Europe/Berlin", trigger.Skip
	due := []string{alpha.trigger.TriggerID, second(alpha, "tock", quiet), beta.trigger.TriggerID, second(beta, "tock", skip)}
	s.initialiseAll(t, s.runtime, len(due))
	for i, id := range due {
		if err := s.makeDue(ctx, id, int64(i+1)*10_000); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range due[1:3] {
		if err := s.tamper(ctx, `UPDATE qinglong.trigger_schedules SET last_scheduled_at_ms = next_fire_at_ms - 3600000 WHERE trigger_id = $1`, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.tamper(ctx, `UPDATE qinglong.trigger_schedules SET paused_at_ms = $2, resumed_at_ms = $3 WHERE trigger_id = $1`,
		due[3], now-100_000, now-50_000); err != nil {
		t.Fatal(err)
	}
	uninitialised := second(alpha, "late", quiet)

	tickets := s.takeAll(t, s.runtime)
	want := s.plainTickets(t, append(due, uninitialised))
	if len(tickets) != len(want) {
		t.Fatalf("the claim took %d rows, want %d", len(tickets), len(want))
	}
	for _, tk := range tickets {
		w, ok := want[tk.TriggerID]
		if !ok {
			t.Errorf("the claim took trigger %s, which the page does not hold", tk.TriggerID)
			continue
		}
		if !reflect.DeepEqual(tk, w.ticket) {
			t.Errorf("trigger %s: the claim read\n%s\nits row reads\n%s", tk.TriggerID, ticketText(tk), ticketText(w.ticket))
		}
		if tid, ok := s.runtime.handles.lookup(tk.Lease.Token); !ok || tid != w.tid {
			t.Errorf("trigger %s: handle %v (%v), its row version is %v", tk.TriggerID, tid, ok, w.tid)
		}
	}
}

type plainTicket struct {
	ticket schedule.Ticket
	tid    pgtype.TID
}

// plainTickets reads the rows of triggerIDs as the claim returned them
// (claim.sql's RETURNING list, after the claim committed: the claim's
// values are the rows' stored ones), each scanned into plain pgx
// destinations, one set per row, as every claim was before claimScan.
func (s *store) plainTickets(t *testing.T, triggerIDs []string) map[string]plainTicket {
	t.Helper()
	_, returning, ok := strings.Cut(sqlClaim, "RETURNING")
	if !ok {
		t.Fatal("the claim statement has no RETURNING list")
	}
	rows, err := s.super.Query(t.Context(), `SELECT `+returning+`
		FROM qinglong.trigger_schedules s
		JOIN qinglong.trigger_revisions tr ON tr.trigger_id = s.trigger_id AND tr.revision = s.trigger_revision
		WHERE s.trigger_id = ANY($1::uuid[])`, triggerIDs)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]plainTicket{}
	for rows.Next() {
		var ts ticketScan
		var tid pgtype.TID
		var l schedule.Lease
		if err := rows.Scan(ts.dest(&l.Owner, &l.Token, &l.ClaimVersion, &l.ExpiresAtMs, &l.AcquiredAtMs, &tid)...); err != nil {
			t.Fatal(err)
		}
		tk := ts.ticket()
		tk.Lease = &l
		tk.ObservedAtMs = l.AcquiredAtMs
		out[tk.TriggerID] = plainTicket{ticket: tk, tid: tid}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// ticketText shows a ticket with what its pointers point at.
func ticketText(tk schedule.Ticket) string {
	opt := func(v *int64) any {
		if v == nil {
			return nil
		}
		return *v
	}
	return fmt.Sprintf("%+v\nnext fire %v, last scheduled %v, pause %+v, lease %+v",
		tk.Snapshot, opt(tk.NextFireAtMs), opt(tk.LastScheduledAtMs), tk.Pause, *tk.Lease)
}
