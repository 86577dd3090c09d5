package console

import (
	"encoding/json"

	"github.com/qinglong/qinglong/internal/core/run"
)

// stateChange is a "state" event of a Run's live log: the Run's state and
// the words its page's state line says it in. A page shown while the Run
// was queued changes that line in place when the Run starts, rather than
// saying "queued" above output already streaming in or loading itself
// again (which would replace the stream it follows).
type stateChange struct {
	State run.State `json:"state"`
	Text  string    `json:"text"`
}

// stateEvent is the data of the "state" event saying s in l, in the
// words of the page's #run-state (the template's `word l "run" s`).
func stateEvent(l string, s run.State) []byte {
	b, _ := json.Marshal(stateChange{State: s, Text: word(l, "run", s)}) // two strings always marshal
	return b
}
