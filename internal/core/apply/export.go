package apply

import (
	"bytes"
	"fmt"
	"sort"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// The shape of a definitions file, for writing one: the fields Parse
// reads, defaults left out.
type (
	exportDoc struct {
		Project       string          `yaml:"project"`
		Title         string          `yaml:"title,omitempty"`
		Status        string          `yaml:"status,omitempty"`
		MaxRunning    int             `yaml:"maxRunning,omitempty"`
		Env           any             `yaml:"env,omitempty"`
		Notifications *exportNotify   `yaml:"notifications,omitempty"`
		Tasks         []exportTask    `yaml:"tasks,omitempty"`
		Triggers      []exportTrigger `yaml:"triggers,omitempty"`
	}
	exportNotify struct {
		Channels map[string]exportChannel `yaml:"channels,omitempty"`
		Rules    []exportRule             `yaml:"rules"`
	}
	exportChannel struct {
		Type          string `yaml:"type"`
		URL           string `yaml:"url,omitempty"`
		URLSecret     string `yaml:"urlSecret,omitempty"`
		SigningSecret string `yaml:"signingSecret,omitempty"`
		TokenSecret   string `yaml:"tokenSecret,omitempty"`
		ChatID        string `yaml:"chatId,omitempty"`
		// An email channel's.
		Host           string   `yaml:"host,omitempty"`
		Port           int      `yaml:"port,omitempty"`
		TLS            string   `yaml:"tls,omitempty"`
		From           string   `yaml:"from,omitempty"`
		To             []string `yaml:"to,omitempty,flow"`
		Username       string   `yaml:"username,omitempty"`
		PasswordSecret string   `yaml:"passwordSecret,omitempty"`
		Output         int      `yaml:"output,omitempty"`
		Language       string   `yaml:"language,omitempty"`
		TimeZone       string   `yaml:"timeZone,omitempty"`
	}
	exportRule struct {
		On                  string   `yaml:"on,omitempty"`
		ConsecutiveFailures int      `yaml:"consecutive_failures,omitempty"`
		Reasons             []string `yaml:"reasons,omitempty,flow"`
		Tasks               []string `yaml:"tasks,omitempty,flow"`
		Triggers            []string `yaml:"triggers,omitempty,flow"`
		Channel             string   `yaml:"channel"`
	}
	exportTask struct {
		Name       string            `yaml:"name"`
		Title      string            `yaml:"title,omitempty"`
		Enabled    *bool             `yaml:"enabled,omitempty"`
		Labels     map[string]string `yaml:"labels,omitempty"`
		Shell      string            `yaml:"shell,omitempty"`
		Script     *string           `yaml:"script,omitempty"`
		Command    []string          `yaml:"command,omitempty,flow"`
		Env        any               `yaml:"env,omitempty"`
		WorkingDir string            `yaml:"workingDir,omitempty"`
		Timeout    string            `yaml:"timeout,omitempty"`
		RunAs      *exportRunAs      `yaml:"runAs,omitempty"`
		KillGrace  string            `yaml:"killGrace,omitempty"`
		Retry      *exportRetry      `yaml:"retry,omitempty"`
		Placement  *exportPlacement  `yaml:"placement,omitempty"`
	}
	exportRunAs struct {
		User  string `yaml:"user"`
		Group string `yaml:"group,omitempty"`
	}
	exportRetry struct {
		MaxAttempts int      `yaml:"maxAttempts"`
		Backoff     string   `yaml:"backoff,omitempty"`
		On          []string `yaml:"on,omitempty,flow"`
	}
	exportPlacement struct {
		Labels map[string]string `yaml:"labels"`
	}
	exportTrigger struct {
		Name          string `yaml:"name"`
		Title         string `yaml:"title,omitempty"`
		Task          string `yaml:"task"`
		Cron          string `yaml:"cron"`
		Timezone      string `yaml:"timezone"`
		Misfire       string `yaml:"misfire"`
		Enabled       *bool  `yaml:"enabled,omitempty"`
		Jitter        string `yaml:"jitter,omitempty"`
		StartAt       string `yaml:"startAt,omitempty"`
		EndAt         string `yaml:"endAt,omitempty"`
		CatchUpWindow string `yaml:"catchUpWindow,omitempty"`
		Overlap       string `yaml:"overlap,omitempty"`
	}
)

// Export writes a definitions file that applies back to exactly the given
// current revisions of p's tasks and triggers (applying it changes
// nothing): what the console shows to edit. Tasks and triggers are sorted
// by name; each trigger's task must be among tasks. titles are the tasks'
// and triggers' display titles, by name.
func Export(p project.Project, tasks []task.Revision, triggers []trigger.Revision, titles catalog.Titles) ([]byte, error) {
	doc, err := exportDocument(p, tasks, triggers, titles)
	if err != nil {
		return nil, err
	}
	return encodeExport(doc)
}

// exportDocument is the definitions file of Export, before it is written.
func exportDocument(p project.Project, tasks []task.Revision, triggers []trigger.Revision, titles catalog.Titles) (exportDoc, error) {
	doc := exportDoc{Project: p.Name, Title: p.Title, MaxRunning: p.MaxRunning, Env: exportEnv(p.Env)}
	if p.Status != project.Active {
		doc.Status = string(p.Status)
	}
	spec, err := notify.Decode(p.Notifications)
	if err != nil {
		return exportDoc{}, err
	}
	if !spec.Empty() {
		doc.Notifications = exportNotifications(spec)
	}
	names := map[string]string{}
	for _, t := range tasks {
		names[t.TaskID] = t.Spec.Name
		et := exportTaskSpec(t.Spec)
		et.Title = titles.Tasks[t.Spec.Name]
		doc.Tasks = append(doc.Tasks, et)
	}
	for _, tr := range triggers {
		name, ok := names[tr.TaskID]
		if !ok {
			return exportDoc{}, qlerror.New(qlerror.Internal, "trigger %q: its task %s is not among the exported tasks", tr.Spec.Name, tr.TaskID)
		}
		et := exportTriggerSpec(name, tr.Spec)
		et.Title = titles.Triggers[tr.Spec.Name]
		doc.Triggers = append(doc.Triggers, et)
	}
	sort.Slice(doc.Tasks, func(i, j int) bool { return doc.Tasks[i].Name < doc.Tasks[j].Name })
	sort.Slice(doc.Triggers, func(i, j int) bool { return doc.Triggers[i].Name < doc.Triggers[j].Name })
	return doc, nil
}

// encodeExport writes doc as the examples and the documentation write a
// definitions file.
func encodeExport(doc exportDoc) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2) // as the examples and the documentation write it
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func exportNotifications(s notify.Spec) *exportNotify {
	out := &exportNotify{Rules: []exportRule{}}
	if len(s.Channels) > 0 {
		out.Channels = map[string]exportChannel{}
	}
	for _, c := range s.Channels {
		out.Channels[c.Name] = exportChannel{Type: string(c.Kind), URL: c.URL, URLSecret: c.URLSecret, SigningSecret: c.SigningSecret,
			TokenSecret: c.TokenSecret, ChatID: c.ChatID, Host: c.Host, Port: c.Port, TLS: c.TLS, From: c.From, To: c.To,
			Username: c.Username, PasswordSecret: c.PasswordSecret, Output: c.Output,
			Language: c.Language, TimeZone: c.TimeZone}
	}
	for _, r := range s.Rules {
		er := exportRule{Reasons: r.Reasons, Tasks: r.Tasks, Triggers: r.Triggers, Channel: r.Channel}
		if r.On == notify.OnConsecutiveFailures {
			er.ConsecutiveFailures = r.Count
		} else {
			er.On = string(r.On)
		}
		out.Rules = append(out.Rules, er)
	}
	return out
}

func exportTaskSpec(s task.Spec) exportTask {
	c := s.Command
	out := exportTask{Name: s.Name, Labels: s.Labels, WorkingDir: c.WorkingDir}
	if !s.Enabled {
		out.Enabled = new(false)
	}
	if c.Mode == task.ModeArgv {
		out.Command = append([]string{c.Path}, c.Args...)
	} else {
		out.Shell, out.Script = c.Shell, new(c.Script)
	}
	out.Env = exportEnv(c.Env)
	if c.TimeoutMs != 0 && c.TimeoutMs != task.DefaultTimeout.Milliseconds() {
		out.Timeout = millis(c.TimeoutMs)
	}
	if c.KillGraceMs != 0 {
		out.KillGrace = millis(c.KillGraceMs)
	}
	if c.RunAs.User != "" {
		out.RunAs = &exportRunAs{User: c.RunAs.User, Group: c.RunAs.Group}
	}
	if !c.Retry.IsZero() {
		out.Retry = &exportRetry{MaxAttempts: c.Retry.MaxAttempts, On: c.Retry.On}
		if c.Retry.BackoffMs != 0 {
			out.Retry.Backoff = millis(c.Retry.BackoffMs)
		}
	}
	if len(c.Placement.Labels) > 0 {
		out.Placement = &exportPlacement{Labels: c.Placement.Labels}
	}
	return out
}

func exportTriggerSpec(taskName string, s trigger.Spec) exportTrigger {
	c := s.Cron
	out := exportTrigger{Name: s.Name, Task: taskName, Cron: c.Expression, Timezone: c.Timezone, Misfire: string(c.MisfirePolicy), Overlap: string(c.Overlap)}
	if !s.Enabled {
		out.Enabled = new(false)
	}
	if c.JitterMs != 0 {
		out.Jitter = millis(c.JitterMs)
	}
	if c.StartAtMs != 0 {
		out.StartAt = instant(c.StartAtMs)
	}
	if c.EndAtMs != 0 {
		out.EndAt = instant(c.EndAtMs)
	}
	if c.HasCatchUpWindow {
		out.CatchUpWindow = millis(c.CatchUpWindowMs)
	}
	return out
}

// millis writes a duration the way people do: 2h, 90s, 1500ms.
func millis(ms int64) string {
	for _, u := range []struct {
		ms   int64
		unit string
	}{{3_600_000, "h"}, {60_000, "m"}, {1000, "s"}} {
		if ms%u.ms == 0 {
			return fmt.Sprintf("%d%s", ms/u.ms, u.unit)
		}
	}
	return fmt.Sprintf("%dms", ms)
}

func instant(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.999Z07:00")
}

// exportEnv is a task's or a project's env as a file writes it: NAME:
// value, or NAME: {secret: name}; nil when there is none, which the
// file leaves out (an empty map would be written as env: {}).
func exportEnv(env []task.EnvVar) any {
	if len(env) == 0 {
		return nil
	}
	out := map[string]any{}
	for _, e := range env {
		if e.SecretRef != "" {
			out[e.Name] = map[string]string{"secret": e.SecretRef}
		} else {
			out[e.Name] = e.Value
		}
	}
	return out
}
