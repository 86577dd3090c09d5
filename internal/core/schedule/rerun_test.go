package schedule

import (
	"errors"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A finished or lost Run can be re-run; one still on its way is refused as
// not finished, naming its state.
func TestAFinishedOrLostRunCanBeReRunAnUnfinishedOneCannot(t *testing.T) {
	for _, s := range run.States {
		err := RerunRefusal("r1", s)
		var nf *NotFinishedError
		switch ended := s.Terminal() || s == run.Lost; {
		case ended && err != nil:
			t.Errorf("re-run of a %s Run refused: %v", s, err)
		case !ended && (!errors.As(err, &nf) || nf.State != s):
			t.Errorf("re-run of a %s Run: %v, want a NotFinishedError naming %s", s, err, s)
		}
	}
}
