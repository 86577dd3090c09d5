package apply

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// Limits of one definitions file. A project larger than this is split
// over several files naming the same project: objects missing from a file
// are left as they are.
const (
	MaxFileSize = 4 << 20
	MaxTasks    = 10_000
	MaxTriggers = 10_000
)

// Document is a parsed definitions file.
type Document struct {
	File    string
	Project string
	// Status is the project's status when the file gives it; empty, the
	// file leaves it as it is (a new project is active): leaving a field
	// out of a file changes nothing, so only status: active reactivates
	// an archived project.
	Status project.Status
	// Title is the project's display title ("" none): a file always
	// says it, so leaving it out clears it, as with a task's or trigger's.
	Title string
	// MaxRunning is the project's cap on its Runs holding a slot at once
	// (project.Project.MaxRunning, 0 none): as with the title, a file
	// always says it, so leaving it out lifts the cap.
	MaxRunning int
	// Env is the project's env (project.Project.Env), sorted by name: as
	// with the title, a file always says it, so leaving it out removes
	// it.
	Env      []task.EnvVar
	Tasks    []TaskDoc
	Triggers []TriggerDoc
	// Notifications is the project's notification settings when the file
	// gives them (HasNotifications); a file without them leaves the
	// project's as they are.
	Notifications    notify.Spec
	HasNotifications bool
	// Expect is what an edit form's file was written from, set by its
	// caller, never by Parse: an apply finding another revision of one
	// of these entries publishes nothing (checkExpected).
	Expect []Expected
}

// TaskDoc is one task entry with its position.
type TaskDoc struct {
	Line int
	Spec task.Spec
	// Title is the task's display title, "" none. It is no part of the
	// spec: a title is the object's, not its revisions', so changing it
	// publishes no revision (catalog.Titles).
	Title string
}

// TriggerDoc is one trigger entry with its position.
type TriggerDoc struct {
	Line     int
	TaskName string
	Spec     trigger.Spec
	// Title is the trigger's display title, as TaskDoc.Title.
	Title string
}

// ParseFile reads and parses path; "-" is standard input.
func ParseFile(path string, stdin io.Reader) (*Document, error) {
	if path == "-" {
		return Read("stdin", stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Invalid, err, "cannot read definitions file")
	}
	defer f.Close() //nolint:errcheck // read only
	return Read(path, f)
}

// Read reads at most MaxFileSize bytes from r and parses them; file names
// the source in error messages. It never holds more than the limit, however
// much r would give (a pipe, a device).
func Read(file string, r io.Reader) (*Document, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Invalid, err, "%s: cannot read definitions file", file)
	}
	if len(data) > MaxFileSize {
		return nil, qlerror.New(qlerror.Invalid, "%s: larger than the limit of %d bytes (4 MiB); split the project over several files", file, MaxFileSize).
			Because(RefusalTooLarge, "limit", MaxFileSize)
	}
	return Parse(file, data)
}

// Parse parses data; file names the source in error messages. Every error
// of the file is reported (FileErrors), each at its place, except where
// one makes the rest meaningless: a YAML syntax error, a second document,
// a top level that is no mapping, tasks or triggers that are no list or
// too long a list are reported alone, and anchors and keys that are not
// strings (all of them) without the errors of what they would mean.
func Parse(file string, data []byte) (*Document, error) {
	p := parser{file: file, found: &found{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil && !errors.Is(err, io.EOF) {
		return nil, p.yamlError(data, err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return nil, qlerror.New(qlerror.Invalid, "%s: the file is empty; it must be a mapping with project, tasks and triggers", file).Because(RefusalEmptyFile)
	}
	// A second document (after ---) would otherwise be dropped without a
	// word: its project, tasks and triggers never published while apply
	// reports success for the first.
	for {
		var next yaml.Node
		err := dec.Decode(&next)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, p.yamlError(data, err)
		}
		if len(next.Content) > 0 && next.Content[0].Tag != "!!null" {
			p.fail(next.Content[0], invalid("a second YAML document (after ---); a file holds one project: put each document in a file of its own").
				Because(RefusalSecondDocument))
			return nil, p.found.err(file)
		}
	}
	p.plain(root.Content[0])
	if p.found.count() > 0 {
		return nil, p.found.err(file)
	}
	if !p.shape(root.Content[0]) {
		return nil, p.found.err(file)
	}
	doc, tasks, triggers := p.document(root.Content[0])
	p.found.references(file, tasks, triggers)
	if err := p.found.err(file); err != nil {
		return nil, err
	}
	return doc, nil
}

// yamlError is the decoder's error, at its line when it names one.
func (p parser) yamlError(data []byte, err error) error {
	if le := syntaxError(p.file, data, err); le != nil {
		p.found.add(le)
		return p.found.err(p.file)
	}
	detail := strings.TrimPrefix(err.Error(), "yaml: ")
	return qlerror.New(qlerror.Invalid, "%s: %s", p.file, detail).Because(RefusalYAMLSyntax, "detail", detail)
}

// plain refuses what YAML tools disagree on or what expands in memory:
// anchors, aliases, merge keys and keys that are not plain strings, each
// where it is. Such a file would not mean the same thing to every reader
// of it.
func (p parser) plain(n *yaml.Node) {
	// An alias always follows its anchor, so refusing anchors refuses both.
	if n.Anchor != "" {
		p.fail(n, invalid("YAML anchors and aliases (&%s) are not allowed; write the value out where it is used", n.Anchor).
			Because(RefusalYAMLAnchor, "anchor", n.Anchor))
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			if c.Kind != yaml.ScalarNode || c.Tag != "!!str" {
				p.fail(c, invalid("mapping keys must be plain strings, not %s; quote the key", describe(c)).Because(RefusalKeyNotString))
			}
		}
		p.plain(c)
	}
}

// describe names a node's kind for an error message.
func describe(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Tag == "!!merge":
		return "a merge key (<<)"
	}
	return fmt.Sprintf("%q (%s)", n.Value, strings.TrimPrefix(n.Tag, "!!"))
}

// parser reads one file. Each of its readings reports what is wrong with
// the part it reads (fail) and goes on with the parts that do not depend
// on it; one that returns ok false found its part unusable.
type parser struct {
	file  string
	found *found
	// in is the task or trigger entry the parser reads (Kind "" outside
	// one): each of its errors is about it. Once its name is read (lead),
	// each also says which task or trigger it is about.
	in   Entry
	lead bool
}

// fail reports err at n's line and column. It returns false, for the
// reading that fails to return as its ok.
func (p parser) fail(n *yaml.Node, err error) bool {
	return p.failAt(n.Line, n.Column, err)
}

// failAt reports err at line and column (0: none known), as fail does.
func (p parser) failAt(line, column int, err error) bool {
	switch {
	case p.lead:
		p.found.add(locatedIn(p.file, line, column, p.in, err))
	default:
		le := located(p.file, line, column, err)
		le.About = p.in
		p.found.add(le)
	}
	return false
}

// named gives the entry's name, once read, to its errors found since
// before that were found before it: a mistake in the entry's keys is
// reported before its name is read, and is about that entry all the same.
func (p parser) named(before int, name string) {
	for _, le := range p.found.errs[before:] {
		if le.About.Kind == p.in.Kind && le.About.Index == p.in.Index {
			le.About.Name = name
		}
	}
}

// notDuration reports n, whose value s is no duration in whole
// milliseconds from lo to hi, in the words of format (which names field).
func (p parser) notDuration(n *yaml.Node, field, s string, lo, hi time.Duration, format string, args ...any) bool {
	return p.fail(n, invalid(format, args...).Because(validate.RefusalNotDuration,
		"field", field, "value", s, "min", validate.DurationBound(lo), "max", validate.DurationBound(hi)))
}

// notADuration reports n, whose value s does not read as a duration in
// whole milliseconds from lo to hi, in the sentence every user-given
// duration is refused with (the parser's "unknown unit" does not say
// what to write instead), or as finer than a millisecond where it reads
// but is.
func (p parser) notADuration(n *yaml.Node, field, s string, lo, hi time.Duration) bool {
	if d, ok := validate.ParseDuration(s); ok && d%time.Millisecond != 0 {
		return p.notDuration(n, field, s, lo, hi, "%s: %q is finer than the whole milliseconds it takes, from %s to %s: round it to a millisecond, e.g. 1500ms",
			field, s, validate.DurationBound(lo), validate.DurationBound(hi))
	}
	return p.notDuration(n, field, s, lo, hi, "%s", validate.NotADuration(field, s, lo, hi))
}

// durationOutOfRange reports n, whose value s reads as a duration in
// whole milliseconds but falls outside lo to hi, in the one sentence
// every range refusal has.
func (p parser) durationOutOfRange(n *yaml.Node, field, s string, lo, hi time.Duration) bool {
	return p.notDuration(n, field, s, lo, hi, "%s", validate.DurationOutOfRange(field, s, lo, hi))
}

// parseMillis reads s as every user-given duration is read
// (validate.ParseDuration); ok is false for one that is not a whole
// number of milliseconds.
func parseMillis(s string) (time.Duration, bool) {
	d, ok := validate.ParseDuration(s)
	return d, ok && d%time.Millisecond == 0
}

// outOfRange reports n, which must be a whole number from lo to hi, in
// the words of format (which names field).
func (p parser) outOfRange(n *yaml.Node, field string, lo, hi int, format string, args ...any) bool {
	return p.fail(n, invalid(format, args...).Because(validate.RefusalOutOfRange, "field", field, "value", n.Value, "min", lo, "max", hi))
}

// required reports n, the mapping missing field, in the words of format
// (which names the field) — unless the mapping has a key it does not know
// (complete false, from fields): that key, reported, is most likely the
// missing field misspelt, and saying it is missing too would send its
// author looking for a second mistake.
func (p parser) required(n *yaml.Node, complete bool, field, format string, args ...any) bool {
	if !complete {
		return false
	}
	return p.fail(n, invalid(format, args...).Because(validate.RefusalRequired, "field", field))
}

// notMapping reports n, which must be a mapping, in the words of format
// (which names the field).
func (p parser) notMapping(n *yaml.Node, field, format string, args ...any) bool {
	return p.fail(n, invalid(format, args...).Because(RefusalNotMapping, "field", field))
}

// notList reports n, which must be a list, in the words of format (which
// names the field).
func (p parser) notList(n *yaml.Node, field, format string, args ...any) bool {
	return p.fail(n, invalid(format, args...).Because(RefusalNotList, "field", field))
}

// fields returns the mapping's keys → value nodes, reporting each unknown
// and duplicate key at its place (the first of a duplicate key counts);
// complete is false when there was an unknown one. Nil when n is no
// mapping (reported).
func (p parser) fields(n *yaml.Node, what string, allowed ...string) (f map[string]*yaml.Node, complete bool) {
	if n.Kind != yaml.MappingNode {
		p.notMapping(n, what, "%s must be a mapping (key: value)", what)
		return nil, false
	}
	out := make(map[string]*yaml.Node, len(n.Content)/2)
	complete = true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !contains(allowed, k.Value) {
			list := strings.Join(allowed, ", ")
			p.fail(k, invalid("%s: unknown field %q (allowed: %s)", what, k.Value, list).
				Because(RefusalUnknownField, "field", what, "value", k.Value, "allowed", list))
			complete = false
			continue
		}
		if _, dup := out[k.Value]; dup {
			p.fail(k, invalid("%s: field %q given twice", what, k.Value).Because(validate.RefusalGivenTwice, "field", what, "value", k.Value))
			continue
		}
		out[k.Value] = v
	}
	return out, complete
}

func (p parser) str(n *yaml.Node, field string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", p.fail(n, invalid("%s must be a string", field).Because(RefusalNotString, "field", field))
	}
	return n.Value, true
}

// title reads an optional display title, trimmed of the spaces around
// it; "" when it has a mistake (which is reported).
func (p parser) title(n *yaml.Node, field string) string {
	s, ok := p.str(n, field)
	if !ok {
		return ""
	}
	s = strings.TrimSpace(s)
	if err := validate.Title(field, s); err != nil {
		p.fail(n, err)
		return ""
	}
	return s
}

// maxRunning reads a project's cap on its Runs running at once, a whole
// number from 1 to project.MaxMaxRunning; 0 when it has a mistake (which
// is reported). A cap of 0 would run nothing, and the way to have no cap
// is to leave the key out, so 0 is refused rather than read as either.
func (p parser) maxRunning(n *yaml.Node) int {
	const field = "project.maxRunning"
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		p.outOfRange(n, field, 1, project.MaxMaxRunning,
			"maxRunning: must be a whole number of Runs, 1 … %d, that the project may run at once (leave it out for no cap)", project.MaxMaxRunning)
		return 0
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil || v < 1 || v > project.MaxMaxRunning {
		p.outOfRange(n, field, 1, project.MaxMaxRunning,
			"maxRunning: %s is outside 1 … %d, the Runs the project may run at once (leave it out for no cap)", n.Value, project.MaxMaxRunning)
		return 0
	}
	return v
}

func (p parser) boolean(n *yaml.Node, field string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, p.fail(n, invalid("%s must be true or false", field).Because(RefusalNotBool, "field", field))
	}
	v, _ := strconv.ParseBool(n.Value)
	return v, true
}

// shape checks what the rest of the file is read by: a top-level mapping
// whose tasks and triggers are lists within the limits. When it is not
// so, the one error says it: every entry's error would follow from it.
func (p parser) shape(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode {
		return p.notMapping(n, "file", "file must be a mapping (key: value)")
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if (k != "tasks" && k != "triggers") || seen[k] {
			continue
		}
		seen[k] = true
		limit := map[string]int{"tasks": MaxTasks, "triggers": MaxTriggers}[k]
		// `tasks:` with nothing under it is YAML's null: a skeleton not yet
		// filled in, which says what leaving the key out says.
		if v.Kind != yaml.SequenceNode && (v.Kind != yaml.ScalarNode || v.Tag != "!!null") {
			return p.notList(v, k, "%s must be a list", k)
		}
		if len(v.Content) > limit {
			return p.fail(v, invalid("%s: %d entries, the limit is %d per file; split the project over several files", k, len(v.Content), limit).
				Because(RefusalTooManyEntries, "field", k, "count", len(v.Content), "limit", limit))
		}
	}
	return true
}

// document reads a file of the right shape, and its entries as far as
// each could be read, for the checks of what they say of each other.
func (p parser) document(n *yaml.Node) (*Document, []taskEntry, []triggerEntry) {
	f, complete := p.fields(n, "file", "project", "status", "tasks", "triggers", "notifications", "title", "maxRunning", "env")
	doc := &Document{File: p.file}
	pn, named := f["project"]
	if !named {
		p.required(n, complete, "project", "project: is required (the project's name)")
	} else {
		doc.Project, named = p.str(pn, "project")
	}
	status, checked := true, project.Active
	if s, ok := f["status"]; ok {
		var v string
		v, status = p.str(s, "status")
		doc.Status, checked = project.Status(v), project.Status(v)
	}
	if named && status {
		if err := (project.Project{ID: "00000000-0000-7000-8000-000000000000", Name: doc.Project, Status: checked}).Validate(); err != nil {
			p.fail(pn, err)
		}
	}
	if v, ok := f["title"]; ok {
		doc.Title = p.title(v, "project.title")
	}
	if v, ok := f["maxRunning"]; ok {
		doc.MaxRunning = p.maxRunning(v)
	}
	envRead := p.found.count()
	if v, ok := f["env"]; ok {
		doc.Env = p.projectEnv(v)
	}
	envClean := p.found.count() == envRead
	if nn, ok := f["notifications"]; ok {
		doc.Notifications = p.notifications(nn)
		doc.HasNotifications = true
	}
	var tasks []taskEntry
	if tn, ok := f["tasks"]; ok {
		for i, item := range tn.Content {
			e := p.task(i, item)
			// Every task starts with the project's env too: one that
			// fits alone may not with it.
			if err := e.Spec.Command.CheckExecSizeIn(doc.Env); err != nil && e.clean && envClean {
				in := p
				in.in, in.lead = Entry{Kind: "task", Index: i, Name: e.Spec.Name}, true
				e.clean = in.fail(item, asFileKeys(err))
			}
			tasks = append(tasks, e)
			doc.Tasks = append(doc.Tasks, e.TaskDoc)
		}
	}
	var triggers []triggerEntry
	if tn, ok := f["triggers"]; ok {
		for i, item := range tn.Content {
			e := p.trigger(i, item)
			triggers = append(triggers, e)
			doc.Triggers = append(doc.Triggers, e.TriggerDoc)
		}
	}
	return doc, tasks, triggers
}

// taskEntry is a task entry as far as it could be read.
type taskEntry struct {
	TaskDoc
	// named: its name was read, and is not empty (the name's own error
	// says so); clean: all of it was read, without an error.
	named, clean bool
}

// triggerEntry is a trigger entry as far as it could be read.
type triggerEntry struct {
	TriggerDoc
	// named: its name was read, and is not empty; bound: its task's name
	// was read; clean: all of it was, without an error.
	named, bound, clean bool
}

func (p parser) task(i int, n *yaml.Node) taskEntry {
	before := p.found.count()
	p.in = Entry{Kind: "task", Index: i}
	e := taskEntry{TaskDoc: TaskDoc{Line: n.Line, Spec: task.Spec{Enabled: true}}}
	f, complete := p.fields(n, "task", "name", "enabled", "labels", "shell", "script", "command", "env", "workingDir", "timeout", "runAs", "killGrace", "retry", "placement", "title")
	if f == nil {
		return e
	}
	v, checkName := f["name"]
	if checkName {
		e.Spec.Name, checkName = p.str(v, "task.name")
		e.named = checkName && e.Spec.Name != ""
	}
	p.in.Name, p.lead = e.Spec.Name, true
	p.named(before, e.Spec.Name)
	// What the spec's validation says of the name (or of its absence), as
	// it says it, but with the task's other errors rather than in the next
	// pass: that validation runs only on a task read whole. A missing name
	// is left unsaid beside an unknown key, most likely the name misspelt.
	if checkName || (complete && v == nil) {
		if err := validate.Name("task.name", e.Spec.Name); err != nil {
			p.fail(n, err)
		}
	}
	if v, ok := f["title"]; ok {
		e.Title = p.title(v, "task.title")
	}
	if v, ok := f["enabled"]; ok {
		e.Spec.Enabled, _ = p.boolean(v, "task.enabled")
	}
	if v, ok := f["labels"]; ok {
		var read bool
		if e.Spec.Labels, read = p.stringMap(v, "task.labels"); read {
			p.check(v, task.CheckLabels(e.Spec.Labels))
		}
	}
	c := &e.Spec.Command
	// The command's size (ExecSize) is checked once its program, script
	// and env are each read without a mistake.
	command := p.found.count()
	_, hasShell := f["shell"]
	_, hasScript := f["script"]
	cmd, hasCmd := f["command"]
	switch {
	case hasCmd && (hasShell || hasScript):
		p.fail(cmd, invalid("give either command (argv mode) or shell + script (shell mode), not both").
			Because(RefusalCommandAndScript, "task", e.Spec.Name))
	case hasCmd:
		c.Mode = task.ModeArgv
		argv, ok := p.stringList(cmd, "task.command")
		switch {
		case !ok:
		case len(argv) == 0:
			p.fail(cmd, invalid("task.command: needs at least the absolute path of the program, e.g. [\"/usr/bin/env\", \"date\"]").
				Because(RefusalEmptyCommand, "field", "task.command"))
		default:
			c.Path, c.Args = argv[0], argv[1:]
			p.check(cmd.Content[0], task.CheckProgram(c.Path))
			p.check(cmd, task.CheckArgs(c.Args))
		}
	case hasShell || hasScript:
		c.Mode = task.ModeShell
		c.Shell = "/bin/sh"
		if v, ok := f["shell"]; ok {
			var read bool
			if c.Shell, read = p.str(v, "task.shell"); read {
				p.check(v, task.CheckShell(c.Shell))
			}
		}
		if v, ok := f["script"]; ok {
			var read bool
			if c.Script, read = p.str(v, "task.script"); read {
				p.check(v, task.CheckScript(c.Script))
			}
		} else if complete {
			p.check(n, task.CheckScript(""))
		}
	case complete:
		p.fail(n, invalid("needs command (argv mode) or script (shell mode)").Because(RefusalNoCommand, "task", e.Spec.Name))
	}
	if v, ok := f["env"]; ok {
		c.Env = p.env(v)
	}
	if c.Mode != "" && p.found.count() == command {
		p.check(n, c.CheckExecSize())
	}
	if v, ok := f["workingDir"]; ok {
		var read bool
		if c.WorkingDir, read = p.str(v, "task.workingDir"); read {
			p.check(v, task.CheckWorkingDir(c.WorkingDir))
		}
	}
	if v, ok := f["timeout"]; ok {
		c.TimeoutMs = p.timeout(v)
	}
	if v, ok := f["runAs"]; ok {
		c.RunAs = p.runAs(v)
	}
	if v, ok := f["killGrace"]; ok {
		c.KillGraceMs, _ = p.millis(v, "task.killGrace", task.MaxKillGrace)
	}
	if v, ok := f["retry"]; ok {
		c.Retry = p.retry(v)
	}
	if v, ok := f["placement"]; ok {
		c.Placement = p.placement(v)
	}
	// Each check of the task spec ran above on the fields it reads, as
	// they were read, so a task with one mistake still shows the others.
	// The spec's validation, which stops at its first error, runs again
	// on a task read whole only: what every other way of publishing a
	// task checks, a file's task passes too.
	if e.clean = p.found.count() == before; e.clean {
		if err := e.Spec.Normalize().Validate(); err != nil {
			e.clean = p.fail(n, asFileKeys(err))
		}
	}
	return e
}

// check reports err, a task field's own check, at the field's value, in
// the file's keys; nil is no mistake.
func (p parser) check(v *yaml.Node, err error) {
	if err != nil {
		p.fail(v, asFileKeys(err))
	}
}

// timeout reads task.timeout, a duration in whole milliseconds from 1ms
// to task.MaxTimeout.
func (p parser) timeout(v *yaml.Node) int64 {
	s, ok := p.str(v, "task.timeout")
	if !ok {
		return 0
	}
	d, ok := parseMillis(s)
	switch {
	case !ok:
		p.notADuration(v, "task.timeout", s, task.MinTimeout, task.MaxTimeout)
	case d < task.MinTimeout || d > task.MaxTimeout:
		p.durationOutOfRange(v, "task.timeout", s, task.MinTimeout, task.MaxTimeout)
	}
	return d.Milliseconds()
}

// retry reads {maxAttempts: N, backoff: 10s, on: [lost, failed, timed_out]};
// on defaults to [lost], backoff to 0s. maxAttempts 1 is no retry and reads
// as the default policy, so it stores and digests like no retry field.
func (p parser) retry(n *yaml.Node) task.RetryPolicy {
	f, complete := p.fields(n, "task.retry", "maxAttempts", "backoff", "on")
	if f == nil {
		return task.RetryPolicy{}
	}
	r := task.RetryPolicy{On: []string{task.RetryOnLost}}
	m, given := f["maxAttempts"]
	switch {
	case !given:
		p.required(n, complete, "task.retry.maxAttempts", "task.retry.maxAttempts: is required (attempts in all, 1 … %d; 1 means no retry)", task.MaxRetryAttempts)
	case m.Kind != yaml.ScalarNode || m.Tag != "!!int":
		p.outOfRange(m, "task.retry.maxAttempts", 1, task.MaxRetryAttempts,
			"task.retry.maxAttempts: must be a whole number of attempts in all, 1 … %d", task.MaxRetryAttempts)
	default:
		a, err := strconv.Atoi(m.Value)
		if err != nil || a < 1 || a > task.MaxRetryAttempts {
			p.outOfRange(m, "task.retry.maxAttempts", 1, task.MaxRetryAttempts,
				"task.retry.maxAttempts: %s is outside 1 … %d (1 means no retry)", m.Value, task.MaxRetryAttempts)
		}
		r.MaxAttempts = a
	}
	if v, ok := f["backoff"]; ok {
		if s, ok := p.str(v, "task.retry.backoff"); ok {
			d, ok := parseMillis(s)
			hi := time.Duration(task.MaxRetryBackoffMs) * time.Millisecond
			switch {
			case !ok:
				p.notADuration(v, "task.retry.backoff", s, 0, hi)
			case d < 0 || d > hi:
				p.durationOutOfRange(v, "task.retry.backoff", s, 0, hi)
			}
			r.BackoffMs = d.Milliseconds()
		}
	}
	if v, ok := f["on"]; ok {
		r.On = p.retryOn(v)
	}
	if r.MaxAttempts == 1 {
		return task.RetryPolicy{}
	}
	return r
}

// retryOn reads retry.on, a list of the outcomes a Run is retried after,
// each once; it stops at the first that is not.
func (p parser) retryOn(v *yaml.Node) []string {
	outcomes := strings.Join(task.RetryOutcomes, ", ")
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		p.fail(v, invalid("task.retry.on: must be a list of some of %s, e.g. [lost, timed_out]", outcomes).
			Because(RefusalRetryOn, "field", "task.retry.on", "allowed", outcomes))
		return nil
	}
	var on []string
	for i, item := range v.Content {
		o, ok := p.str(item, fmt.Sprintf("task.retry.on[%d]", i))
		switch {
		case !ok:
			return on
		case !contains(task.RetryOutcomes, o):
			p.fail(item, invalid("task.retry.on: %q is not an outcome that can be retried; use %s", o, outcomes).
				Because(validate.RefusalNotOneOf, "field", "task.retry.on", "value", o, "allowed", outcomes))
			return on
		case contains(on, o):
			p.fail(item, invalid("task.retry.on: %q is given twice", o).Because(validate.RefusalGivenTwice, "field", "task.retry.on", "value", o))
			return on
		}
		on = append(on, o)
	}
	return on
}

// placement reads {labels: {k: v}}: the labels a worker must have.
func (p parser) placement(n *yaml.Node) task.Placement {
	f, complete := p.fields(n, "task.placement", "labels")
	if f == nil {
		return task.Placement{}
	}
	v, ok := f["labels"]
	if !ok {
		p.required(n, complete, "task.placement.labels", "task.placement.labels: is required, e.g. placement: {labels: {region: eu}}")
		return task.Placement{}
	}
	labels, ok := p.stringMap(v, "task.placement.labels")
	if !ok {
		return task.Placement{}
	}
	if err := task.CheckWorkerLabels("task.placement.labels", labels); err != nil {
		p.fail(v, err)
	}
	return task.Placement{Labels: labels}
}

// runAs reads {user: name-or-uid, group: name-or-gid}; group is optional.
func (p parser) runAs(n *yaml.Node) task.RunAs {
	var r task.RunAs
	f, complete := p.fields(n, "task.runAs", "user", "group")
	if f == nil {
		return r
	}
	before := p.found.count()
	if u, ok := f["user"]; !ok {
		p.required(n, complete, "task.runAs.user", "task.runAs.user: is required (a user name or numeric uid)")
	} else {
		r.User, _ = p.str(u, "task.runAs.user")
	}
	if g, ok := f["group"]; ok {
		r.Group, _ = p.str(g, "task.runAs.group")
	}
	if complete && p.found.count() == before {
		if err := r.Validate("task.runAs"); err != nil {
			p.fail(n, err)
		}
	}
	return r
}

// millis reads a positive duration in whole milliseconds, like 10s, of
// at most hi. The spec's validation checks the range too; checked here,
// a value out of it is reported at its own line, not its task's.
func (p parser) millis(n *yaml.Node, field string, hi time.Duration) (int64, bool) {
	s, ok := p.str(n, field)
	if !ok {
		return 0, false
	}
	d, ok := parseMillis(s)
	if !ok {
		return 0, p.notADuration(n, field, s, time.Millisecond, hi)
	}
	if d <= 0 || d > hi {
		return 0, p.durationOutOfRange(n, field, s, time.Millisecond, hi)
	}
	return d.Milliseconds(), true
}

func (p parser) trigger(i int, n *yaml.Node) triggerEntry {
	before := p.found.count()
	p.in = Entry{Kind: "trigger", Index: i}
	e := triggerEntry{TriggerDoc: TriggerDoc{Line: n.Line, Spec: trigger.Spec{Enabled: true, Cron: trigger.Cron{MisfirePolicy: trigger.FireOnce}}}}
	f, complete := p.fields(n, "trigger", "name", "task", "cron", "timezone", "misfire", "enabled", "jitter", "startAt", "endAt", "catchUpWindow", "overlap", "title")
	if f == nil {
		return e
	}
	var read [4]bool
	for i, k := range [...]struct {
		key string
		dst *string
	}{{"name", &e.Spec.Name}, {"task", &e.TaskName}, {"cron", &e.Spec.Cron.Expression}, {"timezone", &e.Spec.Cron.Timezone}} {
		v, ok := f[k.key]
		switch {
		case !ok && k.key == "timezone":
			p.required(n, complete, "trigger.timezone", "trigger.timezone: is required: %s", cron.TimezoneRequired)
		case !ok:
			p.required(n, complete, "trigger."+k.key, "trigger.%s: is required", k.key)
		default:
			*k.dst, read[i] = p.str(v, "trigger."+k.key)
		}
		if i == 0 {
			// The name, read or not, says which trigger every later
			// mistake of the entry is about.
			p.in.Name, p.lead = e.Spec.Name, true
			p.named(before, e.Spec.Name)
		}
	}
	e.named, e.bound = read[0] && e.Spec.Name != "", read[1]
	if v, ok := f["title"]; ok {
		e.Title = p.title(v, "trigger.title")
	}
	// What the spec's validation says of the name, as it says it (Check),
	// but with the file's other errors rather than after them.
	if read[0] {
		if err := validate.Name("trigger.name", e.Spec.Name); err != nil {
			p.fail(n, err)
		}
	}
	// The expression and its zone are checked apart, each at its own
	// line: a mistake in one leaves the other worth checking. The spec's
	// validation repeats it for every other way a trigger is published.
	if read[2] {
		if err := checkExpression(e.Spec.Cron.Expression); err != nil {
			p.fail(f["cron"], cron.Refusal("trigger.cron", err))
		}
	}
	if read[3] {
		if err := cron.CheckTimezone(e.Spec.Cron.Timezone); err != nil {
			p.fail(f["timezone"], cron.Refusal("trigger.timezone", err))
		}
	}
	if v, ok := f["misfire"]; ok {
		if s, ok := p.str(v, "trigger.misfire"); ok {
			if m := trigger.MisfirePolicy(s); m == trigger.Skip || m == trigger.FireOnce {
				e.Spec.Cron.MisfirePolicy = m
			} else {
				p.fail(v, invalid("trigger.misfire: %q is not one of skip, fire_once", s).
					Because(validate.RefusalNotOneOf, "field", "trigger.misfire", "value", s, "allowed", "skip, fire_once"))
			}
		}
	}
	if v, ok := f["enabled"]; ok {
		e.Spec.Enabled, _ = p.boolean(v, "trigger.enabled")
	}
	p.timePolicies(f, &e.Spec.Cron)
	if v, ok := f["overlap"]; ok {
		if s, ok := p.str(v, "trigger.overlap"); ok {
			if o, known := trigger.ParseOverlap(s); known && s != "" {
				e.Spec.Cron.Overlap = o
			} else {
				p.fail(v, invalid("trigger.overlap: %q is not one of allow, skip, queue_one, cancel_previous", s).
					Because(validate.RefusalNotOneOf, "field", "trigger.overlap", "value", s, "allowed", "allow, skip, queue_one, cancel_previous"))
			}
		}
	}
	e.clean = p.found.count() == before
	return e
}

// checkExpression is what the spec's validation checks of an expression
// (trigger.Spec.Validate) but its zone; no expression is valid in one
// zone and not in another.
func checkExpression(expr string) error {
	if _, err := cron.Parse(expr, "UTC"); err != nil {
		return err
	}
	return cron.CheckSteps(expr)
}

// timePolicies reads jitter (a duration, 0s … 1h), startAt and endAt
// (RFC 3339 instants, endAt after startAt) and, under misfire: fire_once
// only, catchUpWindow (a duration ≥ 0).
func (p parser) timePolicies(f map[string]*yaml.Node, c *trigger.Cron) {
	if v, ok := f["jitter"]; ok {
		c.JitterMs, _ = p.duration(v, "trigger.jitter", trigger.MaxJitterMs)
	}
	for _, k := range []struct {
		key string
		dst *int64
	}{{"startAt", &c.StartAtMs}, {"endAt", &c.EndAtMs}} {
		v, ok := f[k.key]
		if !ok {
			continue
		}
		s, ok := p.str(v, "trigger."+k.key)
		if !ok {
			continue
		}
		at, err := time.Parse(time.RFC3339, s)
		if err != nil || at.UnixMilli() <= 0 || at.Nanosecond()%int(time.Millisecond) != 0 {
			p.fail(v, invalid("trigger.%s: %q is not an RFC 3339 instant after 1970 in whole milliseconds, like 2026-12-01T00:00:00Z", k.key, s).
				Because(RefusalNotInstant, "field", "trigger."+k.key, "value", s))
			continue
		}
		*k.dst = at.UnixMilli()
	}
	if c.EndAtMs != 0 && c.EndAtMs <= c.StartAtMs {
		p.fail(f["endAt"], invalid("trigger.endAt: must be after startAt").Because(trigger.RefusalEndNotAfterStart))
	}
	if v, ok := f["catchUpWindow"]; ok {
		if c.MisfirePolicy != trigger.FireOnce {
			p.fail(v, invalid("trigger.catchUpWindow: only applies to misfire: fire_once; remove it or set misfire: fire_once").
				Because(trigger.RefusalCatchUpNotFireOnce, "value", c.MisfirePolicy))
			return
		}
		if ms, ok := p.duration(v, "trigger.catchUpWindow", trigger.MaxCatchUpWindowMs); ok {
			c.CatchUpWindowMs, c.HasCatchUpWindow = ms, true
		}
	}
}

// duration reads a duration in whole milliseconds from 0 to maxMs.
func (p parser) duration(n *yaml.Node, field string, maxMs int64) (int64, bool) {
	s, ok := p.str(n, field)
	if !ok {
		return 0, false
	}
	d, ok := parseMillis(s)
	hi := time.Duration(maxMs) * time.Millisecond
	if !ok {
		return 0, p.notADuration(n, field, s, 0, hi)
	}
	if d < 0 || d > hi {
		return 0, p.durationOutOfRange(n, field, s, 0, hi)
	}
	return d.Milliseconds(), true
}

// stringMap reads a mapping of strings; it stops at the first value that
// is not one.
func (p parser) stringMap(n *yaml.Node, field string) (map[string]string, bool) {
	if n.Kind != yaml.MappingNode {
		return nil, p.notMapping(n, field, "%s must be a mapping", field)
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		s, ok := p.str(v, field+"."+k.Value)
		if !ok {
			return nil, false
		}
		out[k.Value] = s
	}
	return out, true
}

// stringList reads a list of strings; it stops at the first item that is
// not one.
func (p parser) stringList(n *yaml.Node, field string) ([]string, bool) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.notList(n, field, "%s must be a list of strings", field)
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		s, ok := p.str(item, fmt.Sprintf("%s[%d]", field, i))
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// env reads NAME: value or NAME: {secret: ref}, reporting each variable's
// mistake. A value is the text written for it, whatever YAML would read
// it as: PORT: 8080 is "8080", DEBUG: true "true", X: null "null", and
// EMPTY: with nothing after it "" — every scalar alike, where reading
// some as their text and refusing others would leave a user guessing
// which. ql export quotes such a value ("8080"), so it reads back the
// same.
func (p parser) env(n *yaml.Node) []task.EnvVar {
	return p.envOf(n, "task.env", task.CheckEnvName, task.CheckEnvValue, task.CheckEnvList)
}

// projectEnv reads a project's env, the variables every task of the
// project starts with, as a task's env is read and checked.
func (p parser) projectEnv(n *yaml.Node) []task.EnvVar {
	const field = task.ProjectEnvField
	return p.envOf(n, field,
		func(name string) error { return task.CheckEnvNameOf(field, name) },
		func(e task.EnvVar) error { return task.CheckEnvValueOf(field, e) },
		func(env []task.EnvVar) error { return task.CheckEnvListOf(field, env) })
}

// envOf reads the env of field, checking each name, each value and the
// whole list with the checks given.
func (p parser) envOf(n *yaml.Node, field string, checkName func(string) error, checkValue func(task.EnvVar) error, checkList func([]task.EnvVar) error) []task.EnvVar {
	if n.Kind != yaml.MappingNode {
		p.notMapping(n, field, "%s must be a mapping of NAME: value or NAME: {secret: ref}", field)
		return nil
	}
	var out []task.EnvVar
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := checkName(k.Value); err != nil {
			p.fail(k, asFileKeys(err))
			continue
		}
		e := task.EnvVar{Name: k.Value}
		ok := true
		if v.Kind == yaml.MappingNode {
			f, complete := p.fields(v, field+"."+k.Value, "secret")
			ref, given := f["secret"]
			switch {
			case !given && complete:
				ok = p.fail(v, invalid("%s.%s: a mapping must be {secret: ref}", field, k.Value).Because(RefusalEnvMapping, "field", field+"."+k.Value))
			case !given:
				ok = false
			default:
				e.SecretRef, ok = p.str(ref, field+"."+k.Value+".secret")
			}
		} else {
			e.Value, ok = p.envValue(v, field+"."+k.Value)
		}
		if ok {
			p.check(v, checkValue(e))
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	p.check(n, checkList(out))
	return out
}

// envValue reads an env variable's value: any scalar, as its text (env).
func (p parser) envValue(n *yaml.Node, field string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		return "", p.fail(n, invalid("%s must be a value, taken as the text written (8080, true, \"a,b\"), or {secret: name}, not %s; write a list as one string, e.g. \"a,b\"", field, describe(n)).
			Because(RefusalNotString, "field", field))
	}
	return n.Value, true
}

// specField is the start of a task spec's field path, as its validation
// and the API's JSON name it, that a definitions file spells otherwise:
// the command's settings are the task's own keys there, and command is
// the argv list, its program first.
var specField = regexp.MustCompile(`^task\.command\.(?:(path)|args\[(\d+)\]|(args)|(script|shell|workingDir|timeout|killGrace|runAs|retry|env|placement)\b)`)

// fileKey is field, a task spec's field path, as the file spells it:
// task.command.env as task.env, task.command.path as task.command[0],
// task.command.args[0] as task.command[1].
func fileKey(field string) string {
	return specField.ReplaceAllStringFunc(field, func(m string) string {
		g := specField.FindStringSubmatch(m)
		switch {
		case g[1] != "":
			return "task.command[0]"
		case g[2] != "":
			i, _ := strconv.Atoi(g[2])
			return fmt.Sprintf("task.command[%d]", i+1)
		case g[3] != "":
			return "task.command"
		}
		return "task." + g[4]
	})
}

// asFileKeys is err, of the task spec's checks, naming the file's keys
// rather than the spec's field paths (fileKey), in its words and in the
// field its sentence in another language names; its code and reason are
// kept.
func asFileKeys(err error) error {
	e, ok := err.(*qlerror.Error)
	if !ok {
		return err
	}
	out := *e
	out.Msg = fileKey(e.Msg)
	if f, ok := e.Params["field"]; ok {
		out.Params = maps.Clone(e.Params)
		out.Params["field"] = fileKey(f)
	}
	if e.Err != nil {
		out.Err = asFileKeys(e.Err)
	}
	return &out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
