package agent

import (
	"strings"
	"testing"
	"time"
)

const paceLease = 30 * time.Second

// lateAnswer and onTime are a start's or renewal's round trip just over
// and well under a sixth of paceLease.
const (
	lateAnswer = paceLease/lateShare + time.Millisecond
	onTime     = time.Second
)

func TestALateAnswerHalvesTheShareOncePerRenewalIntervalAndNeverBelowOne(t *testing.T) {
	p := newPacer(8, func() { t.Fatal("no slot is held") })
	now := time.Now()
	limit, cut, _ := p.answered(lateAnswer, paceLease, false, now)
	if limit != 4 || !cut {
		t.Fatalf("first late answer: limit %d, cut %v; want 4, true", limit, cut)
	}
	// Every running command renews once per third of the lease: the
	// other late answers of that interval tell of the same congestion.
	if limit, cut, _ = p.answered(lateAnswer, paceLease, true, now.Add(paceLease/3-time.Millisecond)); limit != 4 || cut {
		t.Fatalf("late answer within the interval: limit %d, cut %v; want 4, false", limit, cut)
	}
	for i, want := range []int{2, 1, 1} {
		now = now.Add(paceLease / 3)
		if limit, cut, _ = p.answered(lateAnswer, paceLease, false, now); limit != want || cut {
			t.Fatalf("late answer %d intervals on: limit %d, cut %v; want %d, false (only the cut from the capacity is reported)", i+1, limit, cut, want)
		}
	}
	if limit, _, _ = p.answered(onTime, paceLease, true, now.Add(paceLease)); limit != 1 {
		t.Fatalf("an unanswered request is late whatever it took: limit %d, want 1", limit)
	}
}

func TestEachAnswerInTimeGivesOneCommandBackWithTheSlotItHeld(t *testing.T) {
	freed := 0
	p := newPacer(4, func() { freed++ })
	now := time.Now()
	p.answered(lateAnswer, paceLease, false, now)
	p.answered(lateAnswer, paceLease, false, now.Add(paceLease/3))
	// Share 1 of 4: three freed slots go to the pacer as they come.
	if left := p.withhold(2); left != 0 || p.holding() != 2 {
		t.Fatalf("withhold 2 of share 1: %d left for the pull, %d held; want 0, 2", left, p.holding())
	}
	if left := p.withhold(2); left != 1 || p.holding() != 3 {
		t.Fatalf("withhold 2 more: %d left for the pull, %d held; want 1, 3", left, p.holding())
	}
	for i, want := range []struct {
		limit, held, freed int
		restored           bool
	}{{2, 2, 1, false}, {3, 1, 2, false}, {4, 0, 3, true}, {4, 0, 3, false}} {
		limit, cut, restored := p.answered(onTime, paceLease, false, now.Add(paceLease))
		if limit != want.limit || p.holding() != want.held || freed != want.freed || restored != want.restored || cut {
			t.Fatalf("answer in time %d: limit %d, held %d, freed %d, restored %v, cut %v; want %+v", i+1, limit, p.holding(), freed, restored, cut, want)
		}
	}
	if left := p.withhold(3); left != 3 {
		t.Fatalf("at the whole capacity the pull keeps every free slot: %d of 3 left", left)
	}
}

func TestAWorkerTakesFewerCommandsAtOnceWhileTheReplicasAnswerLate(t *testing.T) {
	in := newIngress(t, 12_000)
	// More than a sixth of the lease (2 s), so every start and renewal is
	// late, and less than the quarter of it a renewal's send may take
	// (3 s), so none is lost.
	const delay = 2400 * time.Millisecond
	in.answerDelay = delay
	// Queued before the worker starts, so its first pull fills the whole
	// capacity before any answer can be late.
	for range 60 {
		in.enqueue(t, shell("sleep 1"))
	}
	r := runAgent(t, in, func(c *Config) { c.Concurrency = 4 })
	waitFor(t, "the worker to say it takes fewer commands", func() bool { return strings.Contains(r.logs.String(), `"code":"worker_paced"`) })
	// The commands started before the cut end; then, with work still
	// queued, at most two run at once (the share halves from 4 to 2, and
	// again each third of the lease) for as long as the answers are late.
	defer func() {
		if t.Failed() {
			t.Log(r.logs.String())
		}
	}()
	// Every start sent before the cut (up to the whole capacity, when the
	// first pull found the work queued) is answered up to the delay later
	// and its command then runs its second: until both have passed, the
	// running count says nothing of the share.
	time.Sleep(delay + time.Second)
	waitFor(t, "the commands started before the cut to end", func() bool {
		running, _ := in.runningNow()
		return running <= 2
	})
	most := 0
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		running, queued := in.runningNow()
		if queued == 0 {
			t.Fatal("the queue ran dry: the test shows nothing")
		}
		most = max(most, running)
	}
	if most > 2 || most == 0 {
		t.Fatalf("%d commands ran at once while every answer was late; want 1 or 2 of the capacity of 4 (never none: the worker keeps one)", most)
	}
	in.setAnswerDelay(0)
	waitFor(t, "the worker to take commands up to its capacity again", func() bool {
		running, _ := in.runningNow()
		return strings.Contains(r.logs.String(), `"code":"worker_pace_restored"`) && running == 4
	})
	s, err := r.stop()
	if err != nil {
		t.Fatal(err)
	}
	if s.Paced < 1 || s.LeaseLost != 0 {
		t.Fatalf("summary %+v: want paced at least once and no lease lost", s)
	}
}
