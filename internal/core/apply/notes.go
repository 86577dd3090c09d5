package apply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// NoteReason names one thing a valid file says that will likely not do
// what its author expects, stably: `ql apply` prints its English sentence
// and the console says it in the page's language, both from one Note.
type NoteReason string

// The notes a file can get. Each names the params its items carry.
const (
	// NotePlacementIgnored is tasks setting placement on a profile that
	// runs every Run on its own machine: name.
	NotePlacementIgnored NoteReason = "defs_note_placement_ignored"
	// NoteJitterPastPeriod is triggers whose jitter is longer than the
	// time between two of their occurrences: name, jitter, period.
	NoteJitterPastPeriod NoteReason = "defs_note_jitter_past_period"
	// NoteSecretsMissing is secrets the file refers to that the secrets
	// file does not define yet: name.
	NoteSecretsMissing NoteReason = "defs_note_secrets_missing"
	// NoteSecretsUnusable is a secrets file that exists but that the
	// server cannot use, with the secrets the file refers to as items
	// (name); its params are the file's path (file), why it cannot be used
	// (cause, a process.Secrets* cause) and what that cause names.
	NoteSecretsUnusable NoteReason = "defs_note_secrets_unusable"
	// NoteTokenInURL is channels of a chat service whose URL carries the
	// service's token, written in the file (url) instead of a secret
	// (urlSecret): name (the channel's, with its kind), and the channel
	// and the kind apart, for a language that joins them in its own marks.
	NoteTokenInURL NoteReason = "defs_note_token_in_url" //nolint:gosec // G101: a reason code, not a credential
	// NoteEndedTriggers is enabled triggers whose endAt leaves them no
	// occurrence from now on: name, end (the endAt, RFC 3339).
	NoteEndedTriggers NoteReason = "defs_note_ended_triggers"
	// NoteUnlistedTriggers is enabled triggers of the file's project the
	// file does not name, which keep running: name, and task for one
	// whose task the file changes, which it follows to the task's new
	// revision.
	NoteUnlistedTriggers NoteReason = "defs_note_unlisted_triggers"
	// NoteWorkerSecrets is tasks that use secrets but set no placement,
	// where Runs go to remote workers, each with its own secrets file:
	// name (the task's), secrets (those it uses, joined by ", ").
	NoteWorkerSecrets NoteReason = "defs_note_worker_secrets"
	// NoteDaysEither is triggers whose expression restricts both
	// day-of-month and day-of-week, so a day matching either fires: name,
	// dom, dow (the fields as written).
	NoteDaysEither NoteReason = "defs_note_days_either"
	// NoteDaysVixieBoth is NoteDaysEither's triggers one of whose day
	// fields starts with "*" ("*/2"), which Vixie cron reads as
	// unrestricted, requiring days matching both: name, dom, dow.
	NoteDaysVixieBoth NoteReason = "defs_note_days_vixie_both"
	// NoteCommandMissing is tasks whose program (a command's path, a
	// script's shell) does not exist on the machine that runs every Run:
	// name, path. A note, not a refusal: a file may be applied before the
	// program it names is installed.
	NoteCommandMissing NoteReason = "defs_note_command_missing"
)

// maxNoteItems is how many objects a note of tasks or triggers names; the
// rest are counted, so a large file's note stays one line.
const maxNoteItems = 3

// Note is one note about a valid file: its reason and the objects it is
// about, each with the params its sentence names, how many more objects
// it is about than Items holds, and the params of the note itself (those
// of the secrets file an unusable-secrets note is about).
type Note struct {
	Reason NoteReason
	Items  []map[string]string
	More   int
	Params map[string]string
}

// String is the note's English sentence, as `ql apply` prints it after
// "note: ".
func (n Note) String() string {
	names := make([]string, len(n.Items), len(n.Items)+1)
	for i, it := range n.Items {
		names[i] = it["name"]
		switch n.Reason {
		case NoteJitterPastPeriod:
			names[i] = fmt.Sprintf("%s (jitter %s, %s between occurrences)", it["name"], it["jitter"], it["period"])
		case NoteEndedTriggers:
			names[i] = fmt.Sprintf("%s (endAt %s)", it["name"], it["end"])
		case NoteUnlistedTriggers:
			if it["task"] != "" {
				names[i] = fmt.Sprintf("%s (follows task %s to the revision this file publishes)", it["name"], it["task"])
			}
		case NoteWorkerSecrets:
			names[i] = fmt.Sprintf("%s (secrets: %s)", it["name"], it["secrets"])
		case NoteCommandMissing:
			names[i] = fmt.Sprintf("%s (%s)", it["name"], it["path"])
		case NoteUnknownQLVariable:
			names[i] = fmt.Sprintf("%s ($%s; nearest: %s)", it["name"], it["variable"], it["closest"])
		case NoteDaysEither, NoteDaysVixieBoth:
			names[i] = fmt.Sprintf("%s (day-of-month %q or day-of-week %q)", it["name"], it["dom"], it["dow"])
		}
	}
	if n.More > 0 {
		names = append(names, fmt.Sprintf("and %d more", n.More))
	}
	if n.Reason == NoteSecretsUnusable {
		why := secretsCauseEnglish[process.SecretsCause(n.Params["cause"])]
		return fmt.Sprintf(noteEnglish[n.Reason], n.Params["file"], fillParams(why, n.Params), strings.Join(names, ", "))
	}
	if w, ok := workerNoteEnglish[n.Reason]; ok {
		return fmt.Sprintf(w, strings.Join(names, ", "))
	}
	return fmt.Sprintf(noteEnglish[n.Reason], strings.Join(names, ", "))
}

// fillParams is s with each {param} of params replaced by its value.
func fillParams(s string, params map[string]string) string {
	pairs := make([]string, 0, 2*len(params))
	for k, v := range params {
		pairs = append(pairs, "{"+k+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// secretsCauseEnglish says why a secrets file cannot be used, by its
// cause, with the cause's params in braces, and what fixes it.
var secretsCauseEnglish = map[process.SecretsCause]string{
	process.SecretsDenied:     "the server's user may not read it ({error}); make it that user's file, mode 0600",
	process.SecretsOwner:      "it is owned by uid {owner}, not by the server's user (uid {uid}); chown it to uid {uid}",
	process.SecretsMode:       "group or others may access it (mode {mode}); chmod it to 600",
	process.SecretsNotRegular: "it is not a regular file; put a JSON object of name → value, mode 0600, in its place",
	// One sentence for a file that is not JSON and for one whose JSON has
	// a value that is not a string: the cause does not tell them apart,
	// and the owner of a file with a number in it must not hunt for a
	// syntax error it does not have.
	process.SecretsNotJSON: "it is not a JSON object of string values; correct its syntax if it is not valid JSON, " +
		`and write every value as a quoted string ({"name": "value"})`,
}

// SetSecretCommand is the command the missing-secrets note says sets a
// secret, in ql's name as every command a message names below the
// command tree: `ql apply` prints it as its own binary (ql-edge) with the
// flags that reach the same database or server, and the console says its
// Secrets page instead.
const SetSecretCommand = "`ql secrets set NAME`" //nolint:gosec // G101: a command to show, not a credential

// DisableTriggerCommand is the command the note of triggers a file does
// not name says disables one, printed and replaced as SetSecretCommand
// is (the console says the trigger's page).
const DisableTriggerCommand = "`ql triggers disable NAME`"

// noteEnglish are the notes' English sentences, %s the list of the
// objects each is about. None names the cluster, PostgreSQL or workers:
// ql-edge, which has none of them, prints and serves these notes too.
var noteEnglish = map[NoteReason]string{
	NotePlacementIgnored: "placement is stored but not acted on: this single-node server runs every Run on its own machine (tasks: %s)",
	NoteCommandMissing: "these tasks run a program that does not exist on this machine, so each of their Runs fails (spawn_failed) until it does: " +
		"install it there, or correct the path in the file (tasks: %s)",
	NoteJitterPastPeriod: "a jitter longer than the time between two occurrences makes the later one fall due before the earlier one is admitted, " +
		"and it is caught up like a missed one (fire_once collapses it, skip passes it over); keep jitter below the cron's period (triggers: %s)",
	NoteSecretsMissing: "the secrets file (qinglong-secrets.json in the data directory) does not define %s yet: " +
		"set each with " + SetSecretCommand + ", or on the console's Secrets page, before a Run or notification needs it, or it fails",
	NoteSecretsUnusable: "the secrets file %s cannot be used: %s. Until it can, every Run or notification that needs %s fails (secret_unavailable)",
	NoteEndedTriggers:   "these triggers have no occurrence left before their endAt, so they fire no more; move endAt later, or leave it out (triggers: %s)",
	NoteUnlistedTriggers: "enabled triggers of this project that the file does not name keep running: leaving one out of a file does not remove it " +
		"(a renamed trigger runs under its old name too); to retire one, apply it with enabled: false or disable it with " + DisableTriggerCommand + " (triggers: %s)",
	NoteDaysEither: "these triggers restrict both day-of-month and day-of-week, so they fire on days matching EITHER (as Kubernetes CronJobs do); " +
		"a day field written as \"*\" or \"?\" (alone, as \"*/1\" or in a list) leaves the day to the other (triggers: %s)",
	NoteDaysVixieBoth: "these triggers restrict both day-of-month and day-of-week, so they fire on days matching EITHER; " +
		"Vixie cron (crontab) reads a day field starting with \"*\" (such as \"*/2\") as unrestricted and would fire them only on days matching BOTH. " +
		cron.VixieBothHint + " (triggers: %s)",
	NotePanelTaskCommand: "these tasks run task SCRIPT, the qinglong panel's command, which does not exist here, so each of their Runs fails with \"task: not found\" (exit code 127): " +
		"write the interpreter and the script's path (node /ql/scripts/jd_bean_sign.js, python3 -u /ql/scripts/check.py), or set workingDir to the scripts folder and run node jd_bean_sign.js (tasks: %s)",
	NotePythonBuffered: "these tasks run Python, which holds its output back in blocks of several KiB when it writes to a pipe, so their live log stays empty until a block fills or the script ends: " +
		"run it as python3 -u, or give the task env PYTHONUNBUFFERED: \"1\" (tasks: %s)",
	NoteUnknownQLVariable: "these tasks' scripts read a QL_ variable QingLong does not set, which is empty in every Run (a task's env may not set one either): " +
		"QingLong sets " + strings.Join(run.EnvNames(), ", ") + "; write the one meant (tasks: %s)",
	NoteTokenInURL: "the URL of a chat service carries its token, and a url written in the file is stored in the database and shown with the definitions; " +
		"put the URL in a secret and name it with urlSecret instead (channels: %s)",
}

// SetWorkerSecretCommand is the command the note of tasks using secrets
// without placement says sets a secret on a worker's host.
const SetWorkerSecretCommand = "`ql-worker secrets set NAME --secrets-file FILE`" //nolint:gosec // G101: a command to show, not a credential

// workerNoteEnglish are the English sentences of the notes only a cluster
// gives (Notes gives them where Runs go to remote workers): unlike
// noteEnglish's, they name workers.
var workerNoteEnglish = map[NoteReason]string{
	NoteWorkerSecrets: "these tasks use secrets but set no placement, so their Runs may go to any worker, and a worker whose secrets file " +
		"does not define one fails the Run (secret_unavailable): define them on every worker that can take these tasks, with " + SetWorkerSecretCommand +
		" on each worker's host, or pin each task with placement.labels to workers that hold them and carry those labels (their --labels) (tasks: %s)",
}

// capped is a note of items, naming the first maxNoteItems; ok is false
// when there are none.
func capped(r NoteReason, items []map[string]string) (Note, bool) {
	if len(items) == 0 {
		return Note{}, false
	}
	n := Note{Reason: r, Items: items}
	if len(items) > maxNoteItems {
		n.Items, n.More = items[:maxNoteItems], len(items)-maxNoteItems
	}
	return n, true
}

// PlacementNote is the note of doc's tasks that set placement, for a
// profile that stores it but does not act on it (every Run runs on the
// server's machine): the operator should not believe a Run will be placed
// when it will not. Retry is not noted: every profile acts on it.
func PlacementNote(doc *Document) (Note, bool) {
	var items []map[string]string
	for _, t := range doc.Tasks {
		if !t.Spec.Command.Placement.IsZero() {
			items = append(items, map[string]string{"name": t.Spec.Name})
		}
	}
	return capped(NotePlacementIgnored, items)
}

// CommandNote is the note of doc's tasks whose program missing says does
// not exist: an argv command's path, a script's shell. nil notes none.
func CommandNote(doc *Document, missing func(string) bool) (Note, bool) {
	if missing == nil {
		return Note{}, false
	}
	var items []map[string]string
	for _, t := range doc.Tasks {
		path := t.Spec.Command.Path
		if t.Spec.Command.Mode == task.ModeShell {
			path = t.Spec.Command.Shell
		}
		if path != "" && missing(path) {
			items = append(items, map[string]string{"name": t.Spec.Name, "path": path})
		}
	}
	return capped(NoteCommandMissing, items)
}

// WorkerSecretsNote is the note of doc's tasks that use secrets and set
// no placement, for a cluster: a worker resolves a task's secrets from its
// own secrets file, and the replicas cannot read it, so the apply cannot
// say whether a worker lacks one; but a task without placement runs on
// whichever worker pulls it, so every worker must hold its secrets, which
// the operator must be told before the first Run fails on one that does
// not. A task with placement was pinned on purpose and gets no note.
func WorkerSecretsNote(doc *Document) (Note, bool) {
	var items []map[string]string
	for _, t := range doc.Tasks {
		if !t.Spec.Command.Placement.IsZero() {
			continue
		}
		var refs []string
		// The project's env is part of every task's.
		for _, e := range t.Spec.Command.WithProjectEnv(doc.Env).Env {
			if e.SecretRef != "" && !slices.Contains(refs, e.SecretRef) {
				refs = append(refs, e.SecretRef)
			}
		}
		if len(refs) > 0 {
			items = append(items, map[string]string{"name": t.Spec.Name, "secrets": strings.Join(refs, ", ")})
		}
	}
	return capped(NoteWorkerSecrets, items)
}

// jitterNoteOccurrences is how many upcoming occurrences of a trigger
// JitterNote reads for the shortest time between two of them.
const jitterNoteOccurrences = 64

// JitterNote is the note of doc's triggers whose jitter is longer than
// the time between two of their next occurrences after nowMs. The later
// one then may fall due before the earlier one is admitted, and is caught
// up like a missed occurrence (fire_once collapses it, skip passes it
// over): the file is valid, but such a trigger runs less often than its
// cron says.
func JitterNote(doc *Document, nowMs int64) (Note, bool) {
	var items []map[string]string
	for _, t := range doc.Triggers {
		c := t.Spec.Cron
		if c.JitterMs == 0 {
			continue
		}
		s, err := cron.Parse(c.Expression, c.Timezone)
		if err != nil {
			continue
		}
		prev, ok := s.Next(max(nowMs, c.StartAtMs-1))
		for i := 0; ok && i < jitterNoteOccurrences; i++ {
			next, more := s.Next(prev)
			if !more {
				break
			}
			if next-prev < c.JitterMs {
				items = append(items, map[string]string{"name": t.Spec.Name,
					"jitter": validate.Duration(time.Duration(c.JitterMs) * time.Millisecond), "period": validate.Duration(time.Duration(next-prev) * time.Millisecond)})
				break
			}
			prev = next
		}
	}
	return capped(NoteJitterPastPeriod, items)
}

// EndedNote is the note of doc's enabled triggers whose endAt comes
// before their next occurrence after nowMs (and after their startAt): the
// file is valid, but such a trigger is published ended and fires no more,
// as one whose expression never matches, which is refused, would not.
func EndedNote(doc *Document, nowMs int64) (Note, bool) {
	var items []map[string]string
	for _, t := range doc.Triggers {
		c := t.Spec.Cron
		if c.EndAtMs == 0 || !t.Spec.Enabled {
			continue
		}
		s, err := cron.Parse(c.Expression, c.Timezone)
		if err != nil {
			continue
		}
		if next, ok := s.Next(max(nowMs, c.StartAtMs-1)); !ok || next > c.EndAtMs {
			items = append(items, map[string]string{"name": t.Spec.Name, "end": time.UnixMilli(c.EndAtMs).UTC().Format(time.RFC3339)})
		}
	}
	return capped(NoteEndedTriggers, items)
}

// SecretRefs are the names of the secrets doc refers to, each once, in
// the file's order: the project env's, task environments', then
// notification channels'.
func SecretRefs(doc *Document) []string {
	var refs []string
	seen := map[string]bool{}
	add := func(ref string) {
		if ref != "" && !seen[ref] {
			seen[ref] = true
			refs = append(refs, ref)
		}
	}
	for _, e := range doc.Env {
		add(e.SecretRef)
	}
	for _, t := range doc.Tasks {
		for _, e := range t.Spec.Command.Env {
			add(e.SecretRef)
		}
	}
	if doc.HasNotifications {
		for _, c := range doc.Notifications.Channels {
			for _, ref := range c.Refs() {
				add(ref)
			}
		}
	}
	return refs
}

// SecretsNote is the note naming the secrets doc refers to that missing
// says the secrets file does not define yet. Applying them is fine (the
// file is read at each start, so they may be added later), but until then
// every Run of such a task fails with secret_unavailable and every such
// channel's notification fails, which a first apply should say at once.
// A file missing cannot use gives no note here: only the user that runs
// the commands can judge it (SecretsFileNote). Every secret is named,
// however many: each must be added.
func SecretsNote(doc *Document, missing func([]string) ([]string, error)) (Note, bool) {
	absent, err := missing(SecretRefs(doc))
	if err != nil || len(absent) == 0 {
		return Note{}, false
	}
	return Note{Reason: NoteSecretsMissing, Items: named(absent)}, true
}

// SecretsFileNote is the note of the secrets doc refers to: that the
// secrets file cannot be used (and why) where missing, run as the user
// that runs the commands, finds it so, else that it does not define some
// of them yet. An unusable file is worse than a missing secret: every
// secret is unavailable, though the file exists and looks right.
func SecretsFileNote(doc *Document, missing func([]string) ([]string, error)) (Note, bool) {
	refs := SecretRefs(doc)
	absent, err := missing(refs)
	var fe *process.SecretsFileError
	if errors.As(err, &fe) {
		params := map[string]string{"file": fe.Path, "cause": string(fe.Cause)}
		for k, v := range fe.Params {
			params[k] = v
		}
		return Note{Reason: NoteSecretsUnusable, Items: named(refs), Params: params}, true
	}
	if err != nil || len(absent) == 0 {
		return Note{}, false
	}
	return Note{Reason: NoteSecretsMissing, Items: named(absent)}, true
}

// named are the items of names, each its name.
func named(names []string) []map[string]string {
	items := make([]map[string]string, len(names))
	for i, name := range names {
		items[i] = map[string]string{"name": name}
	}
	return items
}

// NoteScope is what the caller of Notes knows of where the file is
// applied.
type NoteScope struct {
	// RunsHere is a profile that runs every Run on its own machine
	// (standalone, edge): placement is stored, not acted on.
	RunsHere bool
	// OnWorkers is a cluster, whose Runs go to remote workers, each
	// resolving secrets from its own secrets file.
	OnWorkers bool
	NowMs     int64
	// MissingSecrets reads the secrets file of the machine that runs the
	// commands, as the user that runs them (a file it cannot use is
	// noted); nil where that is not this process (a cluster's workers
	// hold their own), which then notes nothing of secrets.
	MissingSecrets func([]string) ([]string, error)
	// PathMissing reports whether a program's path does not exist on the
	// machine that runs the commands; nil where that is not this process
	// (a cluster's workers), which then notes no program.
	PathMissing func(path string) bool
}

// Notes are every note doc gets where s says it is applied, in the order
// `ql apply` prints them.
func Notes(doc *Document, s NoteScope) []Note {
	var out []Note
	if s.RunsHere {
		if n, ok := PlacementNote(doc); ok {
			out = append(out, n)
		}
		if n, ok := CommandNote(doc, s.PathMissing); ok {
			out = append(out, n)
		}
	}
	if n, ok := JitterNote(doc, s.NowMs); ok {
		out = append(out, n)
	}
	if n, ok := EndedNote(doc, s.NowMs); ok {
		out = append(out, n)
	}
	out = append(out, DaysNotes(doc)...)
	if n, ok := PanelTaskNote(doc); ok {
		out = append(out, n)
	}
	if n, ok := PythonBufferedNote(doc); ok {
		out = append(out, n)
	}
	if n, ok := UnknownQLVariableNote(doc); ok {
		out = append(out, n)
	}
	if n, ok := TokenInURLNote(doc); ok {
		out = append(out, n)
	}
	if s.OnWorkers {
		if n, ok := WorkerSecretsNote(doc); ok {
			out = append(out, n)
		}
	}
	if s.MissingSecrets != nil {
		if n, ok := SecretsFileNote(doc, s.MissingSecrets); ok {
			out = append(out, n)
		}
	}
	return out
}

// UnlistedNote is the note of the enabled triggers of doc's project, as
// r reads it, that doc does not name. Nothing is removed by leaving it out
// of a file (a project may be split over several), so a trigger renamed
// in the file runs under both names, and one deleted from it keeps
// running: the apply says which. A trigger of a task doc changes follows
// the task to its new revision, which results (the apply's or its plan's)
// report as the trigger updated: its item names the task it follows. A
// project that does not exist yet, that doc archives, or that stays
// archived under a doc without status:, gets no note: nothing of it will
// run.
func UnlistedNote(ctx context.Context, r catalog.DefinitionsReader, doc *Document, results []Result) (Note, bool, error) {
	if doc.Status == project.Archived {
		return Note{}, false, nil
	}
	d, err := r.ProjectDefinitions(ctx, doc.Project, MaxTriggers+1)
	if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
		return Note{}, false, nil
	}
	if err != nil {
		return Note{}, false, err
	}
	if doc.Status == "" && d.Project.Status == project.Archived {
		return Note{}, false, nil
	}
	named := make(map[string]bool, len(doc.Triggers))
	for _, t := range doc.Triggers {
		named[t.Spec.Name] = true
	}
	// A trigger of a task that is disabled, or that doc disables, does not
	// run: it stops with its task, and saying it keeps running would be
	// false.
	disabled := map[string]bool{}
	for _, t := range doc.Tasks {
		disabled[t.Spec.Name] = !t.Spec.Enabled
	}
	taskOff := map[string]bool{}
	taskName := map[string]string{}
	for _, t := range d.Tasks {
		off, inDoc := disabled[t.Spec.Name]
		taskOff[t.TaskID] = off || (!inDoc && !t.Spec.Enabled)
		taskName[t.TaskID] = t.Spec.Name
	}
	// Only a trigger following its changed task is reported updated
	// without the file naming it.
	follows := map[string]bool{}
	for _, res := range results {
		if res.Kind == "trigger" && res.Change == catalog.Updated && !named[res.Name] {
			follows[res.Name] = true
		}
	}
	var items []map[string]string
	for _, t := range d.Triggers {
		if t.Spec.Enabled && !named[t.Spec.Name] && !taskOff[t.TaskID] {
			item := map[string]string{"name": t.Spec.Name}
			if follows[t.Spec.Name] {
				item["task"] = taskName[t.TaskID]
			}
			items = append(items, item)
		}
	}
	n, ok := capped(NoteUnlistedTriggers, items)
	return n, ok, nil
}

// AddUnlisted is ns with the note of the enabled triggers of doc's project
// that doc does not name, where r can read them, those following a
// changed task as results report them, before the notes of secrets, in
// the order `ql apply` prints them (the secrets last). A read that fails
// adds no note: it is asked for after the file was applied (or planned),
// whose answer must not say it failed.
func AddUnlisted(ctx context.Context, r catalog.DefinitionsReader, doc *Document, results []Result, ns []Note) []Note {
	if r == nil {
		return ns
	}
	n, ok, err := UnlistedNote(ctx, r, doc, results)
	if err != nil || !ok {
		return ns
	}
	at := len(ns)
	for i, m := range ns {
		if m.Reason == NoteSecretsMissing || m.Reason == NoteSecretsUnusable {
			at = i
			break
		}
	}
	return slices.Insert(ns, at, n)
}

// tokenInURL are the channel kinds whose URL holds the service's token
// (a bot token in Telegram's path, DingTalk's access_token, WeCom's key,
// Feishu's and Slack's hook path, Bark's device key): whoever reads the
// URL can post as the bot.
var tokenInURL = []notify.Kind{notify.Telegram, notify.DingTalk, notify.WeCom, notify.Feishu, notify.Slack, notify.Bark}

// TokenInURLNote is the note of doc's channels of those kinds that write
// their url in the file, where the token ends up in the database and on
// every page that shows the definitions, instead of naming a secret.
func TokenInURLNote(doc *Document) (Note, bool) {
	var items []map[string]string
	for _, c := range doc.Notifications.Channels {
		if c.URL != "" && slices.Contains(tokenInURL, c.Kind) {
			items = append(items, map[string]string{"name": fmt.Sprintf("%s (%s)", c.Name, c.Kind), "channel": c.Name, "kind": string(c.Kind)})
		}
	}
	return capped(NoteTokenInURL, items)
}

// DaysNotes are the notes of doc's triggers that restrict both day fields:
// a crontab moved here may have meant days matching both, which Vixie cron
// gives for a field starting with "*" and no expression here does, so the
// author is told which days fire before the first wrong one does.
func DaysNotes(doc *Document) []Note {
	var either, vixie []map[string]string
	for _, t := range doc.Triggers {
		s, err := cron.Parse(t.Spec.Cron.Expression, "UTC")
		if err != nil {
			continue
		}
		d := s.Days()
		item := map[string]string{"name": t.Spec.Name, "dom": d.DayOfMonth, "dow": d.DayOfWeek}
		switch {
		case d.VixieBoth:
			vixie = append(vixie, item)
		case d.Either:
			either = append(either, item)
		}
	}
	var out []Note
	for _, n := range []struct {
		r     NoteReason
		items []map[string]string
	}{{NoteDaysVixieBoth, vixie}, {NoteDaysEither, either}} {
		if note, ok := capped(n.r, n.items); ok {
			out = append(out, note)
		}
	}
	return out
}
