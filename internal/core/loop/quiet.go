package loop

import (
	"sync"
	"time"
)

// QuietEvery is how often an error a loop meets again round after round
// is said while it lasts: a full disk or a lost database fails every
// round, once a second or more, and would bury every other line.
const QuietEvery = time.Minute

// Quiet is a loop's error sink that says an error once and then, while
// rounds keep failing with the same words, once per QuietEvery with how
// many times it was met meanwhile. An error in other words is said at once,
// after the last one's repeats held back since it was said, if any.
type Quiet struct {
	say func(err error, heldBack int)
	now func() time.Time

	mu     sync.Mutex
	last   error
	saidAt time.Time
	held   int
}

// NewQuiet returns a Quiet that tells say each error it says and how many
// times it was met since it was last said (0 the first time).
func NewQuiet(say func(err error, heldBack int)) *Quiet { return &Quiet{say: say, now: time.Now} }

// Error is the sink: give it as Config.OnError.
func (q *Quiet) Error(err error) {
	q.mu.Lock()
	now := q.now()
	same := q.last != nil && err.Error() == q.last.Error()
	if same && now.Sub(q.saidAt) < QuietEvery {
		q.held++
		q.mu.Unlock()
		return
	}
	type said struct {
		err  error
		held int
	}
	var says []said
	switch {
	case same:
		says = append(says, said{err, q.held})
	case q.held > 0:
		says = append(says, said{q.last, q.held}, said{err, 0})
	default:
		says = append(says, said{err, 0})
	}
	q.last, q.saidAt, q.held = err, now, 0
	q.mu.Unlock()
	for _, s := range says {
		q.say(s.err, s.held)
	}
}
