package qlimport

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/shellquote"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Options say what the panel's things become here.
type Options struct {
	// Project is the project the tasks, subscriptions and secrets go in.
	Project string
	// Convert is how the crontab converter reads the panel's tasks (its
	// Zone, ScriptsDir, Binary).
	Convert crontab.Options
}

// Plan is what the import would store: nothing of it is stored until
// the caller applies it.
type Plan struct {
	// Definitions are the tasks and subscriptions, with the project's env
	// naming the secrets (ProjectSecrets).
	Definitions crontab.Result
	// Refs name the item each Problem's Line of Definitions is (from 1).
	Refs []Ref
	// Secrets are the secrets to set, by name.
	Secrets []Secret
	// Dependencies are the packages to declare.
	Dependencies []deps.Package
	// Skipped are the items not converted, Notes those converted with
	// something to know.
	Skipped, Notes []Item
}

// Secret is a secret the panel's env variables of one name and state
// become: Value is never printed.
type Secret struct {
	Name, Variable, Value string
	// Values is how many of the panel's rows it joins; Remarks are their
	// remarks.
	Values  int
	Remarks []string
	// Given says it is in the project's env; a disabled variable's secret
	// is given to no task.
	Given bool
}

// Item is one thing of the panel's, by what it is (Ref), and why: Code
// is which sentence Why is, Params the values it names and Err the
// refusal it gives the words of, if any (codes.go).
type Item struct {
	Ref    Ref
	Why    string
	Code   Code
	Params map[string]string
	Err    error
}

// item is an Item of ref, code and why, naming the params given as
// pairs name, value, ...
func item(ref Ref, code Code, why string, params ...string) Item {
	it := Item{Ref: ref, Why: why, Code: code}
	if len(params) > 0 {
		it.Params = map[string]string{}
		for i := 0; i+1 < len(params); i += 2 {
			it.Params[params[i]] = params[i+1]
		}
	}
	return it
}

// LabelPanel is the label a task carries the panel's labels of its task
// in, joined by commas.
const LabelPanel = "qinglong/labels"

// DisabledSuffix ends the name of the secret holding a variable's values
// that are disabled in the panel.
const DisabledSuffix = ".disabled"

// Make makes p into what it becomes here as o says.
func Make(p Panel, o Options) Plan {
	var pl Plan
	var rows []crontab.Row
	for _, c := range p.Crons {
		rows = append(rows, cronRow(&pl, c, len(rows)+1))
	}
	for _, s := range p.Subscriptions {
		if r, ok := subscriptionRow(&pl, s, len(rows)+1); ok {
			rows = append(rows, r)
		}
	}
	pl.Definitions = crontab.ConvertRows(rows, o.Convert)
	pl.secrets(p.Envs, o.Project)
	pl.dependencies(p.Dependencies)
	pl.folder(p)
	return pl
}

// cronRow is the panel's task c as the n-th row the converter reads.
func cronRow(pl *Plan, c Cron, n int) crontab.Row {
	ref := Ref{Kind: RefTask, ID: c.ID, Name: c.Name}
	pl.Refs = append(pl.Refs, ref)
	r := crontab.Row{ID: n, Name: c.Name, Schedule: c.Schedule, Command: c.Command, Disabled: c.Disabled}
	if len(c.Labels) > 0 {
		if v := strings.Join(c.Labels, ","); len(v) <= task.MaxLabelLen {
			r.Labels = map[string]string{LabelPanel: v}
		} else {
			pl.Notes = append(pl.Notes, item(ref, CodeLabelsLong, fmt.Sprintf("its labels (%s) are longer than a label's %d characters: left out", v, task.MaxLabelLen),
				"labels", v, "max", strconv.Itoa(task.MaxLabelLen)))
		}
	}
	if c.ExtraSchedules > 0 {
		pl.Notes = append(pl.Notes, item(ref, CodeExtraSchedules, fmt.Sprintf("its %d extra schedules are not imported: add a trigger of the task for each", c.ExtraSchedules),
			"count", strconv.Itoa(c.ExtraSchedules)))
	}
	if c.TaskBefore != "" || c.TaskAfter != "" {
		pl.Notes = append(pl.Notes, item(ref, CodeTaskHooks, "its commands run before and after it (task_before, task_after) are not imported: write them into its command"))
	}
	if c.Dir != "" {
		pl.Notes = append(pl.Notes, item(ref, CodeWorkDir, fmt.Sprintf("it ran in %s (work_dir), which is not imported: set the task's workingDir to that folder as the server sees it", c.Dir), "dir", c.Dir))
	}
	return r
}

// subscriptionRow is the panel's subscription s as the n-th row the
// converter reads: the ql repo or ql raw command the panel's own
// crontab.list wrote for it, so that it becomes the labelled pull task
// the Subscriptions page lists.
func subscriptionRow(pl *Plan, s Subscription, n int) (crontab.Row, bool) {
	ref := Ref{Kind: RefSubscription, ID: s.ID, Name: s.Name}
	if s.ScheduleType == "interval" {
		pl.Skipped = append(pl.Skipped, item(ref, CodeInterval, "it is pulled at an interval, which no trigger has: add it on the Subscriptions page with a cron"))
		return crontab.Row{}, false
	}
	var command string
	if s.Type == "file" {
		command = "ql raw " + shellquote.Quote(s.URL)
	} else {
		args := []string{s.URL, s.Whitelist, s.Blacklist, s.Dependences, s.Branch}
		for i, a := range args {
			args[i] = shellquote.Quote(a)
		}
		command = "ql repo " + strings.Join(args, " ")
	}
	if s.Type == "private-repo" {
		pl.Notes = append(pl.Notes, item(ref, CodePrivateRepo, "its SSH key or password is not imported: the pull runs git as the server's account, with that account's own credentials (an SSH key in its ~/.ssh)"))
	}
	if s.SubBefore != "" || s.SubAfter != "" {
		pl.Notes = append(pl.Notes, item(ref, CodeSubscriptionHooks, "its commands run before and after a pull (sub_before, sub_after) are not imported"))
	}
	pl.Refs = append(pl.Refs, ref)
	return crontab.Row{ID: n, Name: s.Name, Schedule: s.Schedule, Command: command, Disabled: s.Disabled}, true
}

// variableName is a name the panel gives its tasks: it leaves out any
// other from the env.sh it writes.
var variableName = regexp.MustCompile(`^[a-zA-Z_][0-9a-zA-Z_]*$`)

// secrets makes the panel's env variables secrets of project: the
// enabled values of a name joined by "&" as the panel's env.sh gives them
// to its tasks, in the project's env; its disabled ones, which the panel
// gives to no task, kept in a secret of their own given to no task.
func (pl *Plan) secrets(envs []Env, project string) {
	type group struct{ on, off []Env }
	groups := map[string]*group{}
	var names []string
	for _, e := range envs {
		g, ok := groups[e.Name]
		if !ok {
			g = &group{}
			groups[e.Name] = g
			names = append(names, e.Name)
		}
		if e.Disabled {
			g.off = append(g.off, e)
		} else {
			g.on = append(g.on, e)
		}
	}
	sort.Strings(names)
	pl.Definitions.ProjectSecrets = map[string]string{}
	for _, name := range names {
		ref := Ref{Kind: RefEnv, Name: name}
		switch {
		case !variableName.MatchString(name):
			pl.Skipped = append(pl.Skipped, item(ref, CodeEnvName, "no shell variable may be named so, and the panel gave it to no task either"))
			continue
		case strings.HasPrefix(name, task.ReservedEnvPrefix):
			pl.Skipped = append(pl.Skipped, item(ref, CodeEnvReserved, "names starting with "+task.ReservedEnvPrefix+" are QingLong's own, set for every command: rename it in the scripts that read it",
				"prefix", task.ReservedEnvPrefix))
			continue
		}
		g := groups[name]
		for _, part := range []struct {
			rows  []Env
			name  string
			given bool
		}{{g.on, project + "/" + name, true}, {g.off, project + "/" + name + DisabledSuffix, false}} {
			if len(part.rows) == 0 {
				continue
			}
			s := Secret{Name: part.name, Variable: name, Values: len(part.rows), Given: part.given}
			values := make([]string, 0, len(part.rows))
			for _, e := range part.rows {
				values = append(values, e.Value)
				if r := strings.TrimSpace(e.Remarks); r != "" {
					s.Remarks = append(s.Remarks, r)
				}
			}
			s.Value = strings.TrimSpace(strings.Join(values, "&"))
			if !task.IsSecretName(s.Name) {
				pl.Skipped = append(pl.Skipped, item(ref, CodeSecretNameLong, fmt.Sprintf("the secret's name %s would be longer than a secret's name may be: set it by hand under a shorter name", s.Name), "name", s.Name))
				continue
			}
			if err := process.CheckSecretValue(s.Name, s.Value); err != nil {
				pl.Skipped = append(pl.Skipped, Item{Ref: ref, Why: strings.TrimPrefix(err.Error(), "invalid input: "), Code: CodeSecretValue, Err: err})
				continue
			}
			if s.Given {
				pl.Definitions.ProjectSecrets[name] = s.Name
			} else {
				pl.Notes = append(pl.Notes, item(ref, CodeDisabledValues, fmt.Sprintf("%s disabled in the panel, which gives its tasks none of them: kept in secret %s, given to no task; "+
					"to give it, put %s: {secret: %s} in the project's env", plural(len(part.rows), "value", "values")+isAre(len(part.rows)), s.Name, name, s.Name),
					"count", strconv.Itoa(len(part.rows)), "secret", s.Name, "variable", name))
			}
			pl.Secrets = append(pl.Secrets, s)
		}
	}
}

// depKinds are the panel's dependency types by number.
var depKinds = map[int]deps.Kind{0: deps.Node, 1: deps.Python, 2: deps.Linux}

// dependencies makes the panel's dependencies packages to declare: those
// it is removing or removed are left out.
func (pl *Plan) dependencies(ds []Dependency) {
	at := map[deps.Package]int{}
	for _, d := range ds {
		ref := Ref{Kind: RefDependency, ID: d.ID, Name: d.Name}
		k, ok := depKinds[d.Type]
		switch {
		case !ok:
			pl.Skipped = append(pl.Skipped, item(ref, CodeDependencyType, "its type "+strconv.Itoa(d.Type)+" is none of the panel's (0 Node.js, 1 Python 3, 2 Linux)", "type", strconv.Itoa(d.Type)))
			continue
		case d.Status == 3 || d.Status == 4:
			pl.Skipped = append(pl.Skipped, item(ref, CodeDependencyRemoved, "the panel removed it (or was removing it)"))
			continue
		}
		pkgs, err := deps.ParseList(k, d.Name)
		if err != nil {
			pl.Skipped = append(pl.Skipped, Item{Ref: ref, Why: strings.TrimPrefix(err.Error(), "invalid input: "), Code: CodeDependencySpec, Err: err})
			continue
		}
		for _, p := range pkgs {
			key := deps.Package{Kind: p.Kind, Name: p.Name}
			if i, ok := at[key]; ok {
				pl.Dependencies[i] = p
				continue
			}
			at[key] = len(pl.Dependencies)
			pl.Dependencies = append(pl.Dependencies, p)
		}
	}
}

// folder notes what of the data folder beside the database is not read.
func (pl *Plan) folder(p Panel) {
	for _, t := range p.Missing {
		pl.Notes = append(pl.Notes, item(Ref{Kind: RefTable, Name: t}, CodeTableMissing, "the panel's database has no such table (an older panel's): nothing of it to import"))
	}
	if fi, err := os.Stat(filepath.Join(p.Dir, "scripts")); err == nil && fi.IsDir() {
		pl.Notes = append(pl.Notes, item(Ref{Kind: RefFile, Name: "scripts/"}, CodeScriptsFolder, "not copied: copy the folder to the server's scripts folder (the one --scripts-dir names) before the tasks run"))
	}
	pl.config(p.Config)
}

// config notes what the panel's config.sh sets that nothing here takes,
// by name, and what to do instead.
func (pl *Plan) config(c Config) {
	note := func(code Code, why string, params ...string) {
		pl.Notes = append(pl.Notes, item(Ref{Kind: RefFile, Name: ConfigFile}, code, why, params...))
	}
	if c.Unreadable != "" {
		note(CodeConfigUnreadable, "could not be read ("+c.Unreadable+"): nothing of it is imported; the notification keys it sets go in the project's notifications (docs/notifications.md)",
			"why", c.Unreadable)
	}
	if len(c.Notify) > 0 {
		names := strings.Join(c.Notify, ", ")
		note(CodeConfigNotify, "it sets the notification keys "+names+", which QingLong does not take: "+
			"give the project a notification channel and rule instead (docs/notifications.md), which tells of failed Runs; a script that sends its own messages reads them from the project's env, as secrets set by hand",
			"names", names)
	}
	if len(c.Exported) > 0 {
		names := strings.Join(c.Exported, ", ")
		note(CodeConfigExported, "it exports "+names+" to every task, which this import does not read: "+
			"put each in the project's env (a secret for what must stay hidden) if the scripts read it", "names", names)
	}
	for _, name := range c.Settings {
		if code, ok := settingAdvice[name]; ok {
			note(code, "it sets "+name+", the panel's own setting, which QingLong does not take: "+adviceWords[code], "name", name)
			continue
		}
		note(CodeConfigPanelSetting, "it sets "+name+", the panel's own setting, which means nothing here", "name", name)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func isAre(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}
