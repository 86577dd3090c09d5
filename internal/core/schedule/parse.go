package schedule

import (
	"sync"

	"github.com/qinglong/qinglong/internal/core/cron"
)

// parseTicket parses the ticket's cron. A burst decides and then verifies
// thousands of tickets that share a handful of expressions, and parsing
// one costs more than the rest of its decision, so parsed schedules
// (immutable, a pure function of expression and zone) are kept in
// parsedCrons; an expression that does not parse is parsed again each
// time, so its error is the one cron.Parse gives.
func parseTicket(tk Ticket) (*cron.Schedule, error) {
	return parsedCrons.parse(tk.Cron.Expression, tk.Cron.Timezone)
}

// maxParsedCrons bounds parsedCrons: when full it starts over, so a store
// with more distinct crons than this still parses each at most once per
// that many others.
const maxParsedCrons = 4096

var parsedCrons = cronMemo{m: map[cronKey]*cron.Schedule{}}

type cronKey struct{ expression, timezone string }

type cronMemo struct {
	mu sync.Mutex
	m  map[cronKey]*cron.Schedule
}

func (c *cronMemo) parse(expression, timezone string) (*cron.Schedule, error) {
	k := cronKey{expression, timezone}
	c.mu.Lock()
	s, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := cron.Parse(expression, timezone)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= maxParsedCrons {
		clear(c.m)
	}
	c.m[k] = s
	c.mu.Unlock()
	return s, nil
}

// ticketInput is the decider's input for a claimed ticket: its own cron,
// cursor and revision time, decided at its observation (claim) time.
func ticketInput(s *cron.Schedule, tk Ticket, graceMs int64) Input {
	return Input{
		Schedule:            s,
		CursorMs:            tk.NextFireAtMs,
		RevisionCreatedAtMs: tk.TriggerCreatedAtMs,
		NowMs:               tk.ObservedAtMs,
		Policy:              tk.Cron.MisfirePolicy,
		GraceMs:             graceMs,
		Pause:               tk.Pause,
		TriggerID:           tk.TriggerID,
		JitterMs:            tk.Cron.JitterMs,
		StartAtMs:           tk.Cron.StartAtMs,
		EndAtMs:             tk.Cron.EndAtMs,
		CatchUpWindowMs:     tk.Cron.CatchUpWindowMs,
		HasCatchUpWindow:    tk.Cron.HasCatchUpWindow,
	}
}

// DecideTicket is the decision a round makes for a ticket.
func DecideTicket(tk Ticket, graceMs int64) (Decision, error) {
	s, err := parseTicket(tk)
	if err != nil {
		return Decision{}, err
	}
	return Decide(ticketInput(s, tk, graceMs))
}
