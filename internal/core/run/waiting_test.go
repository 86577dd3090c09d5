package run

import (
	"strings"
	"testing"
)

// A Run waiting on the live workers names them in the right number: one
// live worker is not "the 1 live workers", and several stay plural.
func TestAWaitingMessageNamesOneLiveWorkerInTheSingular(t *testing.T) {
	t.Parallel()
	gpu := map[string]string{"gpu": "a100"}
	for _, c := range []struct {
		w         Waiting
		want, not string
	}{
		{Waiting{Reason: WaitNoMatchingWorker, Labels: gpu, Workers: 1}, "the one live worker does not carry them all", "1 live worker"},
		{Waiting{Reason: WaitNoMatchingWorker, Labels: gpu, Workers: 2}, "none of the 2 live workers carries them all", "one live worker"},
		{Waiting{Reason: WaitWorkersBusy, Labels: gpu, Workers: 1}, "a free slot on the one live worker carrying gpu=a100: it already runs", "1 live worker"},
		{Waiting{Reason: WaitWorkersBusy, Workers: 3}, "a free slot on the 3 live workers taking work: each already runs", "one live worker"},
	} {
		if got := c.w.Message(); !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%s with %d workers: %q, want %q and no %q", c.w.Reason, c.w.Workers, got, c.want, c.not)
		}
	}
}

// The single-node reasons count the commands running in the right number
// and name nothing a single-node binary lacks: no worker, replica or
// cluster, and of commands only `ql serve`, which both binaries have.
func TestASingleNodeWaitingMessageCountsCommandsAndNamesNothingOfTheCluster(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		w    Waiting
		want string
	}{
		{Waiting{Reason: WaitServerBusy, Running: 1, Concurrency: 1}, "it waits its turn: 1 of 1 command running, as many as the server's --concurrency allows"},
		{Waiting{Reason: WaitServerBusy, Running: 4, Concurrency: 4}, "it waits its turn: 4 of 4 commands running, as many as the server's --concurrency allows; as one finishes it starts the Run queued first, this one in its turn"},
		{Waiting{Reason: WaitServerBusy, Running: 1}, "the server runs 1 command now; its --concurrency (`ql serve --concurrency N`) bounds how many run at once"},
		{Waiting{Reason: WaitServerStarting, Running: 2, Concurrency: 3}, "the server starts it in a moment (2 of 3 running)"},
		{Waiting{Reason: WaitNoServer, DataDir: "/var/lib/my ql"}, "no server is running on this data directory (/var/lib/my ql), so nothing starts it; start one with `ql serve --data-dir '/var/lib/my ql'`"},
		{Waiting{Reason: WaitProjectBusy, Project: "delta", Running: 3, MaxRunning: 3, Holders: []SlotHolder{{Project: "delta", Trigger: "runaway", Runs: 2}, {Project: "delta", Trigger: "nightly", Runs: 1}}},
			"it waits for its project: delta runs 3 of its maxRunning 3 Runs at once; the slots are held by Runs of delta/runaway (2), delta/nightly (1); " +
				"other projects' Runs take the free slots meanwhile, and as one of the project's finishes its Run queued first starts, this one in its turn; " +
				"raise the project's maxRunning in its definitions file, or pause the trigger taking its share (`ql triggers pause PROJECT/TRIGGER`)"},
	} {
		got := c.w.Message()
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.w.Reason, got, c.want)
		}
		for _, word := range []string{"worker", "replica", "cluster"} {
			if strings.Contains(got, word) {
				t.Errorf("%s: %q mentions %q", c.w.Reason, got, word)
			}
		}
	}
}

// allWaitings is a Waiting of every reason, with what its sentence names.
func allWaitings() []Waiting {
	gpu := map[string]string{"gpu": "a100"}
	return []Waiting{
		{Reason: WaitNoWorker},
		{Reason: WaitWorkersDraining, Workers: 2},
		{Reason: WaitNoMatchingWorker, Labels: gpu, Workers: 1},
		{Reason: WaitNoMatchingWorker, Labels: gpu, Workers: 2, WorkerLabels: []map[string]string{{"zone": "eu"}}},
		{Reason: WaitWorkersTooOld, Workers: 1, Reads: "projectEnv"},
		{Reason: WaitWorkersTooOld, Labels: gpu, Workers: 2, Reads: "projectEnv"},
		{Reason: WaitWorkersBusy, Workers: 1},
		{Reason: WaitWorkersBusy, Labels: gpu, Workers: 3},
		{Reason: WaitPrevious, PreviousRun: "01JPREVIOUS"},
		{Reason: WaitPrevious, PreviousRun: "01JPREVIOUS", Overlap: "queue_one"},
		{Reason: WaitPrevious, PreviousRun: "01JPREVIOUS", Overlap: "cancel_previous"},
		{Reason: WaitServerBusy, Running: 2, Concurrency: 2},
		{Reason: WaitServerBusy, Running: 1},
		{Reason: WaitServerStarting, Running: 1, Concurrency: 3},
		{Reason: WaitServerStarting, Running: 1},
		{Reason: WaitNoServer, DataDir: "/var/lib/qinglong"},
		{Reason: WaitProjectBusy, Project: "delta", Running: 3, MaxRunning: 3, Holders: []SlotHolder{{Project: "delta", Trigger: "runaway", Runs: 3}}},
		{Reason: "a_later_reason"},
	}
}

// Every reason reads once after the "waits" a command line puts before it
// (`(run ID waits…)`, `…; it waits…`): a sentence that begins "it waits"
// goes on from the verb, any other after a colon, so no line says
// "waits: it waits".
func TestEveryWaitingReasonReadsOnceAfterTheWordWaits(t *testing.T) {
	t.Parallel()
	for _, w := range allWaitings() {
		for _, subject := range []string{"(run 01JRUN waits", "it has no output; it waits"} {
			line := subject + w.AfterWaits()
			rest := strings.TrimPrefix(line, subject)
			switch {
			case strings.Contains(line, "waits: it waits"), strings.Contains(line, "waits it waits"):
				t.Errorf("%s: %q says it waits twice", w.Reason, line)
			case !strings.HasPrefix(rest, ": ") && !strings.HasPrefix(rest, " "):
				t.Errorf("%s: %q does not go on from %q", w.Reason, line, subject)
			case strings.HasPrefix(strings.TrimLeft(rest, ": "), "waits"), strings.HasPrefix(strings.TrimLeft(rest, ": "), "it waits"):
				t.Errorf("%s: %q says waits again after %q", w.Reason, line, subject)
			case !strings.HasSuffix(line, strings.TrimPrefix(w.Message(), "it waits")):
				t.Errorf("%s: %q drops part of the message %q", w.Reason, line, w.Message())
			}
		}
	}
	if got := (Waiting{Reason: WaitWorkersBusy, Workers: 1}).AfterWaits(); !strings.HasPrefix(got, " for a free slot on the one live worker") {
		t.Errorf("a busy worker's reason reads %q after waits; want it to go on with the free slot it waits for", got)
	}
	if got := (Waiting{Reason: WaitServerBusy, Running: 2, Concurrency: 2}).AfterWaits(); !strings.HasPrefix(got, " its turn: 2 of 2") {
		t.Errorf("a busy server's reason reads %q after waits; want it to go on with its turn", got)
	}
}
