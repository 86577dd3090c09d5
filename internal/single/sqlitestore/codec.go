package sqlitestore

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/qinglong/qinglong/internal/core/task"
)

// specDoc is the stored JSON shape of a task spec. Its command is in the
// stored form every adapter shares (task.EncodeCommand), and every read
// recomputes the content digest from the decoded value, so a drifting
// encoding can never go unnoticed.
type specDoc struct {
	Name    string            `json:"name"`
	Enabled bool              `json:"enabled"`
	Labels  map[string]string `json:"labels,omitempty"`
	Command json.RawMessage   `json:"command"`
}

func encodeSpec(s task.Spec) (string, error) {
	cmd, err := task.EncodeCommand(s.Command)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(specDoc{Name: s.Name, Enabled: s.Enabled, Labels: s.Labels, Command: cmd})
	return string(b), err
}

func decodeSpec(js string) (task.Spec, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(js)))
	dec.DisallowUnknownFields()
	var d specDoc
	if err := dec.Decode(&d); err != nil {
		return task.Spec{}, err
	}
	if d.Command == nil {
		return task.Spec{}, errors.New("stored spec has no command")
	}
	cmd, err := task.DecodeCommand(d.Command)
	if err != nil {
		return task.Spec{}, err
	}
	return task.Spec{Name: d.Name, Enabled: d.Enabled, Labels: d.Labels, Command: cmd}, nil
}

func encodeCommandJSON(c task.Command) (string, error) {
	b, err := task.EncodeCommand(c)
	return string(b), err
}

func decodeCommandJSON(js string) (task.Command, error) { return task.DecodeCommand([]byte(js)) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
