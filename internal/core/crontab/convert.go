// Package crontab converts a crontab (Vixie cron, cronie) into a
// definitions file: one task and one trigger per entry. It does no I/O.
// A system crontab (/etc/crontab, /etc/cron.d/*) names the user each
// entry runs as between the schedule and the command; it becomes the
// task's runAs.
// Every line is accounted for: converted, taken as a setting of the lines
// after it, or reported with its line number and why it was not converted;
// nothing is dropped silently.
package crontab

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"maps"
	"regexp"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Problem is a line the converter did not convert, converted with a
// difference its author must know, or took with a note: Line is its
// number (from 1).
type Problem struct {
	Line int
	Text string
	Why  string
	Kind Kind
	// Code is which sentence Why is, Params the values it names and Err
	// the refusal it gives the words of, if any (codes.go).
	Code   Code
	Params map[string]string
	Err    error
}

// Kind is what became of a line a Problem reports.
type Kind string

// The kinds.
const (
	// NotConverted: the line is in no task or trigger.
	NotConverted Kind = "not converted"
	// ConvertedBut: the entry was converted; Why says what differs.
	ConvertedBut Kind = "converted, but"
	// Noted: a setting QingLong takes otherwise, or not at all.
	Noted Kind = "note"
)

func (p Problem) String() string {
	return fmt.Sprintf("line %d: %s: %s (%s)", p.Line, p.Kind, p.Why, strings.TrimSpace(p.Text))
}

// Entry is one converted crontab line.
type Entry struct {
	Line     int
	Name     string
	Cron     string
	Timezone string
	Shell    string
	Script   string
	Env      map[string]string
	// RunAs is the user a system crontab's entry names, "" for a user
	// crontab's or one naming Options.Account.
	RunAs string
	// Disabled: the entry is one of the qinglong panel's commented lines
	// (panelComment), its trigger written with enabled: false.
	Disabled bool
	// WorkingDir is the task's working directory: Options.ScriptsDir for
	// a task SCRIPT entry written with its interpreter, else "".
	WorkingDir string
	// Title is the task's display title, "" for none.
	Title string
	// Labels are the task's labels: a ql repo line's say what it
	// subscribes to (SubscriptionLabels).
	Labels map[string]string
	// Pulls is the repository a ql repo line's task pulls, Downloads the
	// file a ql raw line's downloads, each URL without its credentials:
	// what a page shows of a script too long to show whole.
	Pulls, Downloads string
}

// Result is a converted crontab: its entries in file order and the lines
// reported.
type Result struct {
	Entries  []Entry
	Problems []Problem
	// Header is the comment its definitions file starts with, "" for
	// Header (a crontab's).
	Header string
	// ProjectSecrets are the project's env, each variable read from the
	// secret it names: every task of the project starts with them.
	ProjectSecrets map[string]string
}

// macros are the crontab's @-schedules that have a plain expression.
var macros = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
	"@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// Options say how to read a crontab.
type Options struct {
	// Zone is the time zone of the entries before any CRON_TZ= or TZ=
	// line (cron's is the host's, which QingLong never implies).
	Zone string
	// System reads a system crontab: a user column between the schedule
	// and the command.
	System bool
	// Account is the account the server runs commands as, when known: a
	// system crontab's entries naming it get no runAs.
	Account string
	// ScriptsDir is the folder, an absolute path, that holds the scripts
	// the qinglong panel's task command ran: a task SCRIPT entry then
	// runs SCRIPT with its interpreter there (panelTask). "" leaves the
	// task command as written, reported.
	ScriptsDir string
	// Binary is the program whose commands a note names, "" for ql.
	Binary string
	// Edge: the notes are read where no cluster is served (ql-edge), and
	// name no cluster or worker.
	Edge bool
}

// Convert reads a crontab from r as o says.
func Convert(r io.Reader, o Options) (Result, error) {
	var res Result
	st := state{Options: o, zone: o.Zone, shell: "/bin/sh", env: map[string]string{}, names: map[string]int{}, users: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		st.line(&res, n, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return Result{}, fmt.Errorf("read the crontab: %w", err)
	}
	return res, nil
}

// state is what the lines read so far set for the lines after them.
type state struct {
	Options
	zone, shell string
	env         map[string]string
	names       map[string]int
	// users are the users whose runAs was noted already.
	users map[string]bool
	// secondsNoted: a line of six time fields was noted already.
	secondsNoted bool
	// commentedNoted: a commented panel line was noted already.
	commentedNoted bool
	// interpreterNoted: a task SCRIPT written with its interpreter was
	// noted already.
	interpreterNoted bool
	// typeScriptNoted: a task SCRIPT.ts written as tsx SCRIPT.ts was
	// noted already.
	typeScriptNoted bool
	// literal: commands are taken as written, a "%" being a "%": the
	// panel's own rows, which it runs itself rather than through cron.
	literal bool
	// folders are the folders ql repo lines converted so far pull into,
	// in line order: a later line pulling into one (or a folder inside
	// it, or around it: FoldersShare) is left out, as its task would
	// undo the first's pulls.
	folders []firstPull
}

// firstPull is a line that pulls into a folder, and its task.
type firstPull struct {
	line         int
	name, folder string
}

// folderShared is the first converted line whose folder shares files
// with folder, and whether there is one.
func (st *state) folderShared(folder string) (firstPull, bool) {
	for _, f := range st.folders {
		if FoldersShare(f.folder, folder) {
			return f, true
		}
	}
	return firstPull{}, false
}

func (st *state) line(res *Result, n int, text string) {
	trimmed := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(trimmed, "#"):
		if body, ok := panelComment(trimmed); ok {
			st.entry(res, n, text, body, true)
		}
		return
	case trimmed == "":
		return
	case isSetting(trimmed):
		if p := st.set(trimmed); p.Why != "" {
			p.Line, p.Text, p.Kind = n, text, Noted
			res.Problems = append(res.Problems, p)
		}
		return
	}
	st.entry(res, n, text, trimmed, false)
}

// entry converts line n, text, whose schedule and command are body;
// disabled: it is a commented panel line, converted with its trigger
// disabled.
func (st *state) entry(res *Result, n int, text, body string, disabled bool) {
	problem := func(code Code, why string, params ...string) {
		res.Problems = append(res.Problems, Problem{Line: n, Text: text, Why: why, Kind: NotConverted, Code: code, Params: paramsOf(params)})
	}
	expr, command, seconds, ok := splitEntry(body)
	if !ok {
		problem(CodeNotAnEntry, "not a schedule followed by a command: 5 fields (minute hour day-of-month month day-of-week), 6 with seconds first, or an @-schedule, then the command")
		return
	}
	if strings.EqualFold(expr, "@reboot") {
		problem(CodeReboot, "QingLong has no trigger that fires when the machine starts; start the command from the host's start-up (a systemd unit) instead")
		return
	}
	user := ""
	if st.System {
		var p Problem
		if user, command, p = splitUser(command); p.Why != "" {
			problem(p.Code, p.Why, "user", p.Params["user"])
			return
		}
	}
	command = withoutPanelID(command)
	if !st.System && strings.Fields(command)[0] == "root" {
		res.Problems = append(res.Problems, Problem{Line: n, Text: text, Kind: Noted, Code: CodeRootCommand,
			Why: `the command starts with "root": if this is a system crontab (/etc/crontab, /etc/cron.d), whose entries name their user there, convert it with --system`})
	}
	var pulled *pull
	if words := strings.Fields(command); len(words) >= 2 && words[0] == "ql" && (words[1] == "repo" || words[1] == "raw") {
		p, why := panelPull(command, cmp.Or(st.Binary, "ql"), st.Edge)
		if why != "" && p.code != "" {
			problem(p.code, why, p.params...)
			return
		}
		if why != "" {
			problem(CodePanelCommand, why, "command", words[1])
			return
		}
		pulled = &p
	} else if code, why := panelCommand(command); why != "" {
		problem(code, why, "command", words[1])
		return
	}
	if strings.HasPrefix(expr, "@") {
		plain, known := macros[strings.ToLower(expr)]
		if !known {
			problem(CodeUnknownMacro, fmt.Sprintf("%s is no schedule cron knows", expr), "macro", expr)
			return
		}
		expr = plain
	}
	fields := strings.Fields(expr)
	fields[len(fields)-1] = sundayAsZero(fields[len(fields)-1])
	expr = strings.Join(fields, " ")
	s, err := cron.Parse(expr, st.zone)
	if err == nil {
		err = cron.CheckSteps(expr)
	}
	if err != nil {
		res.Problems = append(res.Problems, Problem{Line: n, Text: text, Why: err.Error(), Kind: NotConverted, Code: CodeSchedule, Err: cron.Refusal("cron", err)})
		return
	}
	script, why, name, title := "", "", "", ""
	var labels map[string]string
	if pulled != nil && pulled.folder != "" {
		if first, ok := st.folderShared(pulled.folder); ok {
			earlier := fmt.Sprintf("line %d's task %s", first.line, first.name)
			if st.literal {
				// A row's number is its place in what the converter was
				// given, which is not how its panel names it.
				earlier = "the task " + first.name + " of an earlier row"
			}
			problem(CodeRepoRepeated, fmt.Sprintf("ql repo pulls into the folder %s, and %s pulls into %s already: this %s was left out, "+
				"as two tasks pulling into one folder (or one into a folder inside the other's) would each undo the other's pull; to pull another branch, name it after the URL (ql repo URL \"\" \"\" \"\" BRANCH)",
				pulled.folder, earlier, first.folder, st.unit()), "folder", pulled.folder, "line", strconv.Itoa(first.line), "name", first.name, "other", first.folder)
			return
		}
	}
	if pulled != nil {
		script, name, title, labels = pulled.script, st.unique(cleanName(pulled.name)), pulled.title, pulled.labels
		if pulled.folder != "" {
			st.folders = append(st.folders, firstPull{line: n, name: name, folder: pulled.folder})
		}
	} else {
		script, why = commandScript(command)
		if st.literal {
			script, why = command, ""
		}
		name = st.name(command)
	}
	if why != "" {
		problem(CodeStandardInput, why)
		return
	}
	if user == st.Account {
		user = ""
	}
	e := Entry{Line: n, Name: name, Title: title, Cron: expr, Timezone: st.zone, Shell: st.shell, Script: script, Env: copyEnv(st.env), RunAs: user, Disabled: disabled, Labels: labels}
	written, interpreted := "", false
	if st.ScriptsDir != "" {
		written, interpreted = panelTask(script)
	}
	if interpreted {
		e.Script, e.WorkingDir = written, st.ScriptsDir
	}
	if pulled != nil && pulled.env != nil {
		// The credentials win over a crontab's variable of their name.
		if e.Env == nil {
			e.Env = map[string]string{}
		}
		maps.Copy(e.Env, pulled.env)
	}
	if pulled != nil {
		e.Pulls, e.Downloads = pulled.pulls, pulled.downloads
	}
	res.Entries = append(res.Entries, e)
	if pulled != nil {
		res.Problems = append(res.Problems, Problem{Line: n, Text: text, Kind: Noted, Code: pulled.code, Why: pulled.why, Params: paramsOf(pulled.params)})
	}
	if interpreted && strings.HasPrefix(written, typeScriptRunner+" ") && !st.typeScriptNoted {
		st.typeScriptNoted = true
		res.Problems = append(res.Problems, Problem{Line: n, Text: text, Kind: Noted, Code: CodeTaskTypeScript, Why: typeScriptNote})
	}
	if interpreted && !st.interpreterNoted {
		st.interpreterNoted = true
		res.Problems = append(res.Problems, Problem{Line: n, Text: text, Kind: Noted, Code: CodeTaskInterpreter, Params: paramsOf([]string{"dir", st.ScriptsDir}),
			Why: interpreterNote(st.ScriptsDir, st.unit(), st.Edge)})
	}
	if disabled && !st.commentedNoted {
		st.commentedNoted = true
		res.Problems = append(res.Problems, Problem{Line: n, Text: text, Kind: Noted, Code: CodeCommented, Why: commentedWhy})
	}
	if seconds && !st.secondsNoted {
		st.secondsNoted = true
		res.Problems = append(res.Problems, Problem{Line: n, Text: text, Kind: Noted, Code: CodeSeconds,
			Why: "six time fields are read as seconds, minute, hour, day-of-month, month, day-of-week (as the qinglong panel's crontab writes them), here and on every later " + st.unit() + " that has six"})
	}
	if strings.Fields(command)[0] == "task" && !interpreted {
		res.Problems = append(res.Problems, Problem{Line: n, Text: text, Kind: ConvertedBut, Code: CodeTaskCommand, Why: taskCommandWhy})
	}
	if user != "" && !st.users[user] {
		st.users[user] = true
		res.Problems = append(res.Problems, Problem{Line: n, Text: text, Kind: Noted, Code: CodeRunAs, Params: paramsOf([]string{"user", user}), Why: runAsNote(user, st.Edge)})
	}
	if d := s.Days(); d.VixieBoth {
		res.Problems = append(res.Problems, Problem{Line: n, Text: text, Kind: ConvertedBut, Code: CodeBothDays,
			Params: paramsOf([]string{"monthday", d.DayOfMonth, "weekday", d.DayOfWeek}),
			Why:    fmt.Sprintf("cron fires it only on days matching both day-of-month %q and day-of-week %q; QingLong fires it on days matching either. %s", d.DayOfMonth, d.DayOfWeek, cron.VixieBothHint)})
	}
}

// isSetting reports whether a line is a VAR=value setting rather than an
// entry: a name, then "=", before any space.
func isSetting(line string) bool {
	name, _, ok := strings.Cut(line, "=")
	return ok && name != "" && !strings.ContainsAny(strings.TrimSpace(name), " \t") && !strings.HasPrefix(line, "@") &&
		!strings.ContainsAny(name[:1], "0123456789*")
}

// set takes a VAR=value line as cron does, for the entries after it, and
// says what a reader must know of it (Why "": nothing), its line, text
// and kind left to the caller.
func (st *state) set(line string) Problem {
	name, value, _ := strings.Cut(line, "=")
	name, value = strings.TrimSpace(name), unquote(strings.TrimSpace(value))
	switch name {
	case "CRON_TZ", "TZ":
		if err := cron.CheckTimezone(value); err != nil {
			return Problem{Code: CodeZoneKept, Params: paramsOf([]string{"zone", st.zone}), Err: cron.Refusal(name, err),
				Why: fmt.Sprintf("the zone is kept as %s for the lines after it: %v", st.zone, err)}
		}
		st.zone = value
		if name == "TZ" {
			st.env[name] = value
		}
		return Problem{}
	case "SHELL":
		if value != "/bin/sh" && value != "/bin/bash" {
			return Problem{Code: CodeShellKept, Params: paramsOf([]string{"shell", st.shell}),
				Why: fmt.Sprintf("a task's shell is /bin/sh or /bin/bash; the lines after it keep %s", st.shell)}
		}
		st.shell = value
		return Problem{}
	case "MAILTO", "MAILFROM":
		return Problem{Code: CodeMail, Why: "QingLong sends no mail: a Run's output is kept in its log (`ql runs logs`); notifications (docs/notifications.md) tell of failures"}
	}
	if strings.HasPrefix(name, "QL_") {
		return Problem{Code: CodeReservedName, Why: "names starting with QL_ are QingLong's own; it is left out of the tasks' env"}
	}
	st.env[name] = value
	return Problem{}
}

// unquote strips one pair of matching quotes around a setting's value, as
// cron does.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// splitEntry splits an entry into its schedule and its command; seconds
// says the schedule has six fields, seconds first: a sixth word that can
// only be a day-of-week field is read as one, since no program is named
// "*" or "1-5".
func splitEntry(line string) (expr, command string, seconds, ok bool) {
	if strings.HasPrefix(line, "@") {
		i := strings.IndexAny(line, " \t")
		if i < 0 {
			return line, "", false, strings.EqualFold(line, "@reboot")
		}
		return line[:i], strings.TrimSpace(line[i:]), false, true
	}
	rest := line
	fields := make([]string, 0, 6)
	for len(fields) < 6 {
		rest = strings.TrimLeft(rest, " \t")
		i := strings.IndexAny(rest, " \t")
		if i < 0 || len(fields) == 5 && !dayOfWeekField.MatchString(rest[:i]) {
			break
		}
		fields, rest = append(fields, rest[:i]), rest[i:]
	}
	command = strings.TrimSpace(rest)
	return strings.Join(fields, " "), command, len(fields) == 6, len(fields) >= 5 && command != ""
}

// dayOfWeekField is a word that can only be a day-of-week field: digits,
// "*", "?" and day names joined by ranges, lists and steps.
var dayOfWeekField = regexp.MustCompile(`^(?i)([0-9]+|\*|\?|sun|mon|tue|wed|thu|fri|sat)([-,/]([0-9]+|sun|mon|tue|wed|thu|fri|sat))*$`)

// taskCommandWhy is what is said of an entry whose command is the qinglong
// panel's task command, which this server does not have: it names no
// printed file, as the console and an --apply print none.
const taskCommandWhy = "task is the qinglong panel's command (it finds the script in the panel's scripts folder and runs it with node, python3 or bash by its extension); " +
	"this server has no such command, so the Run would fail with \"task: not found\" (exit code 127): write the interpreter and the script's path as the task's script, " +
	"such as node /ql/scripts/jd_bean_sign.js, or set the task's workingDir to the scripts folder and write node jd_bean_sign.js"

// interpreters are the programs the panel's task command runs a script
// with, by its extension: python3 -u keeps a Python script's live log
// live, as the panel's does; a TypeScript script, which the panel runs
// with the ts-node of its own image, runs with typeScriptRunner.
var interpreters = map[string]string{".js": "node", ".mjs": "node", ".py": "python3 -u", ".sh": "bash", ".ts": typeScriptRunner}

// typeScriptRunner runs a TypeScript script, as the Scripts page's New
// task link does: it must be installed where the tasks run (node alone
// runs no TypeScript), and nothing downloads it at run time, so a Run
// without it fails at once, saying so, rather than fetch a package
// unasked (as npx would).
const typeScriptRunner = "tsx"

// typeScriptNote is what is said, once, of the panel's task SCRIPT.ts
// written as typeScriptRunner SCRIPT.ts.
const typeScriptNote = "the panel's task SCRIPT.ts is written as tsx SCRIPT.ts, here and on every later one: " + typeScriptInstall

// typeScriptInstall is why a task runs TypeScript with typeScriptRunner
// and what to install for it, said alike of the panel's task lines and of
// the scripts Scripts reads, so that both ways in say the same.
const typeScriptInstall = "the panel ran TypeScript with the ts-node of its own image, and node alone runs none; " +
	"install tsx on the host that runs the tasks (npm install -g tsx), without which their Runs fail with \"tsx: not found\" (exit code 127)"

// panelTask is the panel's "task SCRIPT [ARGS]" as a command run in the
// scripts folder: SCRIPT's interpreter, SCRIPT and ARGS, without the
// trailing "now" that only skips the panel's random delay. ok is false
// for another command, a script of another extension, or a desi or conc
// mode, which ran the script once per account of a cookie variable: no
// command here does that, so the entry stays reported as written.
func panelTask(script string) (command string, ok bool) {
	words := strings.Fields(script)
	if len(words) < 2 || words[0] != "task" {
		return "", false
	}
	dot := strings.LastIndex(words[1], ".")
	interpreter, known := interpreters[words[1][max(dot, 0):]]
	if dot < 0 || !known {
		return "", false
	}
	args := words[2:]
	if len(args) > 0 && (args[0] == "desi" || args[0] == "conc") {
		return "", false
	}
	if len(args) > 0 && args[len(args)-1] == "now" {
		args = args[:len(args)-1]
	}
	file := words[1]
	if strings.HasPrefix(file, "-") {
		// The panel finds the file of that name; its interpreter would
		// read the word as an option (ScriptWord's rule).
		file = "./" + file
	}
	return strings.Join(append([]string{interpreter, file}, args...), " "), true
}

// panelID is the row id the qinglong panel writes before every command
// of its crontab.list (ID=12 task jd_bean_sign.js), all of which start
// with its task or ql command: the id means nothing here.
var panelID = regexp.MustCompile(`^ID=[0-9]+[ \t]+(task|ql)[ \t]`)

// withoutPanelID is command without the panel's row id, if it has one, so
// that its task and ql commands are known as the panel's.
func withoutPanelID(command string) string {
	if m := panelID.FindStringSubmatchIndex(command); m != nil {
		return command[m[2]:]
	}
	return command
}

// panelComment is the entry a comment line of the qinglong panel's
// crontab.list holds: the panel writes each disabled task, and each task
// whose cron has six fields (which the system cron it writes the file for
// cannot run), as "# SCHEDULE ID=N task ..." — "# SCHEDULE task ..." in
// its older files. Any other comment is cron's, and ok is false.
func panelComment(line string) (body string, ok bool) {
	body = strings.TrimSpace(strings.TrimPrefix(line, "#"))
	_, command, _, isEntry := splitEntry(body)
	if !isEntry || command == "" || strings.HasPrefix(body, "#") {
		return "", false
	}
	return body, panelID.MatchString(command) || strings.Fields(command)[0] == "task"
}

// commentedWhy is what is said of the panel's commented lines.
const commentedWhy = "the qinglong panel writes each disabled task, and each task whose cron has six fields, as a comment line (# SCHEDULE task ...): " +
	"such lines are converted with the trigger disabled (enabled: false), here and on every later one; enable those the panel ran, several at once on the console's Triggers page"

// panelCommand says why an entry whose command is one of the qinglong
// panel's own "ql" commands is not converted, and which sentence that is:
// QingLong's ql has no such command, and what stands in for it here
// differs: retention deletes logs, and the panel's upkeep has no
// counterpart to run (its repo and raw become pull tasks: panelPull).
// "" for any other command.
func panelCommand(command string) (Code, string) {
	words := strings.Fields(command)
	if len(words) < 2 || words[0] != "ql" {
		return "", ""
	}
	switch words[1] {
	case "rmlog":
		return CodePanelLogs, "ql rmlog is the qinglong panel's command, which QingLong has none of: the server deletes the logs of finished Runs itself, " +
			"after --retention-logs (7 days; 3 on the edge profile)"
	case "update", "extra", "check", "resetlet", "resettfa", "bot":
		return CodePanelUpkeep, fmt.Sprintf("ql %s is the qinglong panel's upkeep of itself, which QingLong has none of and needs none of: "+
			"QingLong is upgraded by replacing its binary and restarting it on the same data directory", words[1])
	}
	return "", ""
}

// splitUser splits a system crontab entry's command into the user it
// names and the command run as that user; p says what is wrong (its Code,
// Why and Params) when there is no user before a command.
func splitUser(rest string) (user, command string, p Problem) {
	user = rest
	if i := strings.IndexAny(rest, " \t"); i >= 0 {
		user, command = rest[:i], strings.TrimSpace(rest[i:])
	}
	if err := (task.RunAs{User: user}).Validate("runAs"); err != nil {
		return "", "", Problem{Code: CodeNotAUser, Params: paramsOf([]string{"user", user}),
			Why: fmt.Sprintf("a system crontab names the user before the command, and %q is no user name or uid: "+
				"if this is a user crontab (crontab -l), convert it without --system", user)}
	}
	if command == "" {
		return "", "", Problem{Code: CodeNoCommand, Params: paramsOf([]string{"user", user}), Why: fmt.Sprintf("no command after the user %s", user)}
	}
	return user, command, Problem{}
}

// unit is what the notes call what they are of: a panel's row, or a
// crontab's line.
func (st *state) unit() string {
	if st.literal {
		return "row"
	}
	return "line"
}

// runAsNote is what is said, once per user, of the tasks a system
// crontab's entries of user become: they run as user through runAs, which
// only a server started as root can switch to.
func runAsNote(user string, edge bool) string {
	who := "a server or worker switches"
	if edge {
		who = "the server switches"
	}
	return fmt.Sprintf("the tasks of %s's entries run as %s (runAs): %s accounts only when started as root, "+
		"and otherwise their Runs fail run_as_unavailable; if the server runs commands as %s already, give --account %s to leave runAs out",
		user, user, who, user, user)
}

// interpreterNote is what is said, once, of the panel's task SCRIPT
// written as its interpreter run in dir, at a unit (unit); edge names no
// cluster.
func interpreterNote(dir, unit string, edge bool) string {
	why := fmt.Sprintf("the panel's task SCRIPT is written as its interpreter and the script (node for .js, python3 -u for .py, bash for .sh, tsx for .ts), run in %s (workingDir), here and on every later %s; "+
		"a trailing now is left out, as no random delay is added here", dir, unit)
	if edge {
		return why
	}
	return why + fmt.Sprintf("; on a cluster a worker runs it in %[1]s on its own host, so start the workers with --scripts-dir %[1]s "+
		"(the folder they give in $QL_SCRIPTS_DIR and their pull tasks fill)", dir)
}

// commandScript is a command as the task's script: cron's "\%" is a "%";
// an unescaped "%" ends the command and starts its standard input, which
// a task has none of, so such a line is refused saying how to write it.
func commandScript(command string) (script, why string) {
	var b strings.Builder
	for i := 0; i < len(command); i++ {
		switch {
		case command[i] == '\\' && i+1 < len(command) && command[i+1] == '%':
			b.WriteByte('%')
			i++
		case command[i] == '%':
			return "", `cron gives the text after an unescaped "%" to the command as its standard input, one line per "%"; ` +
				`a task has no standard input: write it as a pipe (printf 'line one\nline two\n' | command), or escape a literal "%" as "\%"`
		default:
			b.WriteByte(command[i])
		}
	}
	return b.String(), ""
}

// name is a task and trigger name derived from command: its program's
// base name, in the characters a name may use, made unique by a number.
func (st *state) name(command string) string {
	words := strings.Fields(command)
	base := "job"
	for i, w := range words {
		// Skip variable assignments, wrappers and interpreters that say
		// nothing of the job (VAR=x cmd, nice cmd, python3 job.py) and
		// the directory of a cd.
		if strings.Contains(w, "=") || wrappers[w] || strings.HasPrefix(w, "-") || strings.HasSuffix(w, "/") || i > 0 && words[i-1] == "cd" {
			continue
		}
		w = w[strings.LastIndex(w, "/")+1:]
		if dot := strings.LastIndex(w, "."); dot > 0 {
			w = w[:dot]
		}
		if clean := cleanName(w); clean != "" {
			base = clean
			break
		}
	}
	return st.unique(base)
}

// unique is base made unique among the names given so far by a number.
func (st *state) unique(base string) string {
	st.names[base]++
	if n := st.names[base]; n > 1 {
		return fmt.Sprintf("%s-%d", base, n)
	}
	return base
}

// wrappers are words of a command that say nothing of the job it runs.
var wrappers = map[string]bool{"nice": true, "ionice": true, "nohup": true, "cd": true, "&&": true, ";": true, "flock": true, "timeout": true,
	"sudo": true, "env": true, "exec": true, "sh": true, "bash": true, "/bin/sh": true, "/bin/bash": true, "python": true, "python3": true,
	"perl": true, "ruby": true, "node": true, "php": true, "task": true, "/usr/bin/python3": true, "/usr/bin/env": true}

// cleanName lower-cases s and keeps the characters a name may use, each
// other run of characters becoming one "-", trimmed to start and end with
// a letter or digit and cut to 60 characters (room for a number).
func cleanName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-_.")
	for strings.Contains(out, "--") {
		out = strings.ReplaceAll(out, "--", "-")
	}
	if len(out) > 60 {
		out = strings.TrimRight(out[:60], "-_.")
	}
	return out
}

// paramsOf is the pairs name, value, ... as a Problem's Params (nil for
// none).
func paramsOf(pairs []string) map[string]string {
	if len(pairs) == 0 {
		return nil
	}
	out := make(map[string]string, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out[pairs[i]] = pairs[i+1]
	}
	return out
}

func copyEnv(env map[string]string) map[string]string {
	if len(env) == 0 {
		return nil
	}
	out := make(map[string]string, len(env))
	for k, v := range env {
		out[k] = v
	}
	return out
}
