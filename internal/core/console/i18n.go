package console

import (
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/cmdname"
	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/validate"
	"github.com/qinglong/qinglong/internal/core/view"
)

// messages are the console's words in English and Simplified Chinese.
//
//nolint:gosec // G101: the word "token" in labels, not a credential
var messages = map[string]map[string]string{
	"en": {
		"title": "QingLong", "overview": "Overview", "triggers": "Triggers", "runs": "Runs", "signout": "Sign out", "skip": "Skip to the page's content", "col.actions": "Actions",
		"signin": "Sign in", "token": "API token", "signin.help": "Paste an API token (create one with `ql tokens create NAME --scope operate%s`).",
		"err.malformed": "That is not a whole API token: a token is qlt_ and 43 more characters, printed once when it was created. Paste all of it, or create a new one.", "err.unknown": "That token is not known, revoked or expired.",
		"last24": "Runs of the last 24 hours by state", "counted": "%d runs counted", "counted.one": "%d run counted", "ov.notriggers": "No trigger exists yet, so nothing runs: a trigger runs a task on its schedule.", "lag.of": " (%d runs counted)", "lag.of.one": " (%d run counted)", "failures": "Recent failures", "nextfires": "Next fires",
		"search": "Search", "search.none": "No trigger's project, trigger or task name or title, nor its task's script or command, holds “%s”; the search does not read env values.", "found.script": "found in the script", "found.command": "found in the command", "project": "Project", "trigger": "Trigger", "trigger.ref": "Trigger name or project/name", "task": "Task", "schedule": "Schedule", "next": "Next fire",
		"state": "State", "paused": "paused", "active": "active", "pause": "Pause", "resume": "Resume", "note": "Note",
		"runnow": "Run now", "ledger": "Timeline", "passed": "passed over", "scheduled": "Scheduled", "created": "Created", "finished": "Finished",
		"any": "any", "filter": "Filter", "more": "Next page", "none": "Nothing here.", "attempts": "Attempts", "events": "Events", "event": "Event", "event.at": "When",
		"exit": "Exit code", "cancel": "Cancel run", "log": "Output", "live": " (live)", "log.ofattempt": " — attempt %d", "log.latest": "Follow the latest attempt", "log.of": "Show the output of attempt %d", "signedin": "Signed in as %s",
		// colon, comma and paren join a label to its value, the items of a
		// list and a remark to what it remarks on, in the language's own
		// punctuation (Chinese takes full-width marks, no spaces).
		"colon": ": ", "comma": ", ", "paren": " (%s)",
		"log.omitted": "Only the end of this attempt's output is shown: its first %d bytes are left out.",
		"log.more":    "The output goes on past what is shown here.",
		// log.whole follows the link to download the whole log: the run's
		// id, the attempt's number and the database flags.
		"log.download": "Download the whole log",
		"log.whole":    ", or read it with `ql runs logs %[1]s --attempt %[2]d%[3]s`, or GET /api/v1/runs/%[1]s/log?attempt=%[2]d with an API token.",
		"dl.link":      "Download log", "dl.sofar": "Download log (so far)", "dl.gone": "removed by log retention",
		"dl.title":         "The whole output of attempt %d, as a file",
		"dl.title.sofar":   "What attempt %d has written so far, as a file: it is still running",
		"dl.notstarted":    "Attempt %[1]d of run %[2]s has not started yet, so it has no output to download; once it has started, its download gives what it has written so far.",
		"dl.removed":       "Log retention removed the output of attempt %[1]d of run %[2]s (it held %[3]d bytes): there is nothing left to download. The run's page still lists its attempts and events.",
		"dl.removed.since": " The run ended at %s; the server's log retention (--retention-logs, --retention-log-bytes) removed its log since then.",
		"log.removed":      "Log retention removed this attempt's output (it held %d bytes).", "log.none": "No output.",
		"log.notyet":  "No output yet: the command has not started, or has printed nothing so far. What it prints shows here as it prints it.",
		"log.toomany": "The live output is not followed here: this session already follows %d live logs, the most it may (one for each open page of a running Run). Close some of those pages, then reload this one.",
		"log.stopped": "The live output stopped: the server could not read this run or its output within %s, the most it gives one read (its database or disk is busy). What is shown above is all it had read; reload the page to follow the output again.",
		"disabled":    "disabled", "ended": "ended", "duration": "Duration", "took": "Total (incl. queued)", "ran": "ran", "ran.atleast": "≥ %s (until last heard from)", "number": "#", "executor": "Executor", "reason": "Reason", "count": "Count",
		"enable": "Enable", "disable": "Disable",
		"trig.done.pause": "Paused %s.", "trig.done.resume": "Resumed %s.", "trig.done.enable": "Enabled %s.", "trig.done.disable": "Disabled %s.",
		// The overlap warnings (view.WarningsOf): %[1]d is the count, %[2]d
		// the newest Runs looked at (starving only).
		"trig.warn.backlog":             "Backlog: %[1]d Runs queued. To run them sooner, %[4]s; or set overlap: skip so that an occurrence due while one runs gets no Run.",
		"trig.warn.backlog.capped":      "Backlog: %[1]d Runs queued behind the cap of project %[3]s, which runs as many of its Runs at once as its maxRunning allows. Raise the project's maxRunning in its definitions file, or set overlap: skip so that an occurrence due while one runs gets no Run.",
		"trig.warn.backlog.capped.more": "Backlog: %[1]d or more Runs queued behind the cap of project %[3]s, which runs as many of its Runs at once as its maxRunning allows. Raise the project's maxRunning in its definitions file, or set overlap: skip so that an occurrence due while one runs gets no Run.",
		"trig.warn.backlog.behind":      "Backlog: %[1]d Runs queued behind the Runs of %[3]s, which hold the slots. Pause that trigger (Pause, on its page); or, to give them more slots, %[4]s.",
		"trig.warn.backlog.behind.more": "Backlog: %[1]d or more Runs queued behind the Runs of %[3]s, which hold the slots. Pause that trigger (Pause, on its page); or, to give them more slots, %[4]s.", "trig.warn.backlog.more": "Backlog: %[1]d or more Runs queued. To run them sooner, %[4]s; or set overlap: skip so that an occurrence due while one runs gets no Run.", "trig.slots": "raise the server's `--concurrency`", "trig.slots.workers": "start more workers, or raise their `--concurrency`",
		"trig.warn.starving": "Starving: %[1]d of the newest %[2]d Runs were cancelled before they started (overlap: cancel_previous with the slots full). Raise the slots, or set overlap: skip or queue_one.",
		"batch.help":         "Tick triggers in the list, then choose what to do with them all:", "batch.all": "Select all on this page", "batch.pick": "Select",
		"batch.title.run": "Run now: selected triggers", "batch.title.pause": "Pause: selected triggers", "batch.title.resume": "Resume: selected triggers",
		"batch.title.enable": "Enable: selected triggers", "batch.title.disable": "Disable: selected triggers",
		"batch.summary": "Selected: %d. Done: %d. Refused: %d.", "batch.outcome": "Outcome", "batch.done": "done", "batch.refused": "refused",
		"batch.run.made": "a Run was created:", "batch.run.again": "this form made its Run before (it was sent again), no second one:",
		"batch.pause.done": "paused.", "batch.pause.same": "it was paused already; nothing changed.",
		"batch.resume.done": "resumed.", "batch.resume.same": "it was not paused; nothing changed.",
		"batch.enable.done": "enabled (revision %d).", "batch.enable.same": "it was enabled already; nothing changed.",
		"batch.disable.done": "disabled (revision %d).", "batch.disable.same": "it was disabled already; nothing changed.",
		"batch.untried": "the form used up its %s before it reached this trigger: select it again on the list and send the form.", "batch.untried.label": "not tried", "batch.summary.untried": " Not tried: %d.", "batch.back": "Back to the triggers list",
		"err.batchnone": "No trigger was selected: tick the box beside each trigger to act on, then press the button again.", "err.batchmany": "%d triggers were selected, and one form acts on at most %d (a page of the list); nothing was done. Select fewer and send the form again.",
		"newtask": "New task", "nt.intro": "A shell script and the cron schedule that runs it. Every other setting keeps its default; change it later in the project's definitions file.",
		"nt.invalid": "Nothing was created", "nt.blank": "this field is required; fill it in.",
		"nt.project": "Project", "nt.projecthelp": "An existing project, or a new name to create one (lower-case letters, digits, '-', '_' or '.').",
		"nt.task": "Task name", "nt.script": "Script (run by /bin/sh)", "nt.scripthelp": "Up to 131,071 bytes; keep a longer script in a file and run that file.",
		"nt.newscripthelp": "Up to 131,071 bytes; keep a longer script in a file and run that file. It starts in a fresh empty directory unless Working directory names one: run a script file by its full path (`node /ql/scripts/jd_bean_sign.js`), `cd` to its folder first, or give its folder below; there is no `task` command as in the qinglong panel.",
		"nt.workdir":       "Working directory (optional)", "nt.workdir.shown": "Working directory",
		"nt.workdirhelp": "The absolute directory the script starts in, such as your scripts folder (/ql/scripts), so that it can run `node jd_bean_sign.js`; empty: a fresh empty directory for each attempt, removed afterwards.",
		"nt.cron":        "Schedule (cron)", "nt.cronhelp": "Five fields: minute hour day-of-month month day-of-week, e.g. `0 3 * * *` for 03:00 every day; six with seconds first, e.g. `*/30 * * * * *` every 30 seconds.",
		"nt.timezone": "Time zone (IANA name)", "nt.timeout": "Timeout", "nt.timeouthelp": "Stop the command after this long, e.g. `30m`, `2h` or `1d`; empty for 1h.",
		"nt.trigger": "Trigger name", "nt.triggerhelp": "Empty to name it after the task.",
		"nt.after":    "The next step shows what would be created; nothing is created until you confirm it there. The other tasks and triggers of the project are left as they are.",
		"definitions": "Definitions", "def.show": "Show", "def.edit": "Definitions file (YAML, as for `ql apply`)", "def.upload": "or upload a file",
		"def.previewbtn": "Preview changes", "def.preview": "What applying would change", "def.applied": "Applied", "def.next": "Open the triggers of %s: run one now, see when each fires next",
		"def.confirm": "Apply these changes", "def.back": "Back to editing", "def.nothing": "Nothing would change.",
		"def.invalid":     "The file is not valid; nothing was applied",
		"def.unavailable": "The database could not be used; nothing is wrong with the file, send it again once the database answers", "def.at": "line %d", "def.atcolumn": "line %d, column %d", "def.sep": ": ",
		"def.errorcount": "%d errors in all.", "def.moreerrors": "And %d more errors, listed once those above are fixed.", "def.moreerrors.one": "And %d more error, listed once those above are fixed.",
		"def.kind": "Kind", "def.name": "Name", "def.change": "Change", "def.fields": "Changed fields", "def.revision": " (revision %d)", "def.notes": "Notes",
		"def.keep":      "Objects missing from the file are left as they are.",
		"def.keep.form": "The project's other tasks and triggers are left as they are.",
		"def.unlisted":  "Too many rows to bring to this page; not listed",
		"def.short":     "Its notes and details were too large to bring to this page; the project's definitions below are as it left them.",
		"signin.out":    "You are signed out. Sign in again to go on.",
		"signin.idle":   "Your session ended after %d minutes without use. Sign in again to go on.",
		"runs.from":     "Created from", "runs.to": "Created to", "runs.last24": "Last 24 hours",
		"runs.window":    "The window is when Runs were created, which is their scheduled time unless a backfill created them later for a past one.",
		"runs.notastate": "The state filter %q is not a state a Run can be in, so nothing was listed; choose one of the State list: %s.",
		"nt.shown":       "What the form creates", "nt.created": "What was created", "nt.shown.script": "Script (run by %s)",
		"def.help":      "The project's tasks and triggers, every one of them (tasks no trigger runs too), at their current revisions, as `ql export` prints them.",
		"def.help.none": "No project is chosen: choose one above to see its tasks and triggers here, or write a definitions file whose project: names a new one, which applying it creates.",
		"def.nopublish": "This server cannot publish definitions: its database role may not (a cluster replica runs as the runtime role). " +
			"The file is shown to read and copy: to change the project, save it as a file, edit it and run `ql apply -f FILE` with the admin role's database URL, " +
			"or `ql apply -f FILE --api-url URL` (an admin token in `$QL_TOKEN`) against a server that can publish.",
		"user": "User name", "password": "Password", "signin.user": "With a user account", "signin.token": "With an API token",
		"signin.userhelp":  "Accounts are made on the server: `ql users create NAME --owner%s` makes the first (later ones take `--role viewer`, `--role operator` or `--role owner`).",
		"signin.adminrole": "On this cluster, run it with the admin role's database URL in $QL_DATABASE_ADMIN_URL, which `ql users` and `ql tokens` read: this server's own role may create no account or token.",
		"err.badlogin":     "Wrong user name or password, or the account is disabled.", "err.nousers": "This server has no user accounts; sign in with an API token.",
		"err.throttled": "Too many failed sign-ins from here or for this user; wait a minute and try again.",
		"err.busy":      "Too many sign-ins at once; try again in a few seconds.",
		"tokens":        "Tokens", "name": "Name", "scope": "Scope", "expires": "Expires", "lastused": "Last used",
		"tok.new": "New token", "tok.create": "Create token", "tok.list": "All tokens", "tok.revoke": "Revoke",
		"tok.projects": "Projects", "tok.everyproject": "every project",
		"tok.created": "Token created", "tok.once": "Copy it now: it is shown only this once and is not stored.",
		"tok.help":    "Expiry from 1m to 3650d, e.g. 90d, 12h or 1d12h; empty never expires.",
		"tok.expires": "Expires after (empty: never)", "tok.copy": "Copy token", "tok.copied": "Copied",
		"tok.copyfailed": "Copy failed: select the token and copy it",
		"tok.nametitle":  "A token name: 1–128 lower-case letters, digits, '-', '_' or '.', starting and ending with a letter or digit.",
		"health":         "Admission", "lag": "Admission lag (on-time runs of the last 24 hours; catch-ups after an outage left out)", "backlog": "Backlog (due schedule rows not yet taken)",
		"local.title":           "Where commands run",
		"local.here":            "This server runs every command itself, on this machine: there is no other machine to connect and nothing here to start or look after. The Runs page lists what runs now, and each Run's page shows its output.",
		"local.concurrency":     "It runs up to %d commands at once; more wait their turn (`ql serve --concurrency N` sets how many).",
		"local.concurrency.one": "It runs %d command at a time; the next waits its turn (`ql serve --concurrency N` sets how many).",
		"local.cluster":         "Remote workers, which run the commands on other machines, belong to the cluster profile, where several servers share one PostgreSQL database; a single-node server has none and needs none.",
		"local.edge":            "Running commands on other machines takes the full ql binary.",
		"oldest":                "oldest due", "workers": "Workers", "worker": "Worker", "worker.runs": "Runs of worker %s", "runs.worker": "Worker name", "sessions": "sessions", "freeslots": "free slots", "heartbeat": "Last heartbeat", "heartbeat.ago": "%s ago", "workersilent": "silent %s: not heard from for two heartbeats or more; its session counts until its lease (45s) passes", "workerstopping": "its process is stopping: it finishes its commands, takes no new run", "workerresumed": "resumed: its process heard the drain and exits once its commands end; started again, it takes work",
		"th.sessions": "Sessions", "th.freeslots": "Free slots", "labels": "Labels", "th.reads": "Reads", "worker.readsnone": "none: built before project env, it is not given the Runs of a project with an env; upgrade it (ql-worker --version)",
		"rerun": "Re-run", "rerunof": "Re-run of", "rerunas": "Re-run as", "nextfive": "Next 5 fires", "lastrun": "Last run", "run.taskrev": "(revision %d)", "run.nextretry": "Next retry", "nofires": "none: the trigger has ended",
		"zone.unknown": "This server knows no time zone %q (zone names are case-sensitive, such as Europe/Berlin or America/New_York); times are shown in %s, as before.",
		"zone.case":    "This server knows no time zone %q (zone names are case-sensitive): did you mean %s? Times are shown in %s, as before.",
		"zone.local":   "“Local” would be this server's own zone, which the console never implies (as triggers never do): give an IANA zone name, such as Asia/Shanghai, Europe/Berlin or UTC. Times are shown in %s, as before.",
		"zone.cron":    " (the schedule is read in %s)",
		"from":         "From", "to": "To", "zone": "Times in", "due": " (due %s)",
		"replicas": "Replicas", "replica": "Replica", "rep.live": "live", "rep.expired": "expired", "host": "Host", "pid": "PID", "version": "Version",
		"started": "Started", "lastseen": "Last seen",
		"run": "Run", "yourtime": "Your time", "allruns": "All its runs",
		"ledger.more":    "Only its newest %d ledger entries of occurrences passed over are shown; older ones exist. `ql triggers show %s --ledger %d%s` lists the whole ledger.",
		"nofires.paused": "none while paused", "nofires.disabled": "none while disabled",
		"nofires.zone": "none: this server does not know its time zone", "nofires.cron": "none: this server cannot read its schedule",
		"zone.trigger": "This server does not know the trigger's time zone “%s”: the zone database of its host lacks it (a server with a newer one published the trigger). " +
			"This server cannot work out the trigger's occurrences, so its scheduler cannot decide them, and the trigger's times show in UTC here. " +
			"Install a newer zone database on that host (the tzdata package), point ZONEINFO at one that has the zone and restart the server, or run a newer release of this server, whose own copy it falls back on; " +
			"or, its project being active, apply the trigger again with a zone this host knows (Definitions, or `ql apply -f FILE`).",
		"nextfires.unknown": "Not listed: the next fires of these triggers cannot be worked out here, since this server does not know their time zone (the zone database of its host lacks it) or cannot read their schedule; each one's page says what mends it:",
		"pause.off":         "Pause and resume are not offered while the trigger is disabled or its project is archived: nothing of it runs. A pause it has stays in force once it is enabled again or its project is made active; resume it then.",
		"audit":             "Pause, resume, enable and disable", "audit.when": "When", "audit.action": "Action", "audit.by": "By",
		"audit.more":       "Only its newest %d audit records are shown; older ones exist (the table trigger_schedule_audit keeps them all).",
		"audit.unreadable": "The audit trail cannot be shown: this server's database role may not read it (its grants predate this version). Run `ql db roles` as a superuser to grant it.",
		"archived":         "project archived", "nofires.archived": "none while its project is archived",
		// A trigger's policies on its page, as `ql triggers show` prints
		// them (view.Cron.Policies), each with what it does.
		"pol.misfire": "Misfire policy", "pol.overlap": "Overlap policy", "pol.jitter": "Jitter", "pol.startAt": "Starts at",
		"pol.endAt": "Ends at", "pol.catchUpWindow": "Catch-up window",
		"pol.jitter.help":        "each occurrence is admitted up to this much after its nominal time, at its due time",
		"pol.startAt.help":       "the trigger has no occurrence before it",
		"pol.endAt.help":         "the trigger has no occurrence after it",
		"pol.catchUpWindow.help": "a missed occurrence older than this is passed over, not run",
		// The notifications page (notifications.go) and the overview's
		// count of dead notifications.
		"au.title": "Audit", "au.at": "When", "au.actor": "Who", "au.action": "Action", "au.object": "Object",
		"au.help":       "Who changed what, newest first: API tokens created and revoked, console users created, disabled, enabled, deleted or given a password, projects and triggers paused and resumed, triggers enabled and disabled, notifications retried, channels tested. Each record is written with its change, and none is ever deleted; no record holds a token, a password or a command's environment.",
		"au.empty":      "Nothing has been changed yet: creating or revoking a token, a change to a user, a pause or a notification's retry is recorded here.",
		"notifications": "Notifications", "nt.channel": "Channel", "nt.rule": "Rule", "nt.lasterror": "Last error", "nt.next": "Next attempt",
		"nt.handretry": "%d before a retry by hand at %s",
		"nt.retriedby": "retried by %s",
		"nt.duenow":    "due now",
		"nt.output":    "Output it quotes (the end of the Run's last attempt, as the channel's output: setting asks)",
		// nt.detail opens a failed notification's own text, as kept,
		// under the sentence of its reason (failureWhy); nt.failed is
		// that sentence in a language other than English for a row that
		// keeps no reason (an older build failed it).
		"nt.detail":       "Details",
		"nt.failed":       "Not delivered",
		"nt.retry":        "Retry",
		"nt.channels":     "Channels of this project",
		"nt.channelshelp": "Send test sends one message marked as a test to the channel, as a notification of a Run is sent, and says whether the receiver took it. No notification is recorded; the audit trail records who tested the channel and how it went.",
		"nt.test":         "Send test",
		"nt.test.ok":      "Test message to channel %s delivered: the receiver answered %d.",
		"nt.test.mail":    "Test message to channel %s delivered: the mail server took it.",
		"nt.test.failed":  "Test message to channel %s not delivered: %s — %s. Fix the channel, its secret or the receiver, and test again.",
		"nt.retried":      "Notification %s is pending again, its attempts kept: the server sends it at its next round, with the same idempotency key.",
		"nt.help":         "A dead notification was refused or unanswered at every attempt: nobody was told of its failure. Fix its channel (the URL, a secret, the receiver), then retry it. Delivered and dead notifications are deleted once older than the server's --retention-notifications.",
		"nt.streak":       "%d failures in a row",
		"nt.dead":         "%d notifications could not be delivered (dead): nobody was told of those failures.", "nt.dead.one": "%d notification could not be delivered (dead): nobody was told of that failure.",
		"nt.deadmore": "More than %d notifications could not be delivered (dead): nobody was told of those failures.",
		"nt.seedead":  "Show the dead notifications",
		"nt.empty":    "No notification has been sent yet. A project's definitions file says where to send them and when, in its `notifications:` section: its channels (a webhook, email, a chat or push service) and the rules that use them (a Run failed, several failures in a row, a recovery…). Add one on Definitions or with `ql apply`; docs/notifications.md describes every channel.",

		// What the rule a notification was sent by covers (scopeText).
		"nt.scope.project": "for all of project %s", "nt.scope.triggers": "triggers %s", "nt.scope.tasks": "tasks %s",
		"nt.scope.gone": "a rule changed or removed since",

		// A test whose audit record could not be written, and a channel's
		// settings as the project's notifications block has them
		// (channelSettings), read-only, its secrets named, never shown.
		"nt.test.unrecorded": "The audit trail could not record this test: note who made it elsewhere, and fix the database; the server's log names it (audit.not_recorded).",
		"nt.ch.kind":         "Kind", "nt.ch.target": "Target", "nt.ch.on": "On", "nt.ch.language": "Language", "nt.ch.zone": "Time zone",
		"nt.ch.none": "no rule sends to it", "nt.ch.en": "English", "nt.ch.zh": "Chinese", "nt.ch.utc": "UTC (as the payload holds them)",
		"nt.ch.help": "As the project's definitions file sets them (read-only; change them on Definitions or with `ql apply`). A secret is shown by its name, never its value.",

		"err.400": "That request was not valid", "err.401": "You are signed out", "err.403": "Not allowed",
		"err.404": "Not found", "err.405": "Not taken here", "err.render": "The page could not be rendered; the server's log says why.",
		"err.method": "This address does not take a %s request; it takes %s. Open the page from the console's links and send its forms with their buttons.", "err.409": "Not done", "err.410": "Removed", "err.413": "Too large", "err.500": "Something went wrong",
		"err.503": "Not available right now", "err.504": "Took too long", "err.back": "Back", "err.signinagain": "Sign in again",
		"err.scope": "Your session's scope %s does not allow this; it needs %s.", "err.signedout": "Your session has ended; sign in again.",
		"err.idle":                 "Your session ended because it went unused for too long; sign in again, then send the form again.",
		"err.overlap":              "The trigger was not run: its earlier run %s is unfinished and its overlap policy refuses another. Wait for it to finish, or cancel it.",
		"err.rerunoverlap":         "The run was not re-run: the earlier run %s of its trigger is unfinished and its overlap policy refuses another.",
		"err.overlap.waiting":      "The trigger was not run: its run %s already waits in the queue for an unfinished run before it, and its overlap policy (queue_one) lets only one wait. Wait for them to finish, or cancel one.",
		"err.rerunoverlap.waiting": "The run was not re-run: run %s of its trigger already waits in the queue for an unfinished run before it, and its overlap policy (queue_one) lets only one wait.",
		"tok.revoked":              "Token revoked",
		"tok.confirm":              "Revoke token %s?",
		"tok.confirm.what":         "From then on every sign-in and API call with it is refused. A revoked token cannot be made active again: create a new one if it is needed.",
		"tok.keep":                 "Keep it",

		// The secrets page.
		"secrets": "Secrets", "sec.set": "Set a secret", "sec.name": "Name", "sec.value": "Value", "sec.save": "Save secret", "sec.list": "All secrets",
		"sec.howto":     "A task reads a secret as an environment variable: under the task in its project's definitions file, write `env: {JD_COOKIE: {secret: JD_COOKIE}}` (the variable's name, then the secret's), and its command finds the value in `$JD_COOKIE` as it was set here, several accounts separated by & or by lines included. A notification channel names one in `urlSecret`, `tokenSecret` and the like.",
		"sec.intro":     "Values a task's env or a notification channel refers to by name, kept on this machine in %s (mode 0600). A value can be set or replaced here; it is never shown again.",
		"sec.elsewhere": "This server does not run the commands, so it keeps no secrets: each machine that runs the commands reads them from its own secrets file. Edit one on that machine with `ql secrets set NAME --secrets-file FILE`.",
		"sec.namehelp":  "1–128 letters, digits, '_', '.' or '-', the names a task's env and a notification channel refer to. A name already defined gets the new value.",
		"sec.nametitle": "A secret name: 1–128 letters, digits, '_', '.' or '-', after PROJECT/ for a secret only that project may name.",
		"sec.valuehelp": "At least 4 bytes, so it can be masked in output; several lines are kept as typed (a PEM key, a cookie). It is never shown again, here or anywhere.",
		"sec.usedby":    "Used by", "sec.defined": "defined", "sec.missing": "missing: used but not defined", "sec.unused": "not used by any definition",
		"sec.replace": "Replace", "sec.define": "Set", "sec.delete": "Delete", "sec.keep": "Keep it", "sec.none": "No secret is defined or used.",
		"sec.usetask": "task %s, env %s", "sec.usechannel": "notification channel %s", "sec.archived": "archived project: runs and sends nothing",
		"sec.usesunknown":   "This server reads no definitions: which tasks use a secret is not known here.",
		"sec.incomplete":    "Not every project's definitions were read (more than 1000 projects, or a project with more tasks than one file may hold): a name only those use is not listed as missing.",
		"sec.done.created":  "Secret %s created. The next Run that needs it reads it; nothing needs a restart.",
		"sec.done.replaced": "Secret %s replaced. The next Run that needs it reads the new value (a Run already started keeps the old one); nothing needs a restart.",
		"sec.done.deleted":  "Secret %s deleted.", "sec.done.absent": "No secret %s was defined; nothing changed.", "sec.done.uses": "It is used by:",
		"sec.done.fail":      "These now fail with secret_unavailable until it is set again:",
		"sec.confirm":        "Delete secret %s?",
		"sec.confirm.uses":   "Once it is deleted, every Run or notification of these fails with secret_unavailable until it is set again:",
		"sec.confirm.unused": "No definition uses it.",
		"sec.open":           "Set secrets on the Secrets page",
		"sec.unusable":       "The secrets file %s cannot be used: %s. Nothing is listed or set until it is fixed.",
		"sec.err.name":       "%q is not a secret name: use 1–%d letters, digits, '_', '.' or '-', the names a task's env and a notification channel refer to.",
		"sec.err.empty":      "empty: type the secret's value.",
		"sec.err.short":      "it has %d bytes, at least %d are needed so it can be masked in output without hiding unrelated text; type a longer value, or use a plain env value if it is not secret.",
		"sec.err.long":       "it has %d bytes, the limit is %d (an environment value's); keep a larger value in a file the command reads.",
		"sec.err.nul":        "it contains a NUL byte, which no environment value can hold.",
		"sec.err.utf8":       "it is not UTF-8 text; store binary data encoded (base64, hex) and decode it in the command.",

		"err.toolarge": "The form is larger than %d KiB, the most this page takes; send less.",
		"err.csrf":     "The form is missing its CSRF token or it is stale; reload the page and try again.",
		"err.internal": "The server could not do this; its log says why.",
		"err.timeout": "This page took longer than %s, the most the server gives one page: its database is busy (a retention pass, a large apply or backfill) " +
			"or the page asks for much at once. Try again in a moment, or ask for less (a shorter backfill window, a narrower filter).",
		"err.nolog":        "This server cannot read logs.",
		"err.nopage":       "There is no such page here.",
		"err.sessioncheck": "The server cannot check your session right now (its database did not answer); you are still signed in, try again in a moment.",
		"err.sessionstart": "You could not be signed in: the database did not answer in time, so no session was stored. Try again in a moment.",
		"err.signoutstore": "You are not signed out yet: the database did not answer in time, so the session still works. Try again in a moment.",
		"err.tokenstore":   "the token store did not answer; try again",
		"err.tokenbound":   "This token is bound to projects, and a token's console session is not: it cannot sign in here. Use it with the API or `ql --api-url`, or sign in with an account bound to its projects (`ql users create NAME --project P`) or a token or account of every project.",
		"err.userstore":    "the user store did not answer; try again",
		"err.signincsrf":   "the sign-in form is missing its CSRF token or it is stale; sign in again on this page",
		// A signed-out form posted from a page of another origin (signinform.go).
		"err.crossform": "This form was sent from a page of another site or address, and the console takes its sign-in and setup forms only from its own pages. Open the console at its own address and fill the form in there.",
		// Why a queued Run waits (waitingText): a cluster Run for a worker.
		"wait.title":                  "Why it waits",
		"wait.no_worker":              "No worker is connected, so nothing can run it. Start one with ql-worker --server URL --credential-file FILE (create its credential with ql workers create NAME).",
		"wait.workers_draining":       "Every connected worker (%d) is draining and takes no new run (drained by ql workers drain, or its process is stopping and finishes its commands first). Return a drained one to service with ql workers resume NAME, or start another.",
		"wait.no_matching_worker":     "Its task's placement requires the labels %s, and none of the %d live workers carries them all. Start a worker with those labels, or change the task's placement.labels.",
		"wait.no_matching_worker.one": "Its task's placement requires the labels %s, and the %d live worker does not carry them all. Start a worker with those labels, or change the task's placement.labels.",
		"wait.workerlabels":           "The live workers carry: %s.",
		"wait.workers_too_old":        "Its project has an env, and none of the %d live workers its placement allows (%s) reads it: a worker built before project env would start the command without the project's variables, so none is given the Run. Upgrade the workers (ql-worker --version says a build's version; the Workers page shows which read projectEnv), or start an upgraded one.",
		"wait.workers_too_old.one":    "Its project has an env, and the %d live worker its placement allows (%s) does not read it: a worker built before project env would start the command without the project's variables, so it is not given the Run. Upgrade the worker (ql-worker --version says a build's version; the Workers page shows which read projectEnv), or start an upgraded one.",
		"wait.workers_busy":           "It waits for a free slot on the %d live workers its placement allows (%s): each already runs as many commands as its concurrency allows.",
		"wait.workers_busy.one":       "It waits for a free slot on the %d live worker its placement allows (%s): it already runs as many commands as its concurrency allows.",
		"wait.nolabels":               "no labels",
		"wait.waits_for_previous":     "Its trigger's overlap policy (queue_one, or cancel_previous while the Run it cancelled stops) holds it until the earlier run %s has finished.",
		// Why a queued single-node Run waits for its server.
		"wait.server_busy":      "It waits its turn: %d of %d commands running, as many as the server's --concurrency allows; as one finishes it starts the Run queued first, this one in its turn.",
		"wait.server_busy.one":  "It waits its turn: %d of %d command running, as many as the server's --concurrency allows; as it finishes it starts the Run queued first, this one in its turn.",
		"wait.server_starting":  "The server starts it in a moment (%d of %d running).",
		"wait.project_archived": "Project %s is archived; this run starts once the project is active again (set status: active in the definitions and apply them).",
		"wait.holders":          " The slots are held by Runs of %s.",
		"wait.project_busy":     "It waits for its project: %s runs %d of its maxRunning %d runs at once, and other projects' runs take the free slots meanwhile; as one of the project's finishes, its run queued first starts, this one in its turn. Raise the project's maxRunning in its definitions file, or pause the trigger taking its share.",
		"wait.holders.sep":      ", ",
		"wait.holders.more":     "%s and %d more triggers",
		"wait.holders.more.one": "%s and %d more trigger",
		// The backfill form, its preview and its result (backfill.go).
		"bf.title": "Backfill", "bf.window": "Window to backfill", "bf.previewbtn": "Preview the backfill", "bf.zone": "Times in %s.",
		"bf.help":        "A Run is created for each occurrence of the schedule between the two instants (both included) that has none yet, as the schedule would have admitted it: an occurrence that ran, or was backfilled, never runs twice. Only occurrences before the schedule's next fire are taken. Pause and the overlap policy do not apply. At most %d occurrences at a time; nothing is created before you confirm the preview.",
		"bf.preview":     "What the backfill would do",
		"bf.occurrences": "Occurrences in the window", "bf.first": "First", "bf.last": "Last",
		"bf.new": "Runs it would create", "bf.admitted": "Runs created", "bf.existing": "Already had a Run",
		"bf.confirm": "Create %d Runs", "bf.confirm.one": "Create %d Run",
		"bf.nothing": "Nothing to create: every occurrence in the window already has a Run.",
		"bf.none":    "The window holds no occurrence to backfill: only occurrences before the schedule's next fire, within the trigger's start and end bounds, can be backfilled.",
		"bf.done":    "Backfill done", "bf.runs": "The new Runs:", "bf.more": "and %d more", "bf.timeline": "Its timeline",
		"bf.off": "Backfill is not offered while the trigger is disabled or its project is archived: nothing of it runs.",
		// Why a window holding occurrences took none (schedule.NoneReason),
		// naming the instant in the form's zone.
		"bf.none.before_start": "The window holds no occurrence from the trigger's startAt, %[1]s, on, and the trigger has none before it. Move the window to %[1]s or later.",
		"bf.none.after_end":    "The window holds no occurrence up to the trigger's endAt, %[1]s, and the trigger has none after it. Move the window to %[1]s or earlier.",
		"bf.none.not_decided":  "Occurrences from %[1]s on are not decided yet: the schedule admits them itself, so a backfill leaves them to it. End the window before %[1]s.",
		// The Edit task and Edit schedule forms (edittask.go, editschedule.go).
		"edit.unnamed": "This address does not name what to edit: open the form from a trigger's page, with its Edit task or Edit schedule button.",
		"edittask":     "Edit task", "et.script": "Script", "et.shell": "Run by %s. ",
		"et.intro":   "The task's script, working directory, timeout and environment. Everything else about the task (retry, user…) stays as it is; change that in the project's definitions file.",
		"et.invalid": "Nothing was changed", "et.required": "Fill in the script.",
		"et.yours":    "What you sent, not applied: the form below shows the task as it is now; make your change to it again.",
		"et.openfile": "Open the project's definitions file", "et.list": "Edit a task's script:",
		"et.after":     "The next step shows what would change; nothing changes until you confirm it there. The task's triggers run the new script; the project's other tasks and triggers are left as they are.",
		"editschedule": "Edit schedule", "es.heading": "Edit schedule of %s/%s", "es.required": "Fill in the schedule and the time zone.",
		"es.intro": "The trigger's cron schedule and time zone. It keeps running task %s, and every other setting (misfire, jitter, overlap…) stays as it is; change that in the project's definitions file.",
		"es.yours": "Your schedule, not applied (the form below shows the trigger as it is now):",
		"es.after": "The next step shows what would change; nothing changes until you confirm it there. The project's other tasks and triggers are left as they are.",
	},
	"zh": {
		"title": "青龙", "overview": "概览", "triggers": "触发器", "runs": "运行", "signout": "退出", "skip": "跳到正文", "col.actions": "操作",
		"signin": "登录", "token": "API 令牌", "signin.help": "粘贴 API 令牌（用 `ql tokens create NAME --scope operate%s` 创建）。",
		"err.malformed": "这不是完整的 API 令牌：令牌由 qlt_ 加 43 个字符组成，只在创建时显示一次。请完整粘贴，或新建一个令牌。", "err.unknown": "令牌未知、已吊销或已过期。",
		"last24": "最近 24 小时各状态的运行", "counted": "%d 条运行", "ov.notriggers": "还没有任何触发器，所以什么都不会运行：触发器按计划运行任务。", "lag.of": "（%d 条运行）", "failures": "最近失败", "nextfires": "即将触发",
		"search": "搜索", "search.none": "没有触发器的项目名、触发器名、任务名、标题或其任务的脚本、命令包含“%s”；搜索不查环境变量的值。", "found.script": "在脚本中找到", "found.command": "在命令中找到", "project": "项目", "trigger": "触发器", "trigger.ref": "触发器名称或 项目/名称", "task": "任务", "schedule": "计划", "next": "下次触发",
		"state": "状态", "paused": "已暂停", "active": "生效中", "pause": "暂停", "resume": "恢复", "note": "备注",
		"runnow": "立即运行", "ledger": "时间线", "passed": "已跳过", "scheduled": "计划时间", "created": "创建时间", "finished": "结束时间",
		"any": "全部", "filter": "筛选", "more": "下一页", "none": "暂无内容。", "attempts": "尝试", "events": "事件", "event": "事件", "event.at": "时间",
		"exit": "退出码", "cancel": "取消运行", "log": "输出", "live": "（实时）", "log.ofattempt": " — 第 %d 次尝试", "log.latest": "跟随最新一次尝试", "log.of": "查看第 %d 次尝试的输出", "signedin": "已登录：%s",
		"colon": "：", "comma": "、", "paren": "（%s）",
		"log.omitted":  "这里只显示该尝试输出的末尾：前面的 %d 字节未显示。",
		"log.more":     "输出在这里显示的内容之后还有更多。",
		"log.download": "下载完整日志",
		"log.whole":    "，或用 `ql runs logs %[1]s --attempt %[2]d%[3]s` 查看，或用 API 令牌请求 GET /api/v1/runs/%[1]s/log?attempt=%[2]d。",
		"dl.link":      "下载日志", "dl.sofar": "下载日志（截至目前）", "dl.gone": "已被日志保留策略删除",
		"dl.title":         "以文件形式下载第 %d 次尝试的全部输出",
		"dl.title.sofar":   "以文件形式下载第 %d 次尝试到目前为止写下的输出：它仍在运行",
		"dl.notstarted":    "运行 %[2]s 的第 %[1]d 次尝试尚未启动，还没有可下载的输出；它启动后，下载会给出它到那时为止写下的内容。",
		"dl.removed":       "日志保留策略已删除运行 %[2]s 第 %[1]d 次尝试的输出（它有 %[3]d 字节），没有可下载的内容。运行页面仍列出它的尝试和事件。",
		"dl.removed.since": "该运行于 %s 结束，服务器的日志保留策略（--retention-logs、--retention-log-bytes）此后删除了它。",
		"log.removed":      "日志保留策略已删除该尝试的输出（它有 %d 字节）。", "log.none": "没有输出。",
		"log.notyet":  "暂无输出：命令尚未启动，或到目前为止还没有打印任何内容。它打印的内容会随即显示在这里。",
		"log.toomany": "此页未跟随实时输出：此会话已在跟随 %d 个实时日志，已达上限（每个打开的运行中页面占一个）。请关闭其中一些页面，然后刷新本页。",
		"log.stopped": "实时输出已停止：服务器未能在 %s（它给一次读取的最长时间）内读取此运行或其输出（其数据库或磁盘正忙）。上面显示的是它已读取的全部内容；请刷新页面以继续跟随输出。",
		"disabled":    "已停用", "ended": "已结束", "duration": "耗时", "took": "总用时（含排队）", "ran": "运行", "ran.atleast": "至少 %s（至最后一次联系）", "number": "#", "executor": "执行者", "reason": "原因", "count": "次数",
		"enable": "启用", "disable": "停用",
		"trig.done.pause": "已暂停 %s。", "trig.done.resume": "已恢复 %s。", "trig.done.enable": "已启用 %s。", "trig.done.disable": "已停用 %s。",
		"trig.warn.backlog":             "积压：%[1]d 个运行正在排队，尚未启动。要让它们早些运行，请%[4]s；或把 overlap 设为 skip，让前一个运行未结束时到期的触发不再产生运行。",
		"trig.warn.backlog.capped":      "积压：%[1]d 个运行正在排队，因为项目 %[3]s 同时运行的运行数已达到它的 maxRunning 上限。请在定义文件中提高该项目的 maxRunning，或把 overlap 设为 skip，让前一个运行未结束时到期的触发不再产生运行。",
		"trig.warn.backlog.capped.more": "积压：%[1]d 个以上的运行正在排队，因为项目 %[3]s 同时运行的运行数已达到它的 maxRunning 上限。请在定义文件中提高该项目的 maxRunning，或把 overlap 设为 skip，让前一个运行未结束时到期的触发不再产生运行。",
		"trig.warn.backlog.behind":      "积压：%[1]d 个运行正在排队，排在占用槽位的 %[3]s 的运行之后。请暂停该触发器（在它的页面上点“暂停”）；或为它们增加槽位：%[4]s。",
		"trig.warn.backlog.behind.more": "积压：%[1]d 个以上的运行正在排队，排在占用槽位的 %[3]s 的运行之后。请暂停该触发器（在它的页面上点“暂停”）；或为它们增加槽位：%[4]s。", "trig.warn.backlog.more": "积压：%[1]d 个以上的运行正在排队，尚未启动。要让它们早些运行，请%[4]s；或把 overlap 设为 skip，让前一个运行未结束时到期的触发不再产生运行。", "trig.slots": "调高服务器的 `--concurrency`", "trig.slots.workers": "启动更多 worker，或调高它们的 `--concurrency`",
		"trig.warn.starving": "饥饿：最近 %[2]d 个运行中有 %[1]d 个在启动前就被取消（overlap: cancel_previous，且槽位已满）。请增加槽位，或把 overlap 设为 skip 或 queue_one。",
		"batch.help":         "在列表中勾选触发器，然后选择对它们全部执行的操作：", "batch.all": "全选本页", "batch.pick": "选择",
		"batch.title.run": "立即运行：所选触发器", "batch.title.pause": "暂停：所选触发器", "batch.title.resume": "恢复：所选触发器",
		"batch.title.enable": "启用：所选触发器", "batch.title.disable": "停用：所选触发器",
		"batch.summary": "已选 %d 个；完成 %d 个；被拒绝 %d 个。", "batch.outcome": "结果", "batch.done": "完成", "batch.refused": "被拒绝",
		"batch.run.made": "已创建运行：", "batch.run.again": "此表单之前已创建它的运行（表单被再次提交），不再创建第二个：",
		"batch.pause.done": "已暂停。", "batch.pause.same": "它本已暂停，未做任何更改。",
		"batch.resume.done": "已恢复。", "batch.resume.same": "它未被暂停，未做任何更改。",
		"batch.enable.done": "已启用（修订版 %d）。", "batch.enable.same": "它本已启用，未做任何更改。",
		"batch.disable.done": "已停用（修订版 %d）。", "batch.disable.same": "它本已停用，未做任何更改。",
		"batch.untried": "表单在处理到这个触发器之前已用完它的 %s：请在列表中再次勾选它并提交表单。", "batch.untried.label": "未尝试", "batch.summary.untried": "未尝试 %d 个。", "batch.back": "返回触发器列表",
		"err.batchnone": "没有选择任何触发器：请勾选要操作的每个触发器旁的方框，然后再按一次按钮。", "err.batchmany": "选择了 %d 个触发器，而一次表单最多操作 %d 个（列表的一页）；未做任何操作。请少选一些，再提交表单。",
		"newtask": "新建任务", "nt.intro": "一段 Shell 脚本，以及运行它的 cron 计划。其他设置都取默认值；以后可以在项目的定义文件中修改。",
		"nt.invalid": "没有创建任何内容", "nt.blank": "此项必填，请填写。",
		"nt.project": "项目", "nt.projecthelp": "已有的项目，或输入新名称来创建项目（小写字母、数字、“-”、“_”或“.”）。",
		"nt.task": "任务名称", "nt.script": "脚本（由 /bin/sh 运行）", "nt.scripthelp": "最多 131,071 字节；更长的脚本请保存为文件，再运行那个文件。",
		"nt.newscripthelp": "最多 131,071 字节；更长的脚本请保存为文件，再运行那个文件。除非填写了工作目录，脚本在一个新建的空目录中启动：请用完整路径运行脚本文件（`node /ql/scripts/jd_bean_sign.js`），或先 `cd` 到它所在的目录，或在下面填写它所在的目录；这里没有青龙面板的 `task` 命令。",
		"nt.workdir":       "工作目录（可选）", "nt.workdir.shown": "工作目录",
		"nt.workdirhelp": "脚本启动时所在的目录（绝对路径），例如脚本文件夹 /ql/scripts，这样脚本里可以直接写 `node jd_bean_sign.js`；留空则每次尝试都在一个新建的空目录中启动，结束后删除。",
		"nt.cron":        "计划（cron）", "nt.cronhelp": "五个字段：分 时 日 月 星期，例如 `0 3 * * *` 表示每天 03:00；六个字段时第一个是秒，例如 `*/30 * * * * *` 表示每 30 秒。",
		"nt.timezone": "时区（IANA 名称）", "nt.timeout": "超时", "nt.timeouthelp": "命令运行超过这个时长就停止，例如 `30m`、`2h` 或 `1d`；留空则为 1h。",
		"nt.trigger": "触发器名称", "nt.triggerhelp": "留空则与任务同名。",
		"nt.after":    "下一步会显示将要创建的内容；在那里确认之前不会创建任何东西。项目中的其他任务和触发器保持不变。",
		"definitions": "定义", "def.show": "显示", "def.edit": "定义文件（YAML，与 `ql apply` 相同）", "def.upload": "或上传文件",
		"def.previewbtn": "预览变更", "def.preview": "应用后将发生的变更", "def.applied": "已应用", "def.next": "打开项目 %s 的触发器：立即运行，或查看各自的下次触发时间",
		"def.confirm": "应用这些变更", "def.back": "返回编辑", "def.nothing": "没有任何变更。",
		"def.invalid":     "文件无效，未应用任何内容",
		"def.unavailable": "数据库暂时无法使用；文件本身没有错误，请在数据库恢复后重新提交", "def.at": "第 %d 行", "def.atcolumn": "第 %d 行第 %d 列", "def.sep": "：",
		"def.errorcount": "共 %d 个错误。", "def.moreerrors": "另有 %d 个错误未列出，修正以上错误后会列出。",
		"def.kind": "类型", "def.name": "名称", "def.change": "变更", "def.fields": "变更的字段", "def.revision": "（修订版 %d）", "def.notes": "注意",
		"def.keep":      "文件中没有的对象保持不变。",
		"def.keep.form": "项目中的其他任务和触发器保持不变。",
		"def.unlisted":  "条目过多，无法全部带到此页；未列出的",
		"def.short":     "本次应用的说明和细节过大，无法带到此页；下方的项目定义即应用后的样子。",
		"signin.out":    "你已退出登录。如需继续，请重新登录。",
		"signin.idle":   "你的会话已连续 %d 分钟未使用，因此已结束。如需继续，请重新登录。",
		"runs.from":     "创建时间 起始", "runs.to": "创建时间 截止", "runs.last24": "最近 24 小时",
		"runs.window":    "时间窗口按运行的创建时间筛选：通常就是计划时间，但回填会在之后为过去的计划时间创建运行。",
		"runs.notastate": "状态筛选“%s”不是运行可能处于的状态，因此没有列出任何运行；请在状态列表中选择一个：%s。",
		"nt.shown":       "表单将创建的内容", "nt.created": "已创建的内容", "nt.shown.script": "脚本（由 %s 运行）",
		"def.help":      "项目的全部任务（包括没有触发器运行的任务）和全部触发器的当前修订版，与 `ql export` 的输出相同。",
		"def.help.none": "尚未选择项目：在上方选择一个项目即可在此查看其任务和触发器，或编写一个以 project: 指定新项目的定义文件，应用后即创建该项目。",
		"def.nopublish": "此服务器无法发布定义：其数据库角色无权发布（集群副本以 runtime 角色运行）。" +
			"下面的文件仅供查看和复制：要修改项目，请把它保存为文件，编辑后用 admin 角色的数据库 URL 运行 `ql apply -f FILE`，" +
			"或对能发布定义的服务器运行 `ql apply -f FILE --api-url URL`（admin 令牌放在 `$QL_TOKEN` 中）。",
		"user": "用户名", "password": "密码", "signin.user": "使用用户账号", "signin.token": "使用 API 令牌",
		"signin.userhelp":  "账号在服务器上创建：第一个用 `ql users create NAME --owner%s`（之后的账号用 `--role viewer`、`--role operator` 或 `--role owner`）。",
		"signin.adminrole": "在本集群上，请先把 admin 角色的数据库 URL 放进 $QL_DATABASE_ADMIN_URL 再运行（`ql users` 和 `ql tokens` 读取它）：本服务器自身的角色不能创建账号或令牌。",
		"err.badlogin":     "用户名或密码错误，或账号已停用。", "err.nousers": "此服务器没有用户账号；请用 API 令牌登录。",
		"err.throttled": "此处或此用户登录失败次数过多；请等待一分钟后重试。",
		"err.busy":      "同时登录的人太多；请几秒后重试。",
		"tokens":        "令牌", "name": "名称", "scope": "权限范围", "expires": "过期时间", "lastused": "最近使用",
		"tok.new": "新建令牌", "tok.create": "创建令牌", "tok.list": "全部令牌", "tok.revoke": "吊销",
		"tok.projects": "项目", "tok.everyproject": "所有项目",
		"tok.created": "令牌已创建", "tok.once": "请立即复制：它只显示这一次，且不会被保存。",
		"tok.help":    "有效期范围 1m 到 3650d，例如 90d、12h 或 1d12h；留空则永不过期。",
		"tok.expires": "有效期（留空：永不过期）", "tok.copy": "复制令牌", "tok.copied": "已复制",
		"tok.copyfailed": "复制失败：请选中令牌后手动复制",
		"tok.nametitle":  "令牌名称：1–128 个小写字母、数字、“-”、“_”或“.”，以字母或数字开头和结尾。",
		"health":         "准入", "lag": "准入延迟（最近 24 小时按时准入的运行；停机后的补跑不计）", "backlog": "积压（已到期尚未处理的计划）",
		"local.title":           "命令在哪里执行",
		"local.here":            "本服务器在本机自行执行每一条命令：无需连接其他机器，这里也没有需要启动或照看的东西。运行列表列出正在执行的命令，每个运行的页面显示其输出。",
		"local.concurrency":     "它最多同时执行 %d 条命令，其余的排队等候（用 `ql serve --concurrency N` 设置数量）。",
		"local.concurrency.one": "它一次执行 %d 条命令，下一条排队等候（用 `ql serve --concurrency N` 设置数量）。",
		"local.cluster":         "远程执行节点（在其他机器上执行命令）属于集群配置：多台服务器共用一个 PostgreSQL 数据库。单节点服务器没有远程执行节点，也不需要。",
		"local.edge":            "要在其他机器上执行命令，需要完整版的 ql 程序。",
		"oldest":                "最早到期", "workers": "执行节点", "worker": "执行节点", "worker.runs": "执行节点 %s 运行过的运行", "runs.worker": "执行节点名称", "sessions": "会话", "freeslots": "空闲槽位", "heartbeat": "最近心跳", "heartbeat.ago": "%s前", "workersilent": "已 %s 没有消息：错过了至少两次心跳；租约（45 秒）到期之前，它的会话仍被计入", "workerstopping": "进程正在停止：完成手上的命令，不再接收新的运行", "workerresumed": "已恢复：进程已收到排空，完成手上的命令后退出；再次启动后接收工作",
		"th.sessions": "会话", "th.freeslots": "空闲槽位", "labels": "标签", "th.reads": "读取字段", "worker.readsnone": "无：早于项目 env 构建，不会被分配设置了 env 的项目的运行；请升级（ql-worker --version）",
		"rerun": "重新运行", "rerunof": "重新运行自", "rerunas": "重新运行为", "nextfive": "接下来 5 次触发", "lastrun": "最近一次运行", "run.taskrev": "（修订版 %d）", "run.nextretry": "下次重试", "nofires": "无：触发器已结束",
		"zone.unknown": "此服务器不认识时区“%s”（时区名区分大小写，如 Europe/Berlin、America/New_York）；时间仍按 %s 显示。",
		"zone.case":    "此服务器不认识时区“%s”（时区名区分大小写）：是否应写作 %s？时间仍按 %s 显示。",
		"zone.local":   "“Local” 指本服务器自身的时区，控制台不会默认采用它（触发器也不会）：请写 IANA 时区名，如 Asia/Shanghai、Europe/Berlin 或 UTC。时间仍按 %s 显示。",
		"zone.cron":    "（计划按 %s 时区解读）",
		"from":         "起始", "to": "截止", "zone": "时区", "due": "（抖动后 %s 到期）",
		"replicas": "副本", "replica": "副本", "rep.live": "个在线", "rep.expired": "已过期", "host": "主机", "pid": "进程号", "version": "版本",
		"started": "启动时间", "lastseen": "最近在线",
		"run": "运行", "yourtime": "你的时间", "allruns": "它的全部运行",
		"ledger.more":    "这里只显示已跳过记录中最新的 %d 条，还有更早的记录。用 `ql triggers show %s --ledger %d%s` 查看全部记录。",
		"nofires.paused": "暂停期间没有", "nofires.disabled": "停用期间没有",
		"nofires.zone": "无：此服务器不认识它的时区", "nofires.cron": "无：此服务器无法解析它的计划",
		"zone.trigger": "此服务器不认识该触发器的时区“%s”：服务器主机的时区数据库中没有这个时区（触发器由时区数据库较新的服务器发布）。" +
			"此服务器无法算出该触发器的发生时刻，因此调度无法处理它，它的时间在这里按 UTC 显示。" +
			"请在该主机上安装较新的时区数据库（tzdata 软件包），或用 ZONEINFO 指向含有该时区的时区数据库并重启服务器，或使用较新版本的服务器（它自带的时区数据在主机缺少时区时使用）；" +
			"也可以在项目为活动状态时，用本主机认识的时区重新应用该触发器（“定义”页或 `ql apply -f FILE`）。",
		"nextfires.unknown": "未列出：此服务器不认识以下触发器的时区（服务器主机的时区数据库中没有），或无法解析它们的计划，因此在这里算不出它们的下次触发；各触发器页面说明了解决办法：",
		"pause.off":         "触发器停用或其项目归档期间不提供暂停与恢复：它的任何运行都不会进行。已有的暂停在它重新启用或其项目恢复为活动状态后仍然有效；届时再恢复它。",
		"audit":             "暂停、恢复、启用与停用记录", "audit.when": "时间", "audit.action": "操作", "audit.by": "操作者",
		"audit.more":       "这里只显示最新的 %d 条审计记录，还有更早的记录（trigger_schedule_audit 表保存全部记录）。",
		"audit.unreadable": "无法显示审计记录：此服务器的数据库角色无权读取它（其授权早于当前版本）。请以超级用户身份运行 `ql db roles` 授予该权限。",
		"archived":         "项目已归档", "nofires.archived": "项目归档期间没有",
		// A trigger's policies on its page, as `ql triggers show` prints
		// them (view.Cron.Policies), each with what it does.
		"pol.misfire": "错过策略", "pol.overlap": "重叠策略", "pol.jitter": "抖动（jitter）", "pol.startAt": "起始时间（startAt）",
		"pol.endAt": "结束时间（endAt）", "pol.catchUpWindow": "补跑窗口（catchUpWindow）",
		"pol.jitter.help":        "每次发生时刻在其名义时间之后最多推迟这么久，于其到期时间准入",
		"pol.startAt.help":       "触发器在此之前没有发生时刻",
		"pol.endAt.help":         "触发器在此之后没有发生时刻",
		"pol.catchUpWindow.help": "早于此时长的错过发生时刻被跳过，不会运行",
		// The notifications page (notifications.go) and the overview's
		// count of dead notifications.
		"au.title": "审计", "au.at": "时间", "au.actor": "操作者", "au.action": "操作", "au.object": "对象",
		"au.help":       "谁在何时改了什么，按时间从新到旧：创建和吊销 API 令牌，创建、停用、启用、删除控制台用户或为其设置密码，暂停和恢复项目与触发器，启用和停用触发器，重试通知，测试渠道。每条记录都与其改动一同写入，且永不删除；记录中不含令牌、密码或命令的环境变量。",
		"au.empty":      "还没有任何改动：创建或吊销令牌、修改用户、暂停或重试通知都会记录在这里。",
		"notifications": "通知", "nt.channel": "渠道", "nt.rule": "规则", "nt.lasterror": "最近错误", "nt.next": "下次尝试",
		"nt.handretry":    "其中 %d 次在 %s 手动重试之前",
		"nt.retriedby":    "由 %s 手动重试",
		"nt.duenow":       "现在",
		"nt.output":       "引用的输出（运行最后一次尝试的末尾几行，按渠道的 output: 设置）",
		"nt.detail":       "详情",
		"nt.failed":       "发送失败（原文见详情）",
		"nt.retry":        "重试",
		"nt.channels":     "本项目的渠道",
		"nt.channelshelp": "“发送测试”会像发送运行的通知一样，向该渠道发送一条标明为测试的消息，并告诉你接收方是否收下。它不会产生通知记录；审计记录会记下是谁测试了该渠道以及结果。",
		"nt.test":         "发送测试",
		"nt.test.ok":      "测试消息已送达渠道 %s：接收方回应 %d。",
		"nt.test.mail":    "测试消息已送达渠道 %s：邮件服务器已接收。",
		"nt.test.failed":  "测试消息未送达渠道 %s：%s —— %s。请修复渠道、其密钥或接收方后再测试。",
		"nt.retried":      "通知 %s 已重新进入待发送状态，尝试次数保留：服务器将在下一轮以相同的幂等键发送它。",
		"nt.help":         "无法送达（dead）的通知在每次尝试时都被拒绝或没有应答：没有人得知那次失败。请先修复其渠道（URL、密钥或接收方），再重试。已送达和无法送达的通知在超过服务器的 --retention-notifications 后会被删除。",
		"nt.streak":       "连续 %d 次失败",
		"nt.dead":         "%d 条通知无法送达（dead）：没有人得知这些失败。",
		"nt.deadmore":     "超过 %d 条通知无法送达（dead）：没有人得知这些失败。",
		"nt.seedead":      "查看无法送达的通知",
		"nt.empty":        "还没有发送过任何通知。通知发往哪里、何时发送，由项目定义文件的 `notifications:` 部分决定：其中的渠道（webhook、邮件、聊天或推送服务）以及使用它们的规则（运行失败、连续多次失败、恢复等）。可在“定义”页或用 `ql apply` 添加；每种渠道的写法见 docs/notifications.md。",

		// What the rule a notification was sent by covers (scopeText).
		"nt.scope.project": "适用于整个项目 %s", "nt.scope.triggers": "触发器 %s", "nt.scope.tasks": "任务 %s",
		"nt.scope.gone": "该规则此后已更改或删除",

		"nt.test.unrecorded": "审计记录没有写入这次测试：请另行记下是谁做的测试，并修复数据库；服务器日志以代码 audit.not_recorded 记下了它。",
		"nt.ch.kind":         "类型", "nt.ch.target": "目标", "nt.ch.on": "触发事件", "nt.ch.language": "语言", "nt.ch.zone": "时区",
		"nt.ch.none": "没有规则发往此渠道", "nt.ch.en": "英文", "nt.ch.zh": "中文", "nt.ch.utc": "UTC（与载荷中的时间相同）",
		"nt.ch.help": "与项目定义文件中的设置一致（只读；请在“定义”页面或用 `ql apply` 修改）。密钥只显示名称，从不显示其值。",

		"err.400": "请求无效", "err.401": "你已退出登录", "err.403": "不允许",
		"err.404": "未找到", "err.405": "不支持此请求", "err.render": "无法生成此页面；原因见服务器日志。",
		"err.method": "此地址不接受 %s 请求，只接受 %s。请通过控制台中的链接打开页面，并用表单上的按钮提交表单。", "err.409": "未执行", "err.410": "已删除", "err.413": "内容过大", "err.500": "出错了",
		"err.503": "暂时不可用", "err.504": "耗时过长", "err.back": "返回", "err.signinagain": "重新登录",
		"err.scope": "你的会话权限为“%s”，不允许此操作；需要“%s”权限。", "err.signedout": "你的会话已结束，请重新登录。",
		"err.idle":                 "你的会话因长时间未使用已结束；请重新登录，然后再次提交表单。",
		"err.overlap":              "触发器未运行：它更早的运行 %s 尚未结束，其重叠策略不允许再运行一次。请等待它结束，或取消它。",
		"err.rerunoverlap":         "未重新运行：该触发器更早的运行 %s 尚未结束，其重叠策略不允许再运行一次。",
		"err.overlap.waiting":      "触发器未运行：它的运行 %s 已在队列中等待之前一个尚未结束的运行，其重叠策略（queue_one）只允许一个运行等待。请等待它们结束，或取消其中一个。",
		"err.rerunoverlap.waiting": "未重新运行：该触发器的运行 %s 已在队列中等待之前一个尚未结束的运行，其重叠策略（queue_one）只允许一个运行等待。",
		"tok.revoked":              "令牌已吊销",
		"tok.confirm":              "吊销令牌 %s？",
		"tok.confirm.what":         "此后用它登录或调用 API 都会被拒绝。吊销的令牌不能再恢复；仍需要时请新建一个。",
		"tok.keep":                 "保留",

		// The secrets page.
		"secrets": "密钥", "sec.set": "设置密钥", "sec.name": "名称", "sec.value": "值", "sec.save": "保存密钥", "sec.list": "全部密钥",
		"sec.howto":     "任务以环境变量读取密钥：在项目定义文件的任务下写 `env: {JD_COOKIE: {secret: JD_COOKIE}}`（先写环境变量名，再写密钥名），命令即可从 `$JD_COOKIE` 读到这里设置的值，用 & 或换行分隔的多个账号也原样传入。通知渠道在 `urlSecret`、`tokenSecret` 等字段中按名称引用密钥。",
		"sec.intro":     "任务的环境变量或通知渠道按名称引用的值，保存在本机的 %s 中（权限 0600）。值可以在这里设置或替换，之后不会再显示。",
		"sec.elsewhere": "此服务器不执行命令，因此不保存密钥：每台执行命令的机器从它自己的密钥文件读取密钥。请在那台机器上用 `ql secrets set 名称 --secrets-file 文件` 编辑。",
		"sec.namehelp":  "1–128 个字母、数字、“_”、“.”或“-”，即任务的环境变量和通知渠道引用的名称。已定义的名称会改用新值。",
		"sec.nametitle": "密钥名称：1–128 个字母、数字、“_”、“.”或“-”；以“项目/”开头的密钥只有该项目可以引用。",
		"sec.valuehelp": "至少 4 个字节，以便在输出中遮蔽；多行内容按输入原样保存（如 PEM 密钥、Cookie）。保存后不会在任何地方再显示。",
		"sec.usedby":    "使用者", "sec.defined": "已定义", "sec.missing": "缺失：被使用但未定义", "sec.unused": "没有定义使用它",
		"sec.replace": "替换", "sec.define": "设置", "sec.delete": "删除", "sec.keep": "保留", "sec.none": "没有定义或使用任何密钥。",
		"sec.usetask": "任务 %s，环境变量 %s", "sec.usechannel": "通知渠道 %s", "sec.archived": "项目已归档，不运行也不发送",
		"sec.usesunknown":   "此服务器不读取定义：这里无法知道哪些任务使用某个密钥。",
		"sec.incomplete":    "并非每个项目的定义都已读取（项目超过 1000 个，或某个项目的任务多于一个文件的上限）：只被这些项目使用的名称不会列为缺失。",
		"sec.done.created":  "密钥 %s 已创建。下一次需要它的运行会读取它，无需重启。",
		"sec.done.replaced": "密钥 %s 已替换。下一次需要它的运行会读取新值（已经开始的运行仍使用旧值），无需重启。",
		"sec.done.deleted":  "密钥 %s 已删除。", "sec.done.absent": "没有名为 %s 的密钥，未做任何更改。", "sec.done.uses": "使用它的有：",
		"sec.done.fail":      "在重新设置之前，以下各项会因 secret_unavailable 而失败：",
		"sec.confirm":        "删除密钥 %s？",
		"sec.confirm.uses":   "删除后，以下各项的每次运行或通知都会因 secret_unavailable 而失败，直到重新设置：",
		"sec.confirm.unused": "没有定义使用它。",
		"sec.open":           "在密钥页面设置密钥",
		"sec.unusable":       "密钥文件 %s 无法使用：%s。修复之前无法列出或设置密钥。",
		"sec.err.name":       "“%s”不是有效的密钥名称：请使用 1–%d 个字母、数字、“_”、“.”或“-”，即任务的环境变量和通知渠道引用的名称。",
		"sec.err.empty":      "为空：请输入密钥的值。",
		"sec.err.short":      "只有 %d 个字节，至少需要 %d 个，才能在输出中遮蔽它而不误遮无关的文字；请输入更长的值，若它并不机密，请改用普通的环境变量值。",
		"sec.err.long":       "有 %d 个字节，上限是 %d（环境变量值的上限）；更大的内容请放在命令读取的文件中。",
		"sec.err.nul":        "含有 NUL 字节，环境变量值不能包含它。",
		"sec.err.utf8":       "不是 UTF-8 文本；二进制数据请编码（base64、hex）后保存，并在命令中解码。",

		"err.toolarge":     "表单大于 %d KiB，超过此页面的上限；请减少内容。",
		"err.csrf":         "表单缺少 CSRF 令牌或已过期；请刷新页面后重试。",
		"err.internal":     "服务器无法完成此操作；原因见其日志。",
		"err.timeout":      "此页面耗时超过 %s，即服务器给一个页面的最长时间：其数据库正忙（保留清理、大量定义的应用或回填），或此页面一次请求的内容过多。请稍后重试，或减少请求的内容（更短的回填时间窗口、更窄的筛选条件）。",
		"err.nolog":        "此服务器无法读取日志。",
		"err.nopage":       "这里没有这个页面。",
		"err.sessioncheck": "服务器暂时无法核对你的会话（其数据库没有应答）；你仍处于登录状态，请稍后重试。",
		"err.sessionstart": "未能登录：数据库未及时响应，会话没有保存。请稍后重试。",
		"err.signoutstore": "尚未退出登录：数据库未及时响应，会话仍然有效。请稍后重试。",
		"err.tokenstore":   "令牌存储没有应答，请重试。",
		"err.tokenbound":   "此令牌绑定了项目，而令牌的控制台会话不受项目限制：它不能在此登录。请通过 API 或 `ql --api-url` 使用它，或用绑定了这些项目的账号（`ql users create NAME --project P`）登录，或用适用于所有项目的令牌或账号登录。",
		"err.userstore":    "用户存储没有应答，请重试。",
		"err.signincsrf":   "登录表单缺少 CSRF 令牌或已过期，请在本页重新登录。",
		"err.crossform":    "此表单是从其他站点或地址的页面提交的，而控制台只接受从它自己的页面提交的登录和初始设置表单。请在控制台自己的地址打开它，并在那里填写表单。",
		// Why a queued Run waits (waitingText): a cluster Run for a worker.
		"wait.title":              "等待原因",
		"wait.no_worker":          "没有任何执行节点连接，因此无法运行。请用 ql-worker --server URL --credential-file FILE 启动一个（用 ql workers create NAME 创建其凭据）。",
		"wait.workers_draining":   "所有已连接的执行节点（%d 个）都在排空，不再接收新的运行（被 ql workers drain 排空，或其进程正在停止、先完成手上的命令）。请用 ql workers resume NAME 恢复被排空的节点，或再启动一个。",
		"wait.no_matching_worker": "其任务的 placement 要求标签 %s，但 %d 个在线执行节点中没有一个同时具备这些标签。请启动带有这些标签的执行节点，或修改任务的 placement.labels。",
		"wait.workerlabels":       "在线执行节点的标签：%s。",
		"wait.workers_too_old":    "其项目设置了 env，但其 placement 允许的 %d 个在线执行节点（%s）都不读取它：早于项目 env 构建的执行节点会在没有项目变量的情况下启动命令，因此不会把该运行交给它们。请升级执行节点（ql-worker --version 显示其版本；执行节点页面显示哪些读取 projectEnv），或启动一个已升级的节点。",
		"wait.workers_busy":       "正在等待其 placement 允许的 %d 个在线执行节点（%s）空出槽位：每个节点运行的命令数都已达到其并发上限。",
		"wait.nolabels":           "无标签",
		"wait.waits_for_previous": "其触发器的重叠策略（queue_one，或 cancel_previous 在其取消的运行停止期间）让它等到更早的运行 %s 结束。",
		// Why a queued single-node Run waits for its server.
		"wait.server_busy":      "它在排队等候：%d/%d 个命令正在运行，已达服务器 --concurrency 允许的上限；每有一个结束，就启动最早排队的运行，轮到此运行时即启动。",
		"wait.server_starting":  "服务器稍后即启动它（%d/%d 个正在运行）。",
		"wait.project_archived": "项目 %s 已归档；项目恢复为活动状态后此运行才会启动（在定义中设置 status: active 并应用）。",
		"wait.holders":          "占用这些槽位的是以下触发器的运行：%s。",
		"wait.project_busy":     "它在等待所属项目：项目 %s 正在运行 %d 个运行，已达其 maxRunning 上限 %d，空出的槽位先给其他项目的运行；该项目的运行每结束一个，就启动其最早排队的运行，轮到此运行时即启动。请在定义文件中调高该项目的 maxRunning，或暂停占用其份额的触发器。",
		"wait.holders.sep":      "、",
		"wait.holders.more":     "%s，另有 %d 个触发器",
		// The backfill form, its preview and its result (backfill.go).
		"bf.title": "回填", "bf.window": "回填窗口", "bf.previewbtn": "预览回填", "bf.zone": "时间按 %s 时区。",
		"bf.help":        "为两个时刻之间（含两端）每个还没有运行的计划发生时刻创建一个运行，与调度当时会创建的相同：已经运行过或已回填过的发生时刻不会再运行。只处理调度下次触发之前的发生时刻。暂停与重叠策略不适用。每次最多 %d 个发生时刻；确认预览之前不会创建任何内容。",
		"bf.preview":     "回填将会做的事",
		"bf.occurrences": "窗口内的发生时刻", "bf.first": "第一个", "bf.last": "最后一个",
		"bf.new": "将创建的运行", "bf.admitted": "已创建的运行", "bf.existing": "已有运行",
		"bf.confirm": "创建 %d 个运行",
		"bf.nothing": "无需创建：窗口内每个发生时刻都已有运行。",
		"bf.none":    "窗口内没有可回填的发生时刻：只能回填调度下次触发之前、触发器起止时间之内的发生时刻。",
		"bf.done":    "回填完成", "bf.runs": "新建的运行：", "bf.more": "另有 %d 个", "bf.timeline": "它的时间线",
		"bf.off": "触发器停用或其项目归档期间不提供回填：它的任何运行都不会进行。",
		// Why a window holding occurrences took none (schedule.NoneReason),
		// naming the instant in the form's zone.
		"bf.none.before_start": "窗口内没有触发器起始时间（startAt）%[1]s 及之后的发生时刻，而触发器在此之前没有发生时刻。请把窗口移到 %[1]s 或之后。",
		"bf.none.after_end":    "窗口内没有触发器结束时间（endAt）%[1]s 及之前的发生时刻，而触发器在此之后没有发生时刻。请把窗口移到 %[1]s 或之前。",
		"bf.none.not_decided":  "从 %[1]s 起的发生时刻尚未确定：它们由调度自行准入，回填不会处理。请让窗口在 %[1]s 之前结束。",
		// The Edit task and Edit schedule forms (edittask.go, editschedule.go).
		"edit.unnamed": "此地址没有指明要编辑的内容：请在触发器页面上用“编辑任务”或“编辑计划”按钮打开表单。",
		"edittask":     "编辑任务", "et.script": "脚本", "et.shell": "由 %s 运行。",
		"et.intro":   "任务的脚本、工作目录、超时和环境变量。任务的其他设置（重试、运行用户等）保持不变；要修改它们，请编辑项目的定义文件。",
		"et.invalid": "没有修改任何内容", "et.required": "请填写脚本。",
		"et.yours":    "你提交的内容（未应用）：下面的表单显示任务现在的内容，请在其上重新做你的修改。",
		"et.openfile": "打开项目的定义文件", "et.list": "编辑任务的脚本：",
		"et.after":     "下一步会显示将要发生的变更；在那里确认之前不会修改任何内容。任务的触发器会运行新脚本；项目中的其他任务和触发器保持不变。",
		"editschedule": "编辑计划", "es.heading": "编辑 %s/%s 的计划", "es.required": "请填写计划和时区。",
		"es.intro": "触发器的 cron 计划和时区。它仍运行任务 %s，其他设置（错过策略、抖动、重叠策略等）保持不变；要修改它们，请编辑项目的定义文件。",
		"es.yours": "你的计划（未应用；下面的表单显示触发器现在的内容）：",
		"es.after": "下一步会显示将要发生的变更；在那里确认之前不会修改任何内容。项目中的其他任务和触发器保持不变。",
	},
}

// tr is key's words in lang, English's where lang has none, and "" for a
// key no language has (missingKey is told of it).
func tr(lang, key string) string {
	if s, ok := messages[lang][key]; ok {
		return s
	}
	s, ok := messages["en"][key]
	if !ok {
		missingKey(key)
	}
	return s
}

// missingKey is told of each key tr was asked for that no language has: a
// misspelt key, or a sentence not yet written, which a page would show as
// nothing. A served page goes on without the sentence; under a test,
// whichever package's, it panics naming the key, and the page fails (a
// template's call of tr is an error, a handler's a panic the server
// reports), so that a key built as the page runs is caught by any test
// that shows it.
func missingKey(key string) {
	if testing.Testing() {
		panic(fmt.Sprintf("console: no language has the words %q; add them to both catalogues (i18n*.go), or mend the key's spelling", key))
	}
}

// trCount is key's words in l for the count n: its singular form
// (key.one) when n is 1 and l has one, as English does and Chinese, which
// does not inflect nouns for number, does not.
func trCount(l, key string, n int) string {
	if s, ok := messages[l][key+singular]; ok && n == 1 {
		return s
	}
	return tr(l, key)
}

// singular ends the key of a message's form for a count of one.
const singular = ".one"

// lang is the request's language: ?lang=, then the switch's cookie, then
// the language of Accept-Language's highest weight this console speaks
// (the first of equal weights), then English.
func lang(r *http.Request) string {
	if q := r.URL.Query().Get("lang"); messages[q] != nil {
		return q
	}
	if ck, err := r.Cookie(langCookie); err == nil && messages[ck.Value] != nil {
		return ck.Value
	}
	best, bestQ := "en", 0.0
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag, params, _ := strings.Cut(part, ";")
		tag = strings.ToLower(strings.TrimSpace(tag))
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		for _, l := range []string{"zh", "en"} {
			if strings.HasPrefix(tag, l) && q > bestQ {
				best, bestQ = l, q
			}
		}
	}
	return best
}

// when formats epoch milliseconds in zone (UTC when empty or unknown),
// always with the zone's offset (zoneLabel).
func when(ms int64, zone string) string {
	t := time.UnixMilli(ms).In(zoneOf(zone))
	return t.Format("2006-01-02 15:04:05 ") + zoneLabel(t)
}

// whenMs is when with the milliseconds.
func whenMs(ms int64, zone string) string {
	t := time.UnixMilli(ms).In(zoneOf(zone))
	return t.Format("2006-01-02 15:04:05.000 ") + zoneLabel(t)
}

// zoneLabel names the offset from UTC of t's zone at t, such as
// UTC+08:00, or UTC where it is none. A zone's abbreviation would be
// shorter but is ambiguous: CST is China's, US Central and Cuba's, IST
// India's, Ireland's and Israel's, and zones without one get a bare
// "+08". The offset reads the same in every language, names the instant
// exactly, even in the hour a clock turned back shows twice, and a page
// says by its IANA name which zone its times are in.
func zoneLabel(t time.Time) string {
	if _, offset := t.Zone(); offset == 0 {
		return "UTC"
	}
	return "UTC" + t.Format("-07:00")
}

// fireText is an occurrence's nominal time in zone and, when jitter moves
// it, its due time, the instant it is admitted, as `ql triggers show`
// prints them. The "due" words carry their own space before them: Chinese
// puts none before its full-width parenthesis. Each time is a span that
// does not wrap (class "time"): a phone would otherwise break a date after
// its hyphens or part a time from its offset, and a line with a due time
// wraps between the times and the words, never inside a time.
func fireText(l string, atMs, dueMs int64, zone string) template.HTML {
	if dueMs == atMs {
		return unbroken(when(atMs, zone))
	}
	at, due := when(atMs, zone), when(dueMs, zone)
	if due == at {
		// A jitter under a second: in whole seconds the due time would
		// read as the fire time, as if it said nothing.
		due = whenMs(dueMs, zone)
	}
	// The words around the due time are kept whole too: Chinese, which
	// may break between any two of its characters, would otherwise part
	// 抖动后 or 到期 on a phone.
	before, after, _ := strings.Cut(tr(l, "due"), "%s")
	return unbroken(at) + wholeWords(before) + unbroken(due) + wholeWords(after)
}

// unbroken is the time t as a span a line does not break.
func unbroken(t string) template.HTML {
	return template.HTML(`<span class="time">` + escapeText(t) + `</span>`) //nolint:gosec // G203: t is escaped
}

// wholeWords is s with each of its words (parted by spaces) a span a line
// does not break: a line breaks only at s's spaces.
func wholeWords(s string) template.HTML {
	words := strings.Split(s, " ")
	for i, w := range words {
		if w != "" {
			words[i] = `<span class="nowrap">` + escapeText(w) + `</span>`
		}
	}
	return template.HTML(strings.Join(words, " ")) //nolint:gosec // G203: each word is escaped
}

// triggerState is a trigger's state in words: archived (its project is;
// nothing else about it matters until the project is active again), else
// disabled, paused, ended (past its endAt) or active.
func triggerState(l string, t schedule.TriggerStatus) string {
	if t.Archived {
		return tr(l, "archived")
	}
	var parts []string
	if !t.Enabled {
		parts = append(parts, tr(l, "disabled"))
	}
	switch {
	case t.PausedWithProject:
		parts = append(parts, tr(l, "paused.with_project"))
	case t.Paused:
		parts = append(parts, tr(l, "paused"))
	}
	if t.Ended {
		parts = append(parts, tr(l, "ended"))
	}
	if len(parts) == 0 {
		return tr(l, "active")
	}
	return strings.Join(parts, " · ")
}

// firesWhy is the key suffix of the fires list's empty text for a
// trigger: none fire while its project is archived, while it is disabled
// or paused, while this server cannot read its stored schedule (its zone,
// which the zone database here lacks, or its cron), or once it ended.
func firesWhy(t schedule.TriggerStatus) string {
	switch {
	case t.Archived:
		return ".archived"
	case !t.Enabled:
		return ".disabled"
	case t.Paused:
		return ".paused"
	}
	if storedZoneUnknown(t) != "" {
		return ".zone"
	}
	if _, err := cron.Parse(t.Cron.Expression, t.Cron.Timezone); err != nil {
		return ".cron"
	}
	return ""
}

// storedZoneUnknown is t's zone when this server does not know it (the
// zone database of its host lacks it: a server with a newer one published
// the trigger), else "".
func storedZoneUnknown(t schedule.TriggerStatus) string {
	if cron.CheckTimezone(t.Cron.Timezone) != nil {
		return t.Cron.Timezone
	}
	return ""
}

// waitingText says in l why a queued Run has not started (why no worker
// takes a cluster Run, why a single-node server does not start one yet),
// "" when nothing keeps it waiting (w is nil). A page is served by a
// running server, which knows its --concurrency, so server_busy and
// server_starting have it;
// no_server, which only a read of the database beside the server finds,
// never reaches a page.
func waitingText(l string, w *run.Waiting) string {
	if w == nil {
		return ""
	}
	labels := func(m map[string]string) string {
		if len(m) == 0 {
			return tr(l, "wait.nolabels")
		}
		return workerLabels(m)
	}
	switch w.Reason {
	case run.WaitNoWorker:
		return tr(l, "wait.no_worker")
	case run.WaitWorkersDraining:
		return fmt.Sprintf(tr(l, "wait.workers_draining"), w.Workers)
	case run.WaitNoMatchingWorker:
		text := fmt.Sprintf(trCount(l, "wait.no_matching_worker", w.Workers), labels(w.Labels), w.Workers)
		if len(w.WorkerLabels) > 0 {
			sets := make([]string, 0, len(w.WorkerLabels))
			for _, m := range w.WorkerLabels {
				sets = append(sets, "{"+labels(m)+"}")
			}
			text += " " + fmt.Sprintf(tr(l, "wait.workerlabels"), strings.Join(sets, " "))
		}
		return text
	case run.WaitWorkersTooOld:
		return fmt.Sprintf(trCount(l, "wait.workers_too_old", w.Workers), w.Workers, labels(w.Labels))
	case run.WaitWorkersBusy:
		return fmt.Sprintf(trCount(l, "wait.workers_busy", w.Workers), w.Workers, labels(w.Labels))
	case run.WaitPrevious:
		return fmt.Sprintf(tr(l, "wait.waits_for_previous"), w.PreviousRun)
	case run.WaitServerBusy:
		return fmt.Sprintf(trCount(l, "wait.server_busy", w.Running), w.Running, w.Concurrency) + holdersText(l, w)
	case run.WaitServerStarting:
		return fmt.Sprintf(tr(l, "wait.server_starting"), w.Running, w.Concurrency)
	case run.WaitProjectArchived:
		return fmt.Sprintf(tr(l, "wait.project_archived"), w.Project)
	case run.WaitProjectBusy:
		return fmt.Sprintf(tr(l, "wait.project_busy"), w.Project, w.Running, w.MaxRunning) + holdersText(l, w)
	}
	return string(w.Reason)
}

// holdersText is the sentence, in l, naming the triggers whose Runs hold a
// busy server's slots with how many each holds; "" when none is known.
func holdersText(l string, w *run.Waiting) string {
	if len(w.Holders) == 0 {
		return ""
	}
	// The English sentence begins with the space that parts it from the
	// one before; the Chinese needs none.
	return fmt.Sprintf(tr(l, "wait.holders"), holdersList(l, w.Holders, w.MoreHolders))
}

// holdersList names, in l, the triggers holding a server's slots with how
// many each holds, and how many more triggers hold one.
func holdersList(l string, holders []run.SlotHolder, more int) string {
	parts := make([]string, 0, len(holders))
	for _, h := range holders {
		parts = append(parts, fmt.Sprintf("%s/%s (%d)", h.Project, h.Trigger, h.Runs))
	}
	list := strings.Join(parts, tr(l, "wait.holders.sep"))
	if more > 0 {
		list = fmt.Sprintf(trCount(l, "wait.holders.more", more), list, more)
	}
	return list
}

// backfillNone says in l why the backfill r took no occurrence, naming the
// instant it stands on in zone (the form's): the reason's sentence, or the
// general one when r gives no reason.
func backfillNone(l string, r *schedule.BackfillResult, zone string) template.HTML {
	if r.NoneTaken.Reason == "" {
		return formatText(tr(l, "bf.none"))
	}
	return formatText(tr(l, "bf.none."+string(r.NoneTaken.Reason)), unbroken(when(r.NoneTaken.AtMs, zone)))
}

// signedOutFlags is dbFlags as a page shown before signing in gives
// them: a placeholder for the data directory's path.
func signedOutFlags(dbFlags string) string {
	if dbFlags == "" {
		return ""
	}
	return " --data-dir DATA_DIR"
}

// funcs are the pages' functions for a console served by binary: the
// catalogue's sentences name its commands with binary (asBinary) before
// any value is put in them, so only the console's own words are renamed.
func funcs(binary, dbFlags string) template.FuncMap {
	return template.FuncMap{
		"dbflags": func() string { return dbFlags },
		// The sign-in page is read by whoever reaches the server, before
		// signing in: its commands name the data directory's flag, never
		// the directory's path.
		"dbflagsSignedOut": func() string { return signedOutFlags(dbFlags) },
		// A name no one checked (a script's, which a pulled repository
		// chose) shows its control and text-direction characters as
		// escapes, so that it cannot read as another.
		"visible": visibleControls,
		// t, tf and tn give the catalogue's words as HTML (prose): the
		// commands in them show as code.
		"t": func(l, key string) template.HTML { return prose(cmdname.As(binary, tr(l, key))) },
		"tf": func(l, key string, args ...any) template.HTML {
			return formatProse(cmdname.As(binary, tr(l, key)), args...)
		},
		// tn is key's words for the count n (trCount), with n in them.
		"tn": func(l, key string, n int) template.HTML {
			return prose(fmt.Sprintf(cmdname.As(binary, trCount(l, key, n)), n))
		},
		// prose shows an error's message, or another sentence built in
		// Go, with its commands as code.
		"prose":          prose,
		"bfNone":         backfillNone,
		"attemptWhy":     attemptWhy,
		"attemptState":   attemptState,
		"stopNote":       stopNote,
		"attemptMessage": attemptMessage,
		"exitHint":       exitHint,
		"auditNote":      auditNote,
		"eventName":      eventName,
		"labels":         workerLabels,
		"eventFacts":     eventFacts,
		"clipMessage":    clipMessage,
		"bfCounts": func(l string, r *schedule.BackfillResult, zone string, done bool) map[string]any {
			return map[string]any{"L": l, "R": r, "Zone": zone, "Done": done}
		},
		"waiting":    waitingText,
		"runStarted": runStarted,
		"nextRetry":  nextRetry,
		"rule":       ruleText,
		"scope":      scopeText,
		"failureWhy": failureWhy,
		"word":       word,
		// A date and time is a span a line does not break, wherever a
		// page shows one: a phone would break it after a hyphen or part
		// the time from its offset.
		"when": func(ms int64, zone string) template.HTML { return unbroken(when(ms, zone)) },
		"whenPtr": func(ms *int64, zone string) template.HTML {
			if ms == nil {
				return "—"
			}
			return unbroken(when(*ms, zone))
		},
		"exit": func(c *int64) string {
			if c == nil {
				return "—"
			}
			return strconvItoa(*c)
		},
		"span":          func(ms int64) string { return validate.Duration(time.Duration(ms) * time.Millisecond) },
		"age":           age,
		"took":          took,
		"duration":      attemptDuration,
		"ran":           ran,
		"triggerState":  triggerState,
		"projectPaused": projectPausedLine,
		// pair is a page and one item of it, for a template about the item
		// that needs the page's language or data too.
		"pair": func(page, item any) map[string]any {
			return map[string]any{"Page": page, "Item": item}
		},
		"attemptEnded": attemptEnded,
		// dict is a runs table's data; Worker says whether it has the
		// worker column: only where some Run has a worker (the cluster),
		// so a single-node page is as it was.
		// dict is a Runs table's data; pick, when true, gives each Run
		// that has not ended a box of the Runs list's cancel form.
		"dict": func(l, zone string, runs []run.Run, pick ...bool) map[string]any {
			worker := slices.ContainsFunc(runs, func(r run.Run) bool { return r.WorkerName != "" })
			return map[string]any{"L": l, "Zone": zone, "Runs": runs, "Worker": worker, "Pick": len(pick) > 0 && pick[0]}
		},
		// secretUses are the uses of a secret the secrets page lists, in l.
		"secretUses": func(l string, uses []apply.SecretUse) map[string]any {
			return map[string]any{"L": l, "Uses": uses}
		},
		// envShown is a task's env as a preview or a form's copy of what
		// was sent shows it, in l: names, values and secrets' names.
		"envShown": func(l string, rows []apply.EnvRow) map[string]any {
			return map[string]any{"L": l, "Rows": rows}
		},
		"confirm": confirmActions,
		"danger":  dangerStep,
		"fire":    fireText,
		"firePtr": func(l string, at, due *int64, zone string) template.HTML {
			if at == nil {
				return "—"
			}
			if due == nil {
				return fireText(l, *at, *at, zone)
			}
			return fireText(l, *at, *due, zone)
		},
		// fires are a trigger's next fires in zone: the page's, the
		// viewer's, as every time on a trigger's pages is (zoneName).
		"fires": func(l string, fires []view.FireTime, t schedule.TriggerStatus, zone string) map[string]any {
			return map[string]any{"L": l, "Fires": fires, "Zone": zone, "Why": firesWhy(t)}
		},
		"zoneName":   zoneName,
		"shortID":    shortID,
		"capText":    capText,
		"fieldLabel": fieldLabel,
	}
}
