package console

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/process"
)

// A page in any language other than English never falls back to the
// English of a stop note QingLong writes: every cause internal/core/process
// declares (…Cause), each with every way the command ended and several
// durations, is said in that language naming the durations it was written
// with; and a cause added there fails here until it is produced and has
// its words in stopWhys.
func TestEveryStopNoteQingLongWritesReadsInEveryOtherLanguage(t *testing.T) {
	graces := []time.Duration{time.Second, 10 * time.Second, 1500 * time.Millisecond}
	whys := map[string][]attemptSample{
		"CancelAskedCause":    {{msg: process.CancelAskedCause.Error()}},
		"ServerStoppingCause": {{msg: process.ServerStoppingCause.Error()}},
		"WorkerStoppingCause": {{msg: process.WorkerStoppingCause.Error()}},
		"LeaseLostCause":      {{msg: process.LeaseLostCause.Error()}},
		"DeclaredOverCause":   {{msg: process.DeclaredOverCause.Error()}},
	}
	for _, d := range []time.Duration{time.Second, 90 * time.Second, 1500 * time.Millisecond, 24 * time.Hour} {
		whys["TimeoutCause"] = append(whys["TimeoutCause"], attemptSample{process.TimeoutCause(d), []string{d.String()}})
	}
	for _, name := range declared(t, "process", "Cause", "TimeoutCause") {
		if whys[name] == nil {
			t.Errorf("process.%s is a cause QingLong names in a stop note that this test does not produce: add it here, and its words to stopWhys", name)
		}
	}
	for l := range stopFrames {
		for name, samples := range whys {
			for _, why := range samples {
				for _, how := range process.Endings {
					for _, grace := range graces {
						for _, open := range []bool{false, true} {
							line := process.StoppedLine(why.msg, how, grace, open)
							if open {
								if !strings.HasPrefix(line, "\n") {
									t.Fatalf("a stop note after a line left open does not start a line of its own: %q", line)
								}
								line = line[1:]
							}
							got := stopNote(l, line)
							if got == line || strings.Contains(got, "qinglong") || strings.Contains(got, why.msg) {
								t.Errorf("process.%s reads in English on a %s page: %q; give it its words in stopWhys", name, l, line)
								continue
							}
							params := why.params
							if strings.Contains(line, "kill grace of") {
								params = append(params[:len(params):len(params)], grace.String())
							}
							for _, p := range params {
								if !strings.Contains(got, p) {
									t.Errorf("process.%s on a %s page leaves out %q it was written with: %q", name, l, p, got)
								}
							}
						}
					}
				}
			}
		}
	}
}

// The line QingLong ends a log with when the command's main process left
// processes running (process.LeftRunningLine) reads in every other
// language, with how many there were and the kill grace it names, for
// every way they were ended — and the Run's page takes it for the log's
// last note, as it does a stop note.
func TestTheLineOnProcessesACommandLeftRunningReadsInEveryOtherLanguage(t *testing.T) {
	for l := range leftFrames {
		// The ways leftovers are ended; "it had ended already" is no way.
		for _, how := range []process.Ending{process.EndedOnTerm, process.EndedAfterKill, process.EndedHardKill} {
			for _, n := range []int{1, 3} {
				for _, grace := range []time.Duration{time.Second, 1500 * time.Millisecond} {
					line := process.LeftRunningLine(n, how, grace, false)
					got := stopNote(l, line)
					if got == line || strings.Contains(got, "qinglong") || !strings.Contains(got, strconv.Itoa(n)) {
						t.Errorf("on a %s page %q reads %q; want it in that language with its count", l, line, got)
					}
					if strings.Contains(line, "kill grace of") && !strings.Contains(got, grace.String()) {
						t.Errorf("on a %s page %q leaves out its kill grace: %q", l, line, got)
					}
					if output, note := splitStop("out\n" + line); output != "out\n" || note != line {
						t.Errorf("splitStop of a log ending %q: %q, %q; want the line as its note", line, output, note)
					}
				}
			}
		}
	}
}
