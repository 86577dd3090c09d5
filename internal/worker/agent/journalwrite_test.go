package agent

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/worker/journal"
)

// journalHeldFor is how long the journal's write lock is held: past the
// journal's busy timeout (5 s), so that its writes are refused, not only
// slowed.
const journalHeldFor = 12 * time.Second

// heldJournal is a worker whose journal refused every write for
// journalHeldFor, another process holding its write lock: its command
// ended in that spell (first), and a second grant waited on the replica
// meanwhile (second). The journal takes writes again when it returns.
type heldJournal struct {
	in            *ingress
	w             running
	data          string
	first, second workerproto.Grant
	// exitedWhileHeld: the worker stopped in the spell.
	exitedWhileHeld bool
	// secondWhileHeld: the second grant was run in the spell.
	secondWhileHeld bool
}

func holdJournal(t *testing.T) heldJournal {
	t.Helper()
	h := heldJournal{in: newIngress(t, 60_000), data: t.TempDir()}
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	h.first = h.in.enqueue(t, shell(fmt.Sprintf(`echo $$ > %s/pid; while [ ! -e %s ]; do sleep 0.05; done; echo first`, dir, gate)))
	h.w = runAgent(t, h.in, func(c *Config) { c.DataDir = h.data })
	readPid(t, filepath.Join(dir, "pid"))
	waitFor(t, "the running record", func() bool { return readJournal(t, h.data, h.first.AttemptID).State == journal.StateRunning })

	db, err := sql.Open("sqlite", filepath.Join(h.data, journal.FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE offers SET answered = answered`); err != nil {
		t.Fatal(err)
	}
	held := time.Now()
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if done := h.in.completed(h.first.AttemptID); done.Outcome != workerproto.OutcomeExited {
		t.Fatalf("the command ending while the journal refused writes was reported %+v; want exited", done)
	}
	h.second = h.in.enqueue(t, shell(`echo second`))
	time.Sleep(time.Until(held.Add(journalHeldFor)))
	select {
	case <-h.w.exited:
		h.exitedWhileHeld = true
	default:
	}
	h.secondWhileHeld = h.in.attempt(h.second.AttemptID).starts > 0
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	return h
}

// A worker whose journal refuses writes (its disk full, its write lock
// held) neither stops nor takes work it could not journal: it says so once,
// its commands go on, and once the journal takes writes again it takes
// work again by itself, saying so, with no restart.
func TestAWorkerWhoseJournalRefusesWritesWaitsAndGoesOnOnceItTakesThemAgain(t *testing.T) {
	t.Parallel()
	h := holdJournal(t)
	if h.exitedWhileHeld {
		_, err := h.w.stop()
		t.Fatalf("the worker stopped while its journal refused writes (%v); want it to wait for the journal:\n%s", err, h.w.logs.String())
	}
	if h.secondWhileHeld {
		t.Fatal("the worker started a grant while its journal refused writes; want no work taken that could not be journaled")
	}
	// The grant the replica made in the spell, if it made it, went back
	// to the replica at once, for a worker whose journal takes it.
	h.in.mu.Lock()
	givenBack := slices.ContainsFunc(h.in.givenBack, func(r workerproto.GiveBackRequest) bool {
		return r.Lease.AttemptID == h.second.AttemptID && r.Reason == workerproto.GiveBackJournal
	})
	h.in.mu.Unlock()
	if !givenBack {
		if done := h.in.completed(h.second.AttemptID); done.Outcome != workerproto.OutcomeExited {
			t.Fatalf("the grant waiting while the journal refused writes was reported %+v once it took them; want exited", done)
		}
	}
	if done := h.in.completed(h.in.enqueue(t, shell(`echo later`)).AttemptID); done.Outcome != workerproto.OutcomeExited {
		t.Fatalf("a grant made once the journal took writes again was reported %+v; want exited", done)
	}
	logs := h.w.logs.String()
	if n := strings.Count(logs, `"code":"journal_unwritable"`); n != 1 || !strings.Contains(logs, "another process holds the write lock of the journal") {
		t.Errorf("the spell of refused writes was said %d times; want once, naming the lock held:\n%s", n, logs)
	}
	waitFor(t, "the worker to say its journal takes writes again", func() bool {
		return strings.Contains(h.w.logs.String(), `"code":"journal_writable"`)
	})
}

// The end of an attempt the journal refused is journaled once it takes
// writes again, not dropped: a restart of the worker then finds nothing of
// it unfinished to abandon and report.
func TestTheEndOfAnAttemptTheJournalRefusedIsJournaledOnceItTakesWrites(t *testing.T) {
	t.Parallel()
	h := holdJournal(t)
	waitFor(t, "the end of the attempt in the journal", func() bool {
		return readJournal(t, h.data, h.first.AttemptID).State == journal.StateDone
	})
	if strings.Contains(h.w.logs.String(), "could not journal the end of an attempt") {
		t.Errorf("the worker gave up journaling the end of the attempt:\n%s", h.w.logs.String())
	}
}
