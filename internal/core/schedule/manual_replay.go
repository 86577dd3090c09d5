package schedule

import (
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalRequestIDReused is a run-now request whose request id already
// made a Run for a request that asked otherwise (--force given one time
// and not the other): answering the first Run would tell the caller that
// what they asked now was done.
const RefusalRequestIDReused qlerror.Reason = "request_id_reused"

// Replay is what a manual request's idempotency key already names, read
// before anything about the trigger is verified: a request asked again
// after its answer was lost gets the Run it made even when the trigger
// has been disabled, paused, archived or republished since, for that Run
// exists whatever became of the trigger.
type Replay struct {
	// RunID is the Run the key names.
	RunID string
	// Force is what the request that made it asked (run now; a re-run is
	// never forced).
	Force bool
}

// ReplayOf answers a manual request, of id requestID and asking force,
// whose key names the Run first made: that Run, not created now; or, when
// the first request asked another force, the refusal that the id belongs
// to another request.
func ReplayOf(requestID string, force bool, first Replay) (RunNowResult, error) {
	if first.Force != force {
		return RunNowResult{}, qlerror.New(qlerror.Conflict, "request id %s already made run %s for a request with force %t, and this one asks force %t: "+
			"asking again takes the same request as the first time; for a new request give a new request id", requestID, first.RunID, first.Force, force).
			Because(RefusalRequestIDReused, "requestId", requestID, "run", first.RunID)
	}
	return RunNowResult{RunID: first.RunID}, nil
}
