package crontab

import (
	"bytes"
	"cmp"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Header is the comment a converted file starts with: what QingLong does
// otherwise than cron, for every task the file holds.
const Header = `# Converted from a crontab. What QingLong does otherwise than cron:
# - timeout: a command is stopped after 1h (cron lets it run for ever);
#   set timeout on a task that runs longer (at most 8760h).
# - misfire: fire_once: an occurrence missed while no server ran is run once
#   when one starts (cron skips it); set misfire: skip for cron's behaviour.
# - workingDir: a command starts in a fresh empty directory, removed after it
#   (cron starts it in the user's home); set workingDir, or cd in the script.
# - env: a command gets the server's environment, the QL_* variables and the
#   env below (cron gives HOME, LOGNAME, PATH=/usr/bin:/bin and SHELL=/bin/sh);
#   the crontab's VAR= lines are in each later task's env.
# - the server runs at most --concurrency commands at once (by default the
#   machine's CPU count; cron starts every due command at once): raise it for
#   many light jobs due together.
# - output is kept in each Run's log (ql runs logs); nothing is mailed.
`

type taskDef struct {
	Name       string            `yaml:"name"`
	Title      string            `yaml:"title,omitempty"`
	Shell      string            `yaml:"shell,omitempty"`
	Script     string            `yaml:"script"`
	Env        map[string]string `yaml:"env,omitempty"`
	WorkingDir string            `yaml:"workingDir,omitempty"`
	RunAs      *runAs            `yaml:"runAs,omitempty"`
}

type runAs struct {
	User string `yaml:"user"`
}

type trigger struct {
	Name     string `yaml:"name"`
	Task     string `yaml:"task"`
	Cron     string `yaml:"cron"`
	Timezone string `yaml:"timezone"`
	Enabled  *bool  `yaml:"enabled,omitempty"`
}

type document struct {
	Project  string    `yaml:"project"`
	Tasks    []taskDef `yaml:"tasks"`
	Triggers []trigger `yaml:"triggers"`
}

// Definitions is r's entries as a definitions file of project, its
// header first: one task and one trigger per entry, both named by it.
func (r Result) Definitions(project string) ([]byte, error) {
	d := document{Project: project, Tasks: []taskDef{}, Triggers: []trigger{}}
	for _, e := range r.Entries {
		shell := e.Shell
		if shell == "/bin/sh" {
			// The default: written only when the crontab chose another.
			shell = ""
		}
		t := taskDef{Name: e.Name, Title: e.Title, Shell: shell, Script: e.Script, Env: e.Env, WorkingDir: e.WorkingDir}
		if e.RunAs != "" {
			t.RunAs = &runAs{User: e.RunAs}
		}
		d.Tasks = append(d.Tasks, t)
		tr := trigger{Name: e.Name, Task: e.Name, Cron: e.Cron, Timezone: e.Timezone}
		if e.Disabled {
			tr.Enabled = new(bool)
		}
		d.Triggers = append(d.Triggers, tr)
	}
	var b bytes.Buffer
	b.WriteString(cmp.Or(r.Header, Header))
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("write the definitions: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("write the definitions: %w", err)
	}
	return b.Bytes(), nil
}
