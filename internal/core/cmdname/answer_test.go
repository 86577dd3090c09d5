package cmdname_test

import (
	"reflect"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cmdname"
)

type note struct {
	Message string `json:"message" cmdname:"said"`
	Script  string `json:"script"`
}

type answer struct {
	Notes   []note          `json:"notes"`
	ByID    map[string]note `json:"byId"`
	Waiting *note           `json:"waiting"`
	Any     any             `json:"any"`
	Output  []byte          `json:"output"`
}

// An answer's sentences the server built name the binary serving it in
// the commands they tell the user to run, wherever they sit (a slice, a
// map, behind a pointer or an interface); the user's own data beside them
// (a task's script that runs `ql runs list`) is never renamed, and the
// value handed in, which a cache may share, keeps ql's words.
func TestAnAnswersSentencesNameTheBinaryServingAndItsDataStaysAsStored(t *testing.T) {
	t.Parallel()
	said := note{Message: "run `ql runs show X`", Script: "ql runs list"}
	renamed := note{Message: "run `ql-edge runs show X`", Script: "ql runs list"}
	in := answer{Notes: []note{said}, ByID: map[string]note{"a": said}, Waiting: &said, Any: []any{said}, Output: []byte("ql runs list")}
	want := answer{Notes: []note{renamed}, ByID: map[string]note{"a": renamed}, Waiting: &renamed, Any: []any{renamed}, Output: []byte("ql runs list")}
	if got := cmdname.InAnswer("ql-edge", in); !reflect.DeepEqual(got, want) {
		t.Errorf("the answer as ql-edge says it:\n%+v\nwant\n%+v", got, want)
	}
	if got := cmdname.InAnswer("ql-edge", &in); !reflect.DeepEqual(got, &want) {
		t.Errorf("the answer behind a pointer as ql-edge says it:\n%+v\nwant\n%+v", got, &want)
	}
	if in.Notes[0] != said || in.ByID["a"] != said || *in.Waiting != said || in.Any.([]any)[0] != said {
		t.Errorf("renaming wrote to the answer handed in: %+v", in)
	}
	if got := cmdname.InAnswer("ql", in); !reflect.DeepEqual(got, in) {
		t.Errorf("the full ql binary's answer changed: %+v", got)
	}
}
