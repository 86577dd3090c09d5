package view

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A queued Run's waiting object has the shape its profile's clients
// expect: the cluster's always gives the labels the task's placement
// requires ({} for none) and the workers its reason counts (0 for none); a
// single-node server's, which has no workers, gives neither. Read back (a
// command line reading the API's answer for -o json), it keeps its
// profile's shape, so the command prints what the server answered.
func TestAWaitingRunGivesWorkersAndLabelsOnlyOnTheCluster(t *testing.T) {
	cluster, single := []string{`"labels":{}`, `"workers":0`}, []string{`"labels"`, `"workers"`}
	for _, c := range []struct {
		name       string
		w          run.Waiting
		has, lacks []string
	}{
		{"the cluster's no_worker", run.Waiting{Reason: run.WaitNoWorker}, cluster, nil},
		{"the cluster's waits_for_previous", run.Waiting{Reason: run.WaitPrevious, PreviousRun: "r1", Overlap: "queue_one"}, cluster, nil},
		{"the cluster's no_matching_worker", run.Waiting{Reason: run.WaitNoMatchingWorker, Labels: map[string]string{"gpu": "a100"}, Workers: 2},
			[]string{`"labels":{"gpu":"a100"}`, `"workers":2`}, nil},
		{"a single node's server_busy", run.Waiting{Reason: run.WaitServerBusy, Running: 2, Concurrency: 2, SingleNode: true}, nil, single},
		{"a single node's waits_for_previous", run.Waiting{Reason: run.WaitPrevious, PreviousRun: "r1", Overlap: "queue_one", SingleNode: true}, nil, single},
		{"a single node's no_server", run.Waiting{Reason: run.WaitNoServer, DataDir: "/var/lib/qinglong", SingleNode: true}, nil, single},
	} {
		b, err := json.Marshal(NewWaiting(&c.w))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range c.has {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s: %s lacks %s", c.name, b, want)
			}
		}
		for _, unwanted := range c.lacks {
			if strings.Contains(string(b), unwanted) {
				t.Errorf("%s: %s gives %s", c.name, b, unwanted)
			}
		}
		var read Waiting
		if err := json.Unmarshal(b, &read); err != nil {
			t.Fatal(err)
		}
		again, err := json.Marshal(NewWaiting(read.RunOf()))
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(b) {
			t.Errorf("%s read back is shaped\n%s\nwhere it was answered\n%s", c.name, again, b)
		}
	}
}
