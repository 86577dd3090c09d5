package schedule

import (
	"errors"
	"sync"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// RefusalTriggerZoneUnknown is the reason of a refusal of what needs a
// trigger's occurrences when its stored zone is one the zone database of
// this server's host lacks (a server with a newer one published it): zone.
const RefusalTriggerZoneUnknown qlerror.Reason = "trigger_zone_unknown"

// CheckStoredCron is nil when this server reads trigger triggerID's stored
// cron c, else its refusal (storedCronRefusal): for a caller about to act
// on the trigger, whose own checks would take a stored zone that the zone
// database here lacks for a mistake to write otherwise.
func CheckStoredCron(triggerID string, c trigger.Cron) error {
	if _, err := cron.Parse(c.Expression, c.Timezone); err != nil {
		return storedCronRefusal(triggerID, err, RemedyReapply)
	}
	return nil
}

// A refusal of a trigger's stored zone (RefusalTriggerZoneUnknown) names,
// in its "remedy" param, what mends it besides a zone database that has
// the zone.
const (
	// RemedyReapply: applying the trigger again with a zone this host
	// knows (its publish replaces the revision that names the zone).
	RemedyReapply = "reapply"
	// RemedyZoneData: only a zone database that has the zone, for the
	// reactivation of the trigger's project, which takes no new revision
	// of the trigger before it is active.
	RemedyZoneData = "zonedata"
)

// storedCronRefusal is the refusal of what needs the occurrences of trigger
// triggerID when its stored cron does not parse here (err, cron.Parse's):
// the store validated it when it was published, so either the zone
// database of this server's host lacks its zone (RefusalTriggerZoneUnknown,
// which a zone database that has it mends, or, with remedy RemedyReapply,
// the trigger applied again with another zone) or the stored cron is not
// one this server reads (RefusalCronUnparsable, which a republish mends).
func storedCronRefusal(triggerID string, err error, remedy string) error {
	if pe := (*cron.ParseError)(nil); errors.As(err, &pe) && pe.Part == "timezone" {
		// The parser's own advice, to write another zone, reads as if the
		// zone were a typing mistake: it was valid where it was published.
		then := "; or apply the trigger again with a zone this host knows (`ql apply -f FILE`, or Definitions in the console): its publish replaces the revision that names this zone"
		if remedy == RemedyZoneData {
			then = "; its project cannot be made active on this host until then, and an archived project takes no new revision of the trigger"
		}
		return qlerror.New(qlerror.FailedPrecondition, "trigger %s: this server does not know its time zone %q: the zone database of its host lacks it "+
			"(a server with a newer one published the trigger), so its occurrences cannot be worked out here and nothing was changed; install a newer zone database on that host (the tzdata package), "+
			"point ZONEINFO at one that has the zone (a zoneinfo directory or zip, in the environment of the server, which reads it as it starts, and of the commands that read its database), "+
			"or run a newer release of this server, whose own copy it falls back on%s",
			triggerID, pe.Input, then).Because(RefusalTriggerZoneUnknown, "zone", pe.Input, "remedy", remedy)
	}
	return qlerror.Wrap(qlerror.FailedPrecondition, err, "trigger %s: its cron no longer parses; republish the trigger", triggerID).Because(RefusalCronUnparsable)
}

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
