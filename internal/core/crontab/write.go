package crontab

import (
	"bytes"
	"cmp"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Server is what a converted file's header says of the server that will
// run it: each binary's own, so ql-edge's file names no other binary and
// the concurrency it gives is the one that holds there.
type Server struct {
	// Binary is the program whose runs logs command prints a Run's log
	// ("ql", "ql-edge").
	Binary string
	// Concurrency is how many commands the server runs at once, in words
	// after "at most --concurrency commands run at once": "by default 1",
	// "by default the machine's CPU count".
	Concurrency string
	// OtherProfiles says the same for the profiles the file's reader may
	// serve instead ("with --profile edge by default 1"); empty when the
	// binary's default profile is the one it is for.
	OtherProfiles string
}

// DefaultConcurrency says a profile's default --concurrency n (0: the
// machine's CPU count; below 0, a profile whose workers run the commands)
// as Server.Concurrency takes it.
func DefaultConcurrency(n int) string {
	switch {
	case n == 0:
		return "by default the machine's CPU count"
	case n < 0:
		return "each worker's own"
	}
	return fmt.Sprintf("by default %d", n)
}

// RunningConcurrency says the --concurrency n of the server converting
// the file (0: its workers run the commands) as Server.Concurrency takes
// it.
func RunningConcurrency(n int) string {
	if n <= 0 {
		return "each worker's own"
	}
	return fmt.Sprintf("%d on the server that converted this file", n)
}

// Header is the comment a converted file starts with: what QingLong does
// otherwise than cron, for every task the file holds, on server s.
func Header(s Server) string {
	return `# Converted from a crontab. What QingLong does otherwise than cron:
# - timeout: a command is stopped after 1h (cron lets it run for ever);
#   set timeout on a task that runs longer (at most 8760h).
# - misfire: fire_once: an occurrence missed while no server ran is run once
#   when one starts (cron skips it); set misfire: skip for cron's behaviour.
# - workingDir: a command starts in a fresh empty directory, removed after it
#   (cron starts it in the user's home); set workingDir, or cd in the script.
# - env: a command gets the server's environment, the QL_* variables and the
#   env below (cron gives HOME, LOGNAME, PATH=/usr/bin:/bin and SHELL=/bin/sh);
#   the crontab's VAR= lines are in each later task's env.
# - at most --concurrency commands run at once (` + s.Concurrency + `);
` + otherProfiles(s) + `#   cron starts every due command at once: raise it for many light jobs due
#   together.
# - output is kept in each Run's log (` + s.Binary + ` runs logs); nothing is mailed.
`
}

// otherProfiles is the header's line of the concurrency of s's other
// profiles, if any.
func otherProfiles(s Server) string {
	if s.OtherProfiles == "" {
		return ""
	}
	return "#   " + s.OtherProfiles + ";\n"
}

type taskDef struct {
	Name       string            `yaml:"name"`
	Title      string            `yaml:"title,omitempty"`
	Shell      string            `yaml:"shell,omitempty"`
	Script     string            `yaml:"script"`
	Env        map[string]string `yaml:"env,omitempty"`
	WorkingDir string            `yaml:"workingDir,omitempty"`
	RunAs      *runAs            `yaml:"runAs,omitempty"`
	Labels     map[string]string `yaml:"labels,omitempty"`
}

type runAs struct {
	User string `yaml:"user"`
}

// secretRef is an env value read from a secret by its name.
type secretRef struct {
	Secret string `yaml:"secret"`
}

type trigger struct {
	Name     string `yaml:"name"`
	Title    string `yaml:"title,omitempty"`
	Task     string `yaml:"task"`
	Cron     string `yaml:"cron"`
	Timezone string `yaml:"timezone"`
	Enabled  *bool  `yaml:"enabled,omitempty"`
}

type document struct {
	Project  string               `yaml:"project"`
	Env      map[string]secretRef `yaml:"env,omitempty"`
	Tasks    []taskDef            `yaml:"tasks"`
	Triggers []trigger            `yaml:"triggers"`
}

// Definitions is r's entries as a definitions file of project, the
// Header of server first: one task and one trigger per entry, both named
// and titled by it.
func (r Result) Definitions(project string, server Server) ([]byte, error) {
	d := document{Project: project, Tasks: []taskDef{}, Triggers: []trigger{}}
	if len(r.ProjectSecrets) > 0 {
		d.Env = map[string]secretRef{}
		for name, secret := range r.ProjectSecrets {
			d.Env[name] = secretRef{Secret: secret}
		}
	}
	for _, e := range r.Entries {
		shell := e.Shell
		if shell == "/bin/sh" {
			// The default: written only when the crontab chose another.
			shell = ""
		}
		t := taskDef{Name: e.Name, Title: e.Title, Shell: shell, Script: e.Script, Env: e.Env, WorkingDir: e.WorkingDir, Labels: e.Labels}
		if e.RunAs != "" {
			t.RunAs = &runAs{User: e.RunAs}
		}
		d.Tasks = append(d.Tasks, t)
		// The trigger is titled as its task: the Triggers page lists
		// triggers, and a panel's users know them by its names.
		tr := trigger{Name: e.Name, Title: e.Title, Task: e.Name, Cron: e.Cron, Timezone: e.Timezone}
		if e.Disabled {
			tr.Enabled = new(bool)
		}
		d.Triggers = append(d.Triggers, tr)
	}
	var b bytes.Buffer
	b.WriteString(cmp.Or(r.Header, Header(server)))
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
