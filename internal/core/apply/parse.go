package apply

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
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
	File     string
	Project  string
	Status   project.Status
	Tasks    []TaskDoc
	Triggers []TriggerDoc
	// Notifications is the project's notification settings when the file
	// gives them (HasNotifications); a file without them leaves the
	// project's as they are.
	Notifications    notify.Spec
	HasNotifications bool
}

// TaskDoc is one task entry with its position.
type TaskDoc struct {
	Line int
	Spec task.Spec
}

// TriggerDoc is one trigger entry with its position.
type TriggerDoc struct {
	Line     int
	TaskName string
	Spec     trigger.Spec
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

// Parse parses data; file names the source in error messages.
func Parse(file string, data []byte) (*Document, error) {
	p := parser{file: file}
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
			return nil, p.at(next.Content[0], invalid("a second YAML document (after ---); a file holds one project: put each document in a file of its own").
				Because(RefusalSecondDocument))
		}
	}
	if err := p.plain(root.Content[0]); err != nil {
		return nil, err
	}
	doc, err := p.document(root.Content[0])
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// yamlError is the decoder's error, at its line when it names one.
func (p parser) yamlError(data []byte, err error) error {
	if le := syntaxError(p.file, data, err); le != nil {
		return le
	}
	detail := strings.TrimPrefix(err.Error(), "yaml: ")
	return qlerror.New(qlerror.Invalid, "%s: %s", p.file, detail).Because(RefusalYAMLSyntax, "detail", detail)
}

// plain rejects what YAML tools disagree on or what expands in memory:
// anchors, aliases, merge keys and keys that are not plain strings. Such a
// file would not mean the same thing to every reader of it.
func (p parser) plain(n *yaml.Node) error {
	// An alias always follows its anchor, so refusing anchors refuses both.
	if n.Anchor != "" {
		return p.at(n, invalid("YAML anchors and aliases (&%s) are not allowed; write the value out where it is used", n.Anchor).
			Because(RefusalYAMLAnchor, "anchor", n.Anchor))
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			if c.Kind != yaml.ScalarNode || c.Tag != "!!str" {
				return p.at(c, invalid("mapping keys must be plain strings, not %s; quote the key", describe(c)).Because(RefusalKeyNotString))
			}
		}
		if err := p.plain(c); err != nil {
			return err
		}
	}
	return nil
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

type parser struct {
	file string
}

// at is err placed at n's line and column.
func (p parser) at(n *yaml.Node, err error) error {
	return located(p.file, n.Line, n.Column, err)
}

// notDuration is the error of n, whose value s is no duration in whole
// milliseconds from lo to hi, in the words of format (which names field).
func (p parser) notDuration(n *yaml.Node, field, s string, lo, hi time.Duration, format string, args ...any) error {
	return p.at(n, invalid(format, args...).Because(validate.RefusalNotDuration,
		"field", field, "value", s, "min", validate.Duration(lo), "max", validate.Duration(hi)))
}

// outOfRange is the error of n, which must be a whole number from lo to
// hi, in the words of format (which names field).
func (p parser) outOfRange(n *yaml.Node, field string, lo, hi int, format string, args ...any) error {
	return p.at(n, invalid(format, args...).Because(validate.RefusalOutOfRange, "field", field, "value", n.Value, "min", lo, "max", hi))
}

// required is the error at n, the mapping missing field, in the words of
// format (which names the field).
func (p parser) required(n *yaml.Node, field, format string, args ...any) error {
	return p.at(n, invalid(format, args...).Because(validate.RefusalRequired, "field", field))
}

// notMapping is the error of n, which must be a mapping, in the words of
// format (which names the field).
func (p parser) notMapping(n *yaml.Node, field, format string, args ...any) error {
	return p.at(n, invalid(format, args...).Because(RefusalNotMapping, "field", field))
}

// notList is the error of n, which must be a list, in the words of format
// (which names the field).
func (p parser) notList(n *yaml.Node, field, format string, args ...any) error {
	return p.at(n, invalid(format, args...).Because(RefusalNotList, "field", field))
}

// fields returns the mapping's keys → value nodes, rejecting unknown and
// duplicate keys with their line.
func (p parser) fields(n *yaml.Node, what string, allowed ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.notMapping(n, what, "%s must be a mapping (key: value)", what)
	}
	out := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !contains(allowed, k.Value) {
			list := strings.Join(allowed, ", ")
			return nil, p.at(k, invalid("%s: unknown field %q (allowed: %s)", what, k.Value, list).
				Because(RefusalUnknownField, "field", what, "value", k.Value, "allowed", list))
		}
		if _, dup := out[k.Value]; dup {
			return nil, p.at(k, invalid("%s: field %q given twice", what, k.Value).Because(validate.RefusalGivenTwice, "field", what, "value", k.Value))
		}
		out[k.Value] = v
	}
	return out, nil
}

func (p parser) str(n *yaml.Node, field string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", p.at(n, invalid("%s must be a string", field).Because(RefusalNotString, "field", field))
	}
	return n.Value, nil
}

func (p parser) boolean(n *yaml.Node, field string) (bool, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, p.at(n, invalid("%s must be true or false", field).Because(RefusalNotBool, "field", field))
	}
	v, _ := strconv.ParseBool(n.Value)
	return v, nil
}

func (p parser) document(n *yaml.Node) (*Document, error) {
	f, err := p.fields(n, "file", "project", "status", "tasks", "triggers", "notifications")
	if err != nil {
		return nil, err
	}
	doc := &Document{File: p.file, Status: project.Active}
	pn, ok := f["project"]
	if !ok {
		return nil, p.required(n, "project", "project: is required (the project's name)")
	}
	if doc.Project, err = p.str(pn, "project"); err != nil {
		return nil, err
	}
	if s, ok := f["status"]; ok {
		v, err := p.str(s, "status")
		if err != nil {
			return nil, err
		}
		doc.Status = project.Status(v)
	}
	if err := (project.Project{ID: "00000000-0000-7000-8000-000000000000", Name: doc.Project, Status: doc.Status}).Validate(); err != nil {
		return nil, p.at(pn, err)
	}
	if nn, ok := f["notifications"]; ok {
		if doc.Notifications, err = p.notifications(nn); err != nil {
			return nil, err
		}
		doc.HasNotifications = true
	}
	if tn, ok := f["tasks"]; ok {
		if tn.Kind != yaml.SequenceNode {
			return nil, p.notList(tn, "tasks", "tasks must be a list")
		}
		if len(tn.Content) > MaxTasks {
			return nil, p.at(tn, invalid("tasks: %d entries, the limit is %d per file; split the project over several files", len(tn.Content), MaxTasks).
				Because(RefusalTooManyEntries, "field", "tasks", "count", len(tn.Content), "limit", MaxTasks))
		}
		for _, item := range tn.Content {
			td, err := p.task(item)
			if err != nil {
				return nil, err
			}
			doc.Tasks = append(doc.Tasks, td)
		}
	}
	if tn, ok := f["triggers"]; ok {
		if tn.Kind != yaml.SequenceNode {
			return nil, p.notList(tn, "triggers", "triggers must be a list")
		}
		if len(tn.Content) > MaxTriggers {
			return nil, p.at(tn, invalid("triggers: %d entries, the limit is %d per file; split the project over several files", len(tn.Content), MaxTriggers).
				Because(RefusalTooManyEntries, "field", "triggers", "count", len(tn.Content), "limit", MaxTriggers))
		}
		for _, item := range tn.Content {
			td, err := p.trigger(item)
			if err != nil {
				return nil, err
			}
			doc.Triggers = append(doc.Triggers, td)
		}
	}
	return doc, nil
}

func (p parser) task(n *yaml.Node) (TaskDoc, error) {
	f, err := p.fields(n, "task", "name", "enabled", "labels", "shell", "script", "command", "env", "workingDir", "timeout", "runAs", "killGrace", "retry", "placement")
	if err != nil {
		return TaskDoc{}, err
	}
	td := TaskDoc{Line: n.Line, Spec: task.Spec{Enabled: true}}
	if v, ok := f["name"]; ok {
		if td.Spec.Name, err = p.str(v, "task.name"); err != nil {
			return td, err
		}
	}
	if v, ok := f["enabled"]; ok {
		if td.Spec.Enabled, err = p.boolean(v, "task.enabled"); err != nil {
			return td, err
		}
	}
	if v, ok := f["labels"]; ok {
		if td.Spec.Labels, err = p.stringMap(v, "task.labels"); err != nil {
			return td, err
		}
	}
	c := &td.Spec.Command
	_, hasShell := f["shell"]
	_, hasScript := f["script"]
	cmd, hasCmd := f["command"]
	switch {
	case hasCmd && (hasShell || hasScript):
		return td, p.at(cmd, invalid("task %q: give either command (argv mode) or shell + script (shell mode), not both", td.Spec.Name).
			Because(RefusalCommandAndScript, "task", td.Spec.Name))
	case hasCmd:
		c.Mode = task.ModeArgv
		argv, err := p.stringList(cmd, "task.command")
		if err != nil {
			return td, err
		}
		if len(argv) == 0 {
			return td, p.at(cmd, invalid("task.command: needs at least the absolute path of the program, e.g. [\"/usr/bin/env\", \"date\"]").
				Because(RefusalEmptyCommand, "field", "task.command"))
		}
		c.Path, c.Args = argv[0], argv[1:]
	case hasShell || hasScript:
		c.Mode = task.ModeShell
		c.Shell = "/bin/sh"
		if v, ok := f["shell"]; ok {
			if c.Shell, err = p.str(v, "task.shell"); err != nil {
				return td, err
			}
		}
		if v, ok := f["script"]; ok {
			if c.Script, err = p.str(v, "task.script"); err != nil {
				return td, err
			}
		}
	default:
		return td, p.at(n, invalid("task %q: needs command (argv mode) or script (shell mode)", td.Spec.Name).Because(RefusalNoCommand, "task", td.Spec.Name))
	}
	if v, ok := f["env"]; ok {
		if c.Env, err = p.env(v); err != nil {
			return td, err
		}
	}
	if v, ok := f["workingDir"]; ok {
		if c.WorkingDir, err = p.str(v, "task.workingDir"); err != nil {
			return td, err
		}
	}
	if v, ok := f["timeout"]; ok {
		s, err := p.str(v, "task.timeout")
		if err != nil {
			return td, err
		}
		d, err := time.ParseDuration(s)
		if err != nil || d%time.Millisecond != 0 {
			return td, p.notDuration(v, "task.timeout", s, task.MinTimeout, task.MaxTimeout, "task.timeout: %q is not a duration in whole milliseconds like 30s, 5m or 2h", s)
		}
		c.TimeoutMs = d.Milliseconds()
		if c.TimeoutMs == 0 {
			return td, p.notDuration(v, "task.timeout", s, task.MinTimeout, task.MaxTimeout, "task.timeout: must be at least 1ms")
		}
		if d > task.MaxTimeout {
			return td, p.notDuration(v, "task.timeout", s, task.MinTimeout, task.MaxTimeout, "task.timeout: %s is longer than the most it takes, 365 days (8760h)", s)
		}
	}
	if v, ok := f["runAs"]; ok {
		if c.RunAs, err = p.runAs(v); err != nil {
			return td, err
		}
	}
	if v, ok := f["killGrace"]; ok {
		if c.KillGraceMs, err = p.millis(v, "task.killGrace", task.MaxKillGrace); err != nil {
			return td, err
		}
	}
	if v, ok := f["retry"]; ok {
		if c.Retry, err = p.retry(v); err != nil {
			return td, err
		}
	}
	if v, ok := f["placement"]; ok {
		if c.Placement, err = p.placement(v); err != nil {
			return td, err
		}
	}
	if err := td.Spec.Normalize().Validate(); err != nil {
		return td, p.at(n, qlerror.Wrap(qlerror.Invalid, err, "task %q", td.Spec.Name))
	}
	return td, nil
}

// retry reads {maxAttempts: N, backoff: 10s, on: [lost, failed, timed_out]};
// on defaults to [lost], backoff to 0s. maxAttempts 1 is no retry and reads
// as the default policy, so it stores and digests like no retry field.
func (p parser) retry(n *yaml.Node) (task.RetryPolicy, error) {
	f, err := p.fields(n, "task.retry", "maxAttempts", "backoff", "on")
	if err != nil {
		return task.RetryPolicy{}, err
	}
	r := task.RetryPolicy{On: []string{task.RetryOnLost}}
	m, ok := f["maxAttempts"]
	if !ok {
		return r, p.required(n, "task.retry.maxAttempts", "task.retry.maxAttempts: is required (attempts in all, 1 … %d; 1 means no retry)", task.MaxRetryAttempts)
	}
	if m.Kind != yaml.ScalarNode || m.Tag != "!!int" {
		return r, p.outOfRange(m, "task.retry.maxAttempts", 1, task.MaxRetryAttempts,
			"task.retry.maxAttempts: must be a whole number of attempts in all, 1 … %d", task.MaxRetryAttempts)
	}
	if r.MaxAttempts, err = strconv.Atoi(m.Value); err != nil || r.MaxAttempts < 1 || r.MaxAttempts > task.MaxRetryAttempts {
		return r, p.outOfRange(m, "task.retry.maxAttempts", 1, task.MaxRetryAttempts,
			"task.retry.maxAttempts: %s is outside 1 … %d (1 means no retry)", m.Value, task.MaxRetryAttempts)
	}
	if v, ok := f["backoff"]; ok {
		s, err := p.str(v, "task.retry.backoff")
		if err != nil {
			return r, err
		}
		d, err := time.ParseDuration(s)
		if err != nil || d%time.Millisecond != 0 || d < 0 || d.Milliseconds() > task.MaxRetryBackoffMs {
			return r, p.notDuration(v, "task.retry.backoff", s, 0, time.Duration(task.MaxRetryBackoffMs)*time.Millisecond,
				"task.retry.backoff: %q is not a duration in whole milliseconds from 0s to 24h, like 10s or 5m", s)
		}
		r.BackoffMs = d.Milliseconds()
	}
	if v, ok := f["on"]; ok {
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			outcomes := strings.Join(task.RetryOutcomes, ", ")
			return r, p.at(v, invalid("task.retry.on: must be a list of some of %s, e.g. [lost, timed_out]", outcomes).
				Because(RefusalRetryOn, "field", "task.retry.on", "allowed", outcomes))
		}
		r.On = nil
		for i, item := range v.Content {
			o, err := p.str(item, fmt.Sprintf("task.retry.on[%d]", i))
			if err != nil {
				return r, err
			}
			if !contains(task.RetryOutcomes, o) {
				outcomes := strings.Join(task.RetryOutcomes, ", ")
				return r, p.at(item, invalid("task.retry.on: %q is not an outcome that can be retried; use %s", o, outcomes).
					Because(validate.RefusalNotOneOf, "field", "task.retry.on", "value", o, "allowed", outcomes))
			}
			if contains(r.On, o) {
				return r, p.at(item, invalid("task.retry.on: %q is given twice", o).Because(validate.RefusalGivenTwice, "field", "task.retry.on", "value", o))
			}
			r.On = append(r.On, o)
		}
	}
	if r.MaxAttempts == 1 {
		return task.RetryPolicy{}, nil
	}
	return r, nil
}

// placement reads {labels: {k: v}}: the labels a worker must have.
func (p parser) placement(n *yaml.Node) (task.Placement, error) {
	f, err := p.fields(n, "task.placement", "labels")
	if err != nil {
		return task.Placement{}, err
	}
	v, ok := f["labels"]
	if !ok {
		return task.Placement{}, p.required(n, "task.placement.labels", "task.placement.labels: is required, e.g. placement: {labels: {region: eu}}")
	}
	labels, err := p.stringMap(v, "task.placement.labels")
	if err != nil {
		return task.Placement{}, err
	}
	if err := task.CheckWorkerLabels("task.placement.labels", labels); err != nil {
		return task.Placement{}, p.at(v, err)
	}
	return task.Placement{Labels: labels}, nil
}

// runAs reads {user: name-or-uid, group: name-or-gid}; group is optional.
func (p parser) runAs(n *yaml.Node) (task.RunAs, error) {
	f, err := p.fields(n, "task.runAs", "user", "group")
	if err != nil {
		return task.RunAs{}, err
	}
	var r task.RunAs
	u, ok := f["user"]
	if !ok {
		return r, p.required(n, "task.runAs.user", "task.runAs.user: is required (a user name or numeric uid)")
	}
	if r.User, err = p.str(u, "task.runAs.user"); err != nil {
		return r, err
	}
	if g, ok := f["group"]; ok {
		if r.Group, err = p.str(g, "task.runAs.group"); err != nil {
			return r, err
		}
	}
	if err := r.Validate("task.runAs"); err != nil {
		return r, p.at(n, err)
	}
	return r, nil
}

// millis reads a positive duration in whole milliseconds, like 10s, of
// at most hi. The spec's validation checks the range too; checked here,
// a value out of it is reported at its own line, not its task's.
func (p parser) millis(n *yaml.Node, field string, hi time.Duration) (int64, error) {
	s, err := p.str(n, field)
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(s)
	if err != nil || d%time.Millisecond != 0 || d <= 0 {
		return 0, p.notDuration(n, field, s, time.Millisecond, hi, "%s: %q is not a positive duration in whole milliseconds like 500ms, 10s or 1m", field, s)
	}
	if d > hi {
		return 0, p.notDuration(n, field, s, time.Millisecond, hi, "%s: %s is longer than the most it takes, %s", field, s, validate.Duration(hi))
	}
	return d.Milliseconds(), nil
}

func (p parser) trigger(n *yaml.Node) (TriggerDoc, error) {
	f, err := p.fields(n, "trigger", "name", "task", "cron", "timezone", "misfire", "enabled", "jitter", "startAt", "endAt", "catchUpWindow", "overlap")
	if err != nil {
		return TriggerDoc{}, err
	}
	td := TriggerDoc{Line: n.Line, Spec: trigger.Spec{Enabled: true, Cron: trigger.Cron{MisfirePolicy: trigger.FireOnce}}}
	for key, dst := range map[string]*string{"name": &td.Spec.Name, "task": &td.TaskName, "cron": &td.Spec.Cron.Expression, "timezone": &td.Spec.Cron.Timezone} {
		v, ok := f[key]
		if !ok {
			return td, p.required(n, "trigger."+key, "trigger.%s: is required", key)
		}
		if *dst, err = p.str(v, "trigger."+key); err != nil {
			return td, err
		}
	}
	// Checked here, at their own lines; the spec's validation repeats it
	// for every other way a trigger is published.
	if err := checkCron(td.Spec.Cron); err != nil {
		at, field := f["cron"], "cron"
		if pe := (*cron.ParseError)(nil); errors.As(err, &pe) && pe.Part == "timezone" {
			at, field = f["timezone"], "timezone"
		}
		return td, p.at(at, cron.Refusal("trigger."+field, err))
	}
	if v, ok := f["misfire"]; ok {
		s, err := p.str(v, "trigger.misfire")
		if err != nil {
			return td, err
		}
		td.Spec.Cron.MisfirePolicy = trigger.MisfirePolicy(s)
		if td.Spec.Cron.MisfirePolicy != trigger.Skip && td.Spec.Cron.MisfirePolicy != trigger.FireOnce {
			return td, p.at(v, invalid("trigger.misfire: %q is not one of skip, fire_once", s).
				Because(validate.RefusalNotOneOf, "field", "trigger.misfire", "value", s, "allowed", "skip, fire_once"))
		}
	}
	if v, ok := f["enabled"]; ok {
		if td.Spec.Enabled, err = p.boolean(v, "trigger.enabled"); err != nil {
			return td, err
		}
	}
	if err := p.timePolicies(f, &td.Spec.Cron); err != nil {
		return td, err
	}
	if v, ok := f["overlap"]; ok {
		s, err := p.str(v, "trigger.overlap")
		if err != nil {
			return td, err
		}
		o, known := trigger.ParseOverlap(s)
		if !known || s == "" {
			return td, p.at(v, invalid("trigger.overlap: %q is not one of allow, skip, queue_one, cancel_previous", s).
				Because(validate.RefusalNotOneOf, "field", "trigger.overlap", "value", s, "allowed", "allow, skip, queue_one, cancel_previous"))
		}
		td.Spec.Cron.Overlap = o
	}
	return td, nil
}

// checkCron is what the spec's validation checks of an expression and its
// zone (trigger.Spec.Validate), as one error.
func checkCron(c trigger.Cron) error {
	if _, err := cron.Parse(c.Expression, c.Timezone); err != nil {
		return err
	}
	return cron.CheckSteps(c.Expression)
}

// timePolicies reads jitter (a duration, 0s … 1h), startAt and endAt
// (RFC 3339 instants, endAt after startAt) and, under misfire: fire_once
// only, catchUpWindow (a duration ≥ 0).
func (p parser) timePolicies(f map[string]*yaml.Node, c *trigger.Cron) error {
	if v, ok := f["jitter"]; ok {
		ms, err := p.duration(v, "trigger.jitter", trigger.MaxJitterMs, "0s to 1h, like 30s or 5m")
		if err != nil {
			return err
		}
		c.JitterMs = ms
	}
	for key, dst := range map[string]*int64{"startAt": &c.StartAtMs, "endAt": &c.EndAtMs} {
		v, ok := f[key]
		if !ok {
			continue
		}
		s, err := p.str(v, "trigger."+key)
		if err != nil {
			return err
		}
		at, err := time.Parse(time.RFC3339, s)
		if err != nil || at.UnixMilli() <= 0 || at.Nanosecond()%int(time.Millisecond) != 0 {
			return p.at(v, invalid("trigger.%s: %q is not an RFC 3339 instant after 1970 in whole milliseconds, like 2026-12-01T00:00:00Z", key, s).
				Because(RefusalNotInstant, "field", "trigger."+key, "value", s))
		}
		*dst = at.UnixMilli()
	}
	if c.EndAtMs != 0 && c.EndAtMs <= c.StartAtMs {
		return p.at(f["endAt"], invalid("trigger.endAt: must be after startAt").Because(trigger.RefusalEndNotAfterStart))
	}
	if v, ok := f["catchUpWindow"]; ok {
		if c.MisfirePolicy != trigger.FireOnce {
			return p.at(v, invalid("trigger.catchUpWindow: only applies to misfire: fire_once; remove it or set misfire: fire_once").
				Because(trigger.RefusalCatchUpNotFireOnce, "value", c.MisfirePolicy))
		}
		ms, err := p.duration(v, "trigger.catchUpWindow", trigger.MaxCatchUpWindowMs, "0s to 8784h (366 days), like 10m")
		if err != nil {
			return err
		}
		c.CatchUpWindowMs, c.HasCatchUpWindow = ms, true
	}
	return nil
}

// duration reads a duration in whole milliseconds from 0 to maxMs.
func (p parser) duration(n *yaml.Node, field string, maxMs int64, allowed string) (int64, error) {
	s, err := p.str(n, field)
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(s)
	hi := time.Duration(maxMs) * time.Millisecond
	if err != nil || d%time.Millisecond != 0 || d < 0 {
		return 0, p.notDuration(n, field, s, 0, hi, "%s: %q is not a duration in whole milliseconds from %s", field, s, allowed)
	}
	if d > hi {
		return 0, p.notDuration(n, field, s, 0, hi, "%s: %s is longer than the most it takes, %s", field, s, validate.Duration(hi))
	}
	return d.Milliseconds(), nil
}

func (p parser) stringMap(n *yaml.Node, field string) (map[string]string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.notMapping(n, field, "%s must be a mapping", field)
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		s, err := p.str(v, field+"."+k.Value)
		if err != nil {
			return nil, err
		}
		out[k.Value] = s
	}
	return out, nil
}

func (p parser) stringList(n *yaml.Node, field string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.notList(n, field, "%s must be a list of strings", field)
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		s, err := p.str(item, fmt.Sprintf("%s[%d]", field, i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// env reads NAME: value or NAME: {secret: ref}.
func (p parser) env(n *yaml.Node) ([]task.EnvVar, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.notMapping(n, "task.env", "task.env must be a mapping of NAME: value or NAME: {secret: ref}")
	}
	var out []task.EnvVar
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := task.CheckEnvName(k.Value); err != nil {
			return nil, p.at(k, err)
		}
		e := task.EnvVar{Name: k.Value}
		if v.Kind == yaml.MappingNode {
			f, err := p.fields(v, "task.env."+k.Value, "secret")
			if err != nil {
				return nil, err
			}
			ref, ok := f["secret"]
			if !ok {
				return nil, p.at(v, invalid("task.env.%s: a mapping must be {secret: ref}", k.Value).Because(RefusalEnvMapping, "field", "task.env."+k.Value))
			}
			if e.SecretRef, err = p.str(ref, "task.env."+k.Value+".secret"); err != nil {
				return nil, err
			}
		} else {
			s, err := p.str(v, "task.env."+k.Value)
			if err != nil {
				return nil, err
			}
			e.Value = s
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
