package server

import (
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// wakeMargin is added to every wake at a due instant, so the round that
// follows reads the clock at or after it despite millisecond rounding.
// One process schedules a data directory, so there is no herd to spread.
const wakeMargin = 2 * time.Millisecond

// planWake shortens the wait after a round that found no more work to the
// next due instant the take reported (schedule.NextDue.Wait), the cadence
// staying the ceiling. A full page keeps the shared rule
// (schedule.Summary.StartNextAtOnce): the next round at once after
// progress, the cadence after none.
func (s *Server) planWake(sum schedule.Summary) {
	if sum.Full(s.cfg.PageSize) || sum.Next == nil {
		return
	}
	s.sched.WakeWithin(sum.Next.Wait(time.Now(), s.cfg.Cadence, wakeMargin))
}
