package pgstore

import (
	"encoding/json"

	"github.com/qinglong/qinglong/internal/task"
)

// commandJSON is the stored form of a command: explicit field names so the
// column stays readable and stable whatever the Go struct's names become.
// Every field is always written, so decoding restores exactly what was
// digested.
type commandJSON struct {
	Mode       string    `json:"mode"`
	Path       string    `json:"path"`
	Args       []string  `json:"args"`
	Shell      string    `json:"shell"`
	Script     string    `json:"script"`
	Env        []envJSON `json:"env"`
	WorkingDir string    `json:"workingDir"`
	TimeoutMs  int64     `json:"timeoutMs"`
	// Added later: omitted when unset, so commands stored before them
	// read back unchanged.
	RunAs       *runAsJSON `json:"runAs,omitempty"`
	KillGraceMs int64      `json:"killGraceMs,omitempty"`
}

type runAsJSON struct {
	User  string `json:"user"`
	Group string `json:"group"`
}

type envJSON struct {
	Name      string `json:"name"`
	Value     string `json:"value"`
	SecretRef string `json:"secretRef"`
}

func encodeCommand(c task.Command) ([]byte, error) {
	j := commandJSON{Mode: string(c.Mode), Path: c.Path, Args: c.Args, Shell: c.Shell, Script: c.Script,
		Env: make([]envJSON, 0, len(c.Env)), WorkingDir: c.WorkingDir, TimeoutMs: c.TimeoutMs, KillGraceMs: c.KillGraceMs}
	if !c.RunAs.IsZero() {
		j.RunAs = &runAsJSON{User: c.RunAs.User, Group: c.RunAs.Group}
	}
	if j.Args == nil {
		j.Args = []string{}
	}
	for _, e := range c.Env {
		j.Env = append(j.Env, envJSON(e))
	}
	return json.Marshal(j)
}

func decodeCommand(b []byte) (task.Command, error) {
	var j commandJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return task.Command{}, err
	}
	c := task.Command{Mode: task.Mode(j.Mode), Path: j.Path, Shell: j.Shell, Script: j.Script, WorkingDir: j.WorkingDir, TimeoutMs: j.TimeoutMs, KillGraceMs: j.KillGraceMs}
	if j.RunAs != nil {
		c.RunAs = task.RunAs{User: j.RunAs.User, Group: j.RunAs.Group}
	}
	if len(j.Args) > 0 {
		c.Args = j.Args
	}
	for _, e := range j.Env {
		c.Env = append(c.Env, task.EnvVar(e))
	}
	return c, nil
}

func encodeLabels(l map[string]string) ([]byte, error) {
	if l == nil {
		l = map[string]string{}
	}
	return json.Marshal(l)
}

func decodeLabels(b []byte) (map[string]string, error) {
	var l map[string]string
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, err
	}
	if len(l) == 0 {
		return nil, nil
	}
	return l, nil
}
