package sqlitestore

import (
	"fmt"
	"testing"
)

// BenchmarkDispatchRoundBesideACappedBacklog measures one read of the
// dispatcher's queue (AttemptsPending, a round's 16 slots) when a project
// holds 1,000 or 10,000 queued Runs, all older than another project's 3:
// with the project at its maxRunning (1, its one slot taken), the page is
// the other project's 3; with no cap, the page is the first 16 of the
// backlog, the read a round makes however long the queue is.
func BenchmarkDispatchRoundBesideACappedBacklog(b *testing.B) {
	for _, c := range []struct {
		backlog int
		capped  bool
	}{{1_000, false}, {1_000, true}, {10_000, false}, {10_000, true}} {
		capped := c.capped
		b.Run(fmt.Sprintf("backlog=%d/capped=%t", c.backlog, capped), func(b *testing.B) {
			e := newEnv(b)
			bl := prepareBaseline(b, e)
			runaway := e.projectTB(b, "runaway")
			tk := e.taskTB(b, runaway.ID)
			tg := e.triggerTB(b, runaway.ID, tk, "tick")
			bl.insert(b, e, runaway.ID, tk, tg)
			var first, firstAttempt string
			if err := e.raw.QueryRow(`SELECT r.id, a.id FROM runs r JOIN attempts a ON a.run_id = r.id`).Scan(&first, &firstAttempt); err != nil {
				b.Fatal(err)
			}
			e.seedRuns(b, first, c.backlog, queuedRuns)
			if _, _, _, err := e.store.AttemptStart(b.Context(), firstAttempt, "owner-1", ""); err != nil {
				b.Fatal(err)
			}
			if capped {
				runaway.MaxRunning = 1
				if _, err := e.store.ProjectSave(b.Context(), runaway); err != nil {
					b.Fatal(err)
				}
			}
			other := e.projectTB(b, "other")
			otk := e.taskTB(b, other.ID)
			otg := e.triggerTB(b, other.ID, otk, "tick")
			for range 3 {
				bl.insert(b, e, other.ID, otk, otg)
			}
			want := 16
			if capped {
				want = 3
			}
			for b.Loop() {
				list, err := e.store.AttemptsPending(b.Context(), 16)
				if err != nil || len(list) != want {
					b.Fatalf("pending %d attempts, %v; want %d", len(list), err, want)
				}
			}
		})
	}
}

// BenchmarkDispatchRoundAcrossProjects measures the same read when the
// queue is spread over many projects: 1 or 100 projects, each with 16
// queued Runs, admitted in turn so that every project's Runs are among
// the oldest; with no project at its cap, and beside one more project at
// its cap (its one Run running, nothing queued), where the read goes
// project by project (attempts_pending.sql): this is what that costs
// beyond the page itself when every project's Runs are among the page's.
func BenchmarkDispatchRoundAcrossProjects(b *testing.B) {
	for _, c := range []struct {
		projects  int
		capBeside bool
	}{{1, false}, {1, true}, {100, false}, {100, true}} {
		b.Run(fmt.Sprintf("projects=%d/capBeside=%t", c.projects, c.capBeside), func(b *testing.B) {
			e := newEnv(b)
			bl := prepareBaseline(b, e)
			if c.capBeside {
				capped := e.projectTB(b, "capped")
				tk := e.taskTB(b, capped.ID)
				bl.insert(b, e, capped.ID, tk, e.triggerTB(b, capped.ID, tk, "tick"))
				var attempt string
				if err := e.raw.QueryRow(`SELECT id FROM attempts`).Scan(&attempt); err != nil {
					b.Fatal(err)
				}
				if _, _, _, err := e.store.AttemptStart(b.Context(), attempt, "owner-1", ""); err != nil {
					b.Fatal(err)
				}
				capped.MaxRunning = 1
				if _, err := e.store.ProjectSave(b.Context(), capped); err != nil {
					b.Fatal(err)
				}
			}
			type queue struct {
				id      string
				tk      taskRef
				trigger string
			}
			queues := make([]queue, c.projects)
			for i := range queues {
				p := e.projectTB(b, fmt.Sprintf("p%d", i))
				tk := e.taskTB(b, p.ID)
				queues[i] = queue{p.ID, tk, e.triggerTB(b, p.ID, tk, "tick")}
			}
			for range 16 {
				for _, q := range queues {
					bl.insert(b, e, q.id, q.tk, q.trigger)
				}
			}
			for b.Loop() {
				list, err := e.store.AttemptsPending(b.Context(), 16)
				if err != nil || len(list) != 16 {
					b.Fatalf("pending %d attempts, %v; want 16", len(list), err)
				}
			}
		})
	}
}
