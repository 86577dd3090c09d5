package pgstore

import (
	"encoding/json"

	"github.com/qinglong/qinglong/internal/core/task"
)

// decodeCommand reads a command column (task revisions and execution
// revisions alike) in the stored form every adapter shares.
func decodeCommand(b []byte) (task.Command, error) { return task.DecodeCommand(b) }

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
