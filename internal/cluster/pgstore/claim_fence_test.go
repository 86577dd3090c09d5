package pgstore

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// TestAClaimTokenMatchesOnlyTheTextItsUUIDScansTo: the lock compares the
// row's token, read as a uuid, with the ticket's token exactly as it did
// when it read the column as pgx's text of it: equal for that text only,
// whatever another spelling of the same uuid PostgreSQL would accept.
func TestAClaimTokenMatchesOnlyTheTextItsUUIDScansTo(t *testing.T) {
	t.Parallel()
	var tokens [][16]byte
	for range 64 {
		u, ok := canonicalUUID(ids.New())
		if !ok {
			t.Fatal("ids.New made an id that is not a canonical uuid")
		}
		tokens = append(tokens, u.Bytes)
	}
	tokens = append(tokens, [16]byte{}, [16]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		[16]byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10})
	for i, u := range tokens {
		text := pgtype.UUID{Bytes: u, Valid: true}.String()
		other := pgtype.UUID{Bytes: tokens[(i+1)%len(tokens)], Valid: true}.String()
		spellings := []string{text, strings.ToUpper(text), "{" + text + "}", strings.ReplaceAll(text, "-", ""), text[:35], text + " ", other, ""}
		for _, s := range spellings {
			if got, want := uuidTextIs(u, s), s == text; got != want {
				t.Errorf("uuid %x against %q: %v, want %v (pgx's text is %q)", u, s, got, want, text)
			}
		}
	}
}

// TestALeaseDifferingFromTheRowsClaimInAnyPartIsLost: a commit, alone or
// in a page, whose lease differs from the locked row's claim in its
// expiry, or in its token's spelling only, or whose row no longer holds a
// claim at all, is raced as claim_lost and writes nothing (the owner,
// token and version: TestFenceRacesWriteNothing).
func TestALeaseDifferingFromTheRowsClaimInAnyPartIsLost(t *testing.T) {
	t.Parallel()
	cases := map[string]func(t *testing.T, s *store, p *schedule.CommitParams){
		"later expiry": func(_ *testing.T, _ *store, p *schedule.CommitParams) { p.Ticket.Lease.ExpiresAtMs++ },
		"token in capitals": func(_ *testing.T, _ *store, p *schedule.CommitParams) {
			p.Ticket.Lease.Token = strings.ToUpper(p.Ticket.Lease.Token)
		},
		"claim cleared": func(t *testing.T, s *store, p *schedule.CommitParams) {
			if err := s.tamper(t.Context(), `UPDATE qinglong.trigger_schedules
				SET claim_owner = NULL, claim_token = NULL, claim_expires_at_ms = NULL WHERE trigger_id = $1`, p.Ticket.TriggerID); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, tamper := range cases {
		for _, page := range []bool{false, true} {
			t.Run(name+map[bool]string{false: ", alone", true: ", in a page"}[page], func(t *testing.T) {
				t.Parallel()
				s := newStore(t)
				d, p := s.dueTicket(t, s.runtime)
				lease := *p.Ticket.Lease
				p.Ticket.Lease = &lease
				tamper(t, s, &p)
				before, err := s.row(t.Context(), d.trigger.TriggerID)
				if err != nil {
					t.Fatal(err)
				}
				var res schedule.CommitResult
				if page {
					res = commitPage(t, s.runtime, []schedule.CommitParams{p})[0]
				} else {
					res, _ = s.runtime.ScheduleCommit(t.Context(), p)
				}
				if res.Outcome != schedule.Raced || res.Reason != schedule.ReasonClaimLost {
					t.Fatalf("%s: %s (%s) %v, want raced (%s)", name, res.Outcome, res.Reason, res.Err, schedule.ReasonClaimLost)
				}
				s.requireNothingWritten(t, d.trigger.TriggerID, before)
			})
		}
	}
}
