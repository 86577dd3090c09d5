package sqlitestore

import (
	"encoding/json"

	"github.com/qinglong/qinglong/internal/task"
)

// The stored JSON shape of a task spec and command. It is the adapter's own
// format, decoupled from the domain structs, and every read recomputes the
// content digest from the decoded value, so a drifting encoding can never
// go unnoticed.
type specDoc struct {
	Name    string            `json:"name"`
	Enabled bool              `json:"enabled"`
	Labels  map[string]string `json:"labels,omitempty"`
	Command commandDoc        `json:"command"`
}

type commandDoc struct {
	Mode        string    `json:"mode"`
	Path        string    `json:"path,omitempty"`
	Args        []string  `json:"args,omitempty"`
	Shell       string    `json:"shell,omitempty"`
	Script      string    `json:"script,omitempty"`
	Env         []envDoc  `json:"env,omitempty"`
	WorkingDir  string    `json:"workingDir,omitempty"`
	TimeoutMs   int64     `json:"timeoutMs"`
	RunAs       *runAsDoc `json:"runAs,omitempty"`
	KillGraceMs int64     `json:"killGraceMs,omitempty"`
}

type runAsDoc struct {
	User  string `json:"user"`
	Group string `json:"group,omitempty"`
}

// envDoc stores a public value or a secret reference — never a secret's
// value, which only the executor resolves at start.
type envDoc struct {
	Name      string `json:"name"`
	Value     string `json:"value,omitempty"`
	SecretRef string `json:"secretRef,omitempty"`
}

func encodeCommand(c task.Command) commandDoc {
	d := commandDoc{Mode: string(c.Mode), Path: c.Path, Args: c.Args, Shell: c.Shell, Script: c.Script, WorkingDir: c.WorkingDir, TimeoutMs: c.TimeoutMs, KillGraceMs: c.KillGraceMs}
	if !c.RunAs.IsZero() {
		d.RunAs = &runAsDoc{User: c.RunAs.User, Group: c.RunAs.Group}
	}
	for _, e := range c.Env {
		d.Env = append(d.Env, envDoc(e))
	}
	return d
}

func (d commandDoc) command() task.Command {
	c := task.Command{Mode: task.Mode(d.Mode), Path: d.Path, Args: d.Args, Shell: d.Shell, Script: d.Script, WorkingDir: d.WorkingDir, TimeoutMs: d.TimeoutMs, KillGraceMs: d.KillGraceMs}
	if d.RunAs != nil {
		c.RunAs = task.RunAs{User: d.RunAs.User, Group: d.RunAs.Group}
	}
	for _, e := range d.Env {
		c.Env = append(c.Env, task.EnvVar(e))
	}
	return c
}

func encodeSpec(s task.Spec) (string, error) {
	b, err := json.Marshal(specDoc{Name: s.Name, Enabled: s.Enabled, Labels: s.Labels, Command: encodeCommand(s.Command)})
	return string(b), err
}

func decodeSpec(js string) (task.Spec, error) {
	var d specDoc
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		return task.Spec{}, err
	}
	return task.Spec{Name: d.Name, Enabled: d.Enabled, Labels: d.Labels, Command: d.Command.command()}, nil
}

func encodeCommandJSON(c task.Command) (string, error) {
	b, err := json.Marshal(encodeCommand(c))
	return string(b), err
}

func decodeCommandJSON(js string) (task.Command, error) {
	var d commandDoc
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		return task.Command{}, err
	}
	return d.command(), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
