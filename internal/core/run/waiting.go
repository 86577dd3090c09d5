package run

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/shellquote"
)

// WaitReason says why a queued Run has not started: on the cluster, why no
// worker takes it; on a single-node server, why that server does not start
// it. The codes are stable: the API and `ql runs show -o json` print them
// for scripts.
type WaitReason string

const (
	// WaitNoWorker means no worker process is connected to the cluster.
	WaitNoWorker WaitReason = "no_worker"
	// WaitWorkersDraining means workers are connected, but every one is
	// draining (`ql workers drain`, or its process stops on its own, a
	// signal, and finishes its commands first) and takes no new Run.
	WaitWorkersDraining WaitReason = "workers_draining"
	// WaitNoMatchingWorker means workers take work, but none carries all of
	// the labels of the task's placement.
	WaitNoMatchingWorker WaitReason = "no_matching_worker"
	// WaitWorkersTooOld means workers carrying the placement's labels
	// take work, but none reads a grant field the Run needs (Waiting.Reads;
	// projectEnv, its project's env): they were built before it, and would
	// start the command without it, so none is granted the Run.
	WaitWorkersTooOld WaitReason = "workers_too_old"
	// WaitWorkersBusy means workers carrying the placement's labels take work,
	// but every one of their slots holds a Run.
	WaitWorkersBusy WaitReason = "workers_busy"
	// WaitPrevious means a worker could take it, but its trigger's overlap
	// policy (queue_one, or cancel_previous while the Run it cancelled
	// stops) holds it until an earlier Run of the trigger
	// finishes.
	WaitPrevious WaitReason = "waits_for_previous"
	// WaitServerBusy (single-node) means the server already runs as many
	// commands as its --concurrency allows.
	WaitServerBusy WaitReason = "server_busy"
	// WaitServerStarting (single-node) means the server runs fewer
	// commands than its --concurrency allows, so its next dispatch, a
	// moment away, starts the Run.
	WaitServerStarting WaitReason = "server_starting"
	// WaitProjectBusy (both profiles) means the Run's project already
	// runs as many of its Runs as its maxRunning allows: other projects'
	// Runs take the free slots meanwhile, and as one of the project's
	// finishes its Run queued first starts.
	WaitProjectBusy WaitReason = "project_busy"
	// WaitNoServer (single-node) means no server serves the data
	// directory, so nothing starts a queued Run; only a read of the
	// database itself (`ql runs show --data-dir`) can find it.
	WaitNoServer WaitReason = "no_server"
	// WaitProjectArchived means the Run's project is archived: nothing
	// starts its Runs, on either profile, until it is active again.
	WaitProjectArchived WaitReason = "project_archived"
)

// ForWantOfAWorker reports whether w is a wait that lasts until a worker
// comes (none connected, all draining, none with the labels), which the
// person who just queued the Run should hear of: a Run waiting its turn
// behind busy workers or an earlier Run needs nothing from them.
func (w *Waiting) ForWantOfAWorker() bool {
	if w == nil {
		return false
	}
	switch w.Reason {
	case WaitNoWorker, WaitWorkersDraining, WaitNoMatchingWorker, WaitWorkersTooOld:
		return true
	}
	return false
}

// MaxWaitingLabelSets bounds Waiting.WorkerLabels.
const MaxWaitingLabelSets = 5

// Waiting is why a queued Run has not started, as things stood when it was
// read: on the cluster, the live worker sessions; on a single-node server,
// its overlap policy, the commands it runs and whether a server serves the
// data directory. Readers fill it only for a queued Run that will not start
// now for that reason; a Run a worker will take at its next pull, or a
// single-node server at its next dispatch, has none.
type Waiting struct {
	Reason WaitReason
	// Labels are the labels the task's placement requires a worker to
	// carry, all of them; empty when the task has no placement.
	Labels map[string]string
	// Workers counts the live workers the reason is about: the draining
	// ones (workers_draining), the ones taking work (no_matching_worker),
	// or the busy ones carrying the labels (workers_busy).
	Workers int
	// Reads is, for workers_too_old, the grant field none of the Workers
	// reads (workerproto.ReadProjectEnv).
	Reads string
	// WorkerLabels are, for no_matching_worker, the distinct label sets
	// of the live workers taking work, those carrying most of Labels
	// first, at most MaxWaitingLabelSets of them.
	WorkerLabels []map[string]string
	// PreviousRun is, for waits_for_previous, the nearest earlier
	// unfinished Run of the trigger.
	PreviousRun string
	// Overlap is, for waits_for_previous, the overlap policy of the
	// trigger revision that admitted the Run (queue_one or
	// cancel_previous), which says what it waits for; "" when the reader
	// does not know it.
	Overlap string
	// Running is, for server_busy and server_starting, how many Runs are
	// dispatching or running on the data directory; for project_busy, how
	// many of the Run's project's are.
	Running int
	// Project is, for project_busy and project_archived, the Run's
	// project; MaxRunning, for project_busy, its cap on its Runs holding a
	// slot at once.
	Project    string
	MaxRunning int
	// Concurrency is, for server_busy and server_starting, the serving
	// server's --concurrency; 0 when the reader cannot know it (a read of
	// the database beside a server that has not recorded it), and then
	// Running is all that is known.
	Concurrency int
	// Holders are, for server_busy, the triggers whose Runs hold the
	// server's slots, and for project_busy the project's triggers whose
	// Runs hold its share, most first, at most MaxSlotHolders of them;
	// MoreHolders counts the other triggers holding one.
	Holders     []SlotHolder
	MoreHolders int
	// OtherProjectsRuns is, read for an API token bound to projects, how
	// many Runs of other projects' triggers among the holders hold the
	// slots, taken out of Holders: the token may know they do, not which.
	OtherProjectsRuns int
	// ServerPID and ServerStartedAtMs are, read of the database beside
	// the server, the serving server's pid and when it started, from the
	// record it keeps beside its lock; 0 otherwise.
	ServerPID         int
	ServerStartedAtMs int64
	// DataDir is, for no_server, the data directory no server serves;
	// HandedOver, that its database was handed over, so no server may
	// start there before a take-back.
	DataDir    string
	HandedOver bool
	// SingleNode says a single-node server's store, or a reader of its
	// data directory, said it: that profile has no workers, so what is
	// shown of the Run leaves out what only the cluster's reasons count
	// (Labels, Workers).
	SingleNode bool
}

// MaxSlotHolders bounds Waiting.Holders: the few triggers holding most of
// the slots are the ones an operator acts on.
const MaxSlotHolders = 3

// SlotHolder is a trigger (project/trigger) whose Runs hold some of a
// single-node server's slots.
type SlotHolder struct {
	TriggerID string
	Project   string
	Trigger   string
	Runs      int
}

// HoldersText names the triggers holding the slots with how many each
// holds, as "delta/runaway (2), echo/nightly (1) and 2 more triggers"
// ("alpha/nightly (1), other projects (2)" to a token bound to alpha);
// "" when none is named.
func (w Waiting) HoldersText() string {
	if len(w.Holders) == 0 {
		return ""
	}
	parts := make([]string, 0, len(w.Holders)+1)
	for _, h := range w.Holders {
		parts = append(parts, fmt.Sprintf("%s/%s (%d)", h.Project, h.Trigger, h.Runs))
	}
	if w.OtherProjectsRuns > 0 {
		parts = append(parts, fmt.Sprintf("other projects (%d)", w.OtherProjectsRuns))
	}
	text := strings.Join(parts, ", ")
	if w.MoreHolders > 0 {
		text += " and " + plural.Count(w.MoreHolders, "more trigger", "more triggers")
	}
	return text
}

// heldBy is the clause a server_busy or project_busy Message ends with
// naming the slots' holders, so that a Run starved by another team's
// trigger, or by its own project's runaway, points at it; to a token
// bound to projects that none of them holds, that other projects do
// (OthersOnly); "" when none is known.
func (w Waiting) heldBy() string {
	if others := w.OthersOnly(); others != "" {
		return "; the slots are held by " + others
	}
	if held := w.HoldersText(); held != "" {
		return "; the slots are held by Runs of " + held
	}
	return ""
}

// OthersOnly says, to a token bound to projects none of whose triggers
// holds the slots, that other projects' Runs do, never which, and who can
// act: "3 Runs of other projects; ask the server's operator". "" when a
// holder is named or none is hidden.
func (w Waiting) OthersOnly() string {
	if len(w.Holders) > 0 || w.OtherProjectsRuns == 0 {
		return ""
	}
	text := plural.Count(w.OtherProjectsRuns, "Run", "Runs") + " of other projects"
	if w.MoreHolders > 0 {
		text += " and Runs of " + plural.Count(w.MoreHolders, "more trigger", "more triggers")
	}
	return text + "; ask the server's operator"
}

// Message says in words why the Run waits and what would let it run. Only
// the cluster has workers, and only the ql binary serves it, so the
// commands its reasons name are ql's. The single-node reasons name only
// commands both ql and ql-edge have, and no word of the cluster: a
// command line printing them names its own binary instead of ql (`ql
// serve` is `ql-edge serve` there), as it does for every message built
// below it.
func (w Waiting) Message() string {
	switch w.Reason {
	case WaitNoWorker:
		return "no worker is connected, so nothing can run it; start one with `ql-worker --server URL --credential-file FILE` " +
			"(a credential comes from `ql workers create NAME`; docs/workers.md)"
	case WaitWorkersDraining:
		return fmt.Sprintf("every connected worker (%d) is draining and takes no new Run (drained by `ql workers drain`, or its process is stopping and finishes its commands first); "+
			"return a drained one to service with `ql workers resume NAME`, or start another", w.Workers)
	case WaitNoMatchingWorker:
		msg := fmt.Sprintf("its task's placement requires the labels %s and none of the %d live workers carries them all", FormatLabels(w.Labels), w.Workers)
		if w.Workers == 1 {
			msg = fmt.Sprintf("its task's placement requires the labels %s and the one live worker does not carry them all", FormatLabels(w.Labels))
		}
		if len(w.WorkerLabels) > 0 {
			sets := make([]string, 0, len(w.WorkerLabels))
			for _, l := range w.WorkerLabels {
				sets = append(sets, "{"+FormatLabels(l)+"}")
			}
			msg += " (they carry " + strings.Join(sets, " ") + ")"
		}
		return msg + "; start a worker with those labels (`ql workers create NAME --labels …`, or `ql-worker --labels …`), or change the task's placement.labels"
	case WaitWorkersTooOld:
		which := fmt.Sprintf("none of the %d live workers %s reads it", w.Workers, matchingWhat(w.Labels))
		if w.Workers == 1 {
			which = fmt.Sprintf("the one live worker %s does not read it", matchingWhat(w.Labels))
		}
		return "its project has an env and " + which + ": a worker built before project env would start the command without the project's variables, so none is given the Run; " +
			"upgrade the workers (`ql-worker --version` says a build's version; `ql workers list` shows READS " + w.Reads + " for those that read it) or start an upgraded one"
	case WaitPrevious:
		switch w.Overlap {
		case "queue_one":
			return fmt.Sprintf("its trigger's overlap policy, queue_one, holds it until the earlier run %s has finished; `ql runs show %[1]s` says why that one has not", w.PreviousRun)
		case "cancel_previous":
			return fmt.Sprintf("its trigger's overlap policy, cancel_previous, holds it until the earlier run %s, cancelled to make way for it, has stopped; `ql runs show %[1]s` says why that one has not", w.PreviousRun)
		}
		return fmt.Sprintf("its trigger's overlap policy (queue_one, or cancel_previous while the Run it cancelled stops) holds it until the earlier run %s has finished; `ql runs show %[1]s` says why that one has not", w.PreviousRun)
	case WaitWorkersBusy:
		if w.Workers == 1 {
			return fmt.Sprintf("it waits for a free slot on the one live worker %s: it already runs as many commands as its concurrency allows", matchingWhat(w.Labels))
		}
		return fmt.Sprintf("it waits for a free slot on the %d live workers %s: each already runs as many commands as its concurrency allows", w.Workers, matchingWhat(w.Labels))
	case WaitServerBusy:
		if w.Concurrency > 0 {
			msg := fmt.Sprintf("it waits its turn: %d of %s running, as many as the server's --concurrency allows; as one finishes it starts the Run queued first, this one in its turn",
				w.Running, plural.Count(w.Concurrency, "command", "commands"))
			return msg + w.heldBy()
		}
		// A reader beside a server that has not recorded its bound (one
		// starting, or of an earlier release) cannot know it, nor whether
		// the server simply has not taken this Run yet: both are said.
		return fmt.Sprintf("the server runs %s now; its --concurrency (`ql serve --concurrency N`) bounds how many run at once: "+
			"at that bound, as one finishes it starts the Run queued first, this one in its turn; under it, it starts this one in a moment", plural.Count(w.Running, "command", "commands")) + w.heldBy()
	case WaitServerStarting:
		if w.Concurrency > 0 {
			return fmt.Sprintf("the server starts it in a moment (%d of %d running)", w.Running, w.Concurrency)
		}
		return fmt.Sprintf("the server starts it in a moment (%d running)", w.Running)
	case WaitProjectArchived:
		return fmt.Sprintf("project %s is archived; this Run starts once the project is active again (set status: active in the definitions and apply)", w.Project)
	case WaitProjectBusy:
		return fmt.Sprintf("it waits for its project: %s runs %d of its maxRunning %d Runs at once", w.Project, w.Running, w.MaxRunning) + w.heldBy() +
			"; other projects' Runs take the free slots meanwhile, and as one of the project's finishes its Run queued first starts, this one in its turn; " +
			"raise the project's maxRunning in its definitions file, or pause the trigger taking its share (`ql triggers pause PROJECT/TRIGGER`)"
	case WaitNoServer:
		if w.HandedOver {
			return HandedOverNote(w.DataDir, "nothing starts it: it stays queued here, and runs only", "ql serve --take-back --data-dir "+shellquote.Quote(w.DataDir))
		}
		return fmt.Sprintf("no server is running on this data directory (%s), so nothing starts it; start one with `ql serve --data-dir %s`",
			w.DataDir, shellquote.Quote(w.DataDir))
	}
	return string(w.Reason)
}

// AfterWaits is Message as it reads after a subject and "waits", as a
// command line puts it (`(run ID waits…)`, `…; it waits…`): a sentence
// that begins "it waits" goes on from the verb ("waits its turn: …",
// "waits for a free slot …"), any other after a colon ("waits: no worker
// is connected …"), so no line says "waits: it waits".
func (w Waiting) AfterWaits() string {
	msg := w.Message()
	if rest, ok := strings.CutPrefix(msg, "it waits "); ok {
		return " " + rest
	}
	return ": " + msg
}

// Bounded is w as a server running up to concurrency commands says it: a
// server_busy count that fills every slot stays server_busy, with the
// bound; one under it is server_starting, since the next dispatch starts
// the Run. Other reasons, and a bound not known (0), are w unchanged.
func (w Waiting) Bounded(concurrency int) Waiting {
	if w.Reason != WaitServerBusy || concurrency <= 0 {
		return w
	}
	w.Concurrency = concurrency
	if w.Running < concurrency {
		w.Reason = WaitServerStarting
	}
	return w
}

func matchingWhat(labels map[string]string) string {
	if len(labels) == 0 {
		return "taking work"
	}
	return "carrying " + FormatLabels(labels)
}

// FormatLabels writes labels as k=v pairs sorted by key, comma-separated,
// as `--labels` takes them; "no labels" when there are none.
func FormatLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return "no labels"
	}
	keys := slices.Sorted(maps.Keys(labels))
	pairs := make([]string, 0, len(keys))
	for _, k := range keys {
		pairs = append(pairs, k+"="+labels[k])
	}
	return strings.Join(pairs, ",")
}

// WaitingNote is the payload of a Run's EventWaiting: why no worker could
// take it when it was noted (WaitNoWorker, WaitWorkersDraining,
// WaitNoMatchingWorker or WaitWorkersTooOld), the labels its task's
// placement requires, the workers the reason counts (the draining ones,
// the ones taking work, or those carrying the labels) and, for
// WaitWorkersTooOld, the grant field none of them reads.
type WaitingNote struct {
	Reason  WaitReason        `json:"reason"`
	Labels  map[string]string `json:"labels"`
	Workers int               `json:"workers"`
	Reads   string            `json:"reads,omitempty"`
}

// Waiting is the note as a Waiting, whose Message says it in words.
func (n WaitingNote) Waiting() Waiting {
	return Waiting{Reason: n.Reason, Labels: n.Labels, Workers: n.Workers, Reads: n.Reads}
}
