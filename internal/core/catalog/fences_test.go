package catalog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// checkErr fails unless err carries code (none: err is nil) and its
// message contains every one of want.
func checkErr(t *testing.T, err error, code qlerror.Code, want ...string) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("err = %v, want nil", err)
		}
		return
	}
	if !qlerror.Is(err, code) {
		t.Fatalf("err = %v (code %s), want code %s", err, qlerror.CodeOf(err), code)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err = %q, want it to say %q", err, w)
		}
	}
}

func TestPublishReplay(t *testing.T) {
	orig := catalog.Stored{Revision: 2, Digest: "sha256:a", CreatedAtMs: 1700}
	for _, tc := range []struct {
		name     string
		revision int64
		digest   string
		code     qlerror.Code
	}{
		{"identical content answers with the original write", 2, "sha256:a", ""},
		{"other content is drift", 2, "sha256:b", qlerror.MutationDrift},
		{"same content over another revision is drift", 3, "sha256:a", qlerror.MutationDrift},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := catalog.CheckReplay(orig, "task", "t1", "backup", "m1", tc.revision, tc.digest)
			checkErr(t, err, tc.code, `mutation id "m1"`, `task "backup" (t1)`, "revision 2", "use a new mutation id")
			want := catalog.PublishResult{Revision: 2, CreatedAtMs: 1700, Replayed: true}
			if tc.code != "" {
				want = catalog.PublishResult{}
			}
			if res != want {
				t.Errorf("result = %+v, want %+v", res, want)
			}
		})
	}
}

func TestPublishPin(t *testing.T) {
	rev := func(enabled bool) trigger.Revision {
		return trigger.Revision{TriggerID: "g1", ProjectID: "p1", TaskID: "t1", TaskRevision: 3, TaskContentDigest: "sha256:a",
			Spec: trigger.Spec{Name: "nightly", Enabled: enabled}}
	}
	ok := catalog.PinnedTask{ProjectID: "p1", Digest: "sha256:a", Enabled: true}
	for _, tc := range []struct {
		name    string
		enabled bool
		pinned  catalog.PinnedTask
		found   bool
		code    qlerror.Code
		want    []string
	}{
		{"an enabled pin of an enabled revision", true, ok, true, "", nil},
		{"a disabled trigger may pin a disabled revision", false, catalog.PinnedTask{ProjectID: "p1", Digest: "sha256:a"}, true, "", nil},
		{"a missing revision", true, catalog.PinnedTask{}, false, qlerror.FailedPrecondition,
			[]string{`trigger "nightly"`, "task t1 revision 3", "does not exist", "publish the task first"}},
		{"a revision of another project", true, catalog.PinnedTask{ProjectID: "p2", Digest: "sha256:a", Enabled: true}, true, qlerror.FailedPrecondition,
			[]string{"of project p2, not of its own project p1", "pin a task of the trigger's project"}},
		{"another digest", true, catalog.PinnedTask{ProjectID: "p1", Digest: "sha256:b", Enabled: true}, true, qlerror.FailedPrecondition,
			[]string{"with digest sha256:a", "digest is sha256:b", "re-read the task"}},
		{"an enabled trigger on a disabled revision", true, catalog.PinnedTask{ProjectID: "p1", Digest: "sha256:a"}, true, qlerror.FailedPrecondition,
			[]string{"pins disabled task t1 revision 3", "enable the task or disable the trigger"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, catalog.CheckPin(rev(tc.enabled), tc.pinned, tc.found), tc.code, tc.want...)
		})
	}
}

func TestPublishTaskHead(t *testing.T) {
	for _, tc := range []struct {
		name     string
		revision int64
		head     catalog.Head
		code     qlerror.Code
		want     []string
	}{
		{"revision 1 creates", 1, catalog.Head{}, "", nil},
		{"the next revision advances", 3, catalog.Head{Exists: true, ProjectID: "p1", Current: 2}, "", nil},
		{"a later revision of a missing task", 2, catalog.Head{}, qlerror.NotFound,
			[]string{`task "backup" (t1) does not exist`, "expected revision 0 to create it"}},
		{"a task of another project", 3, catalog.Head{Exists: true, ProjectID: "p2", Current: 2}, qlerror.FailedPrecondition,
			[]string{"belongs to project p2, not p1", "a task never moves between projects"}},
		{"a stale expected revision", 2, catalog.Head{Exists: true, ProjectID: "p1", Current: 2}, qlerror.Conflict,
			[]string{"at revision 2, not the expected 1", "re-read it and publish again"}},
		{"creating a task that exists", 1, catalog.Head{Exists: true, ProjectID: "p1", Current: 1}, qlerror.Conflict,
			[]string{"at revision 1, not the expected 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := task.Revision{TaskID: "t1", ProjectID: "p1", Revision: tc.revision, Spec: task.Spec{Name: "backup"}}
			checkErr(t, catalog.CheckTaskHead(r, tc.head), tc.code, tc.want...)
		})
	}
}

func TestPublishTriggerHead(t *testing.T) {
	for _, tc := range []struct {
		name     string
		revision int64
		head     catalog.Head
		code     qlerror.Code
		want     []string
	}{
		{"revision 1 creates", 1, catalog.Head{}, "", nil},
		{"the next revision advances", 3, catalog.Head{Exists: true, ProjectID: "p1", TaskID: "t1", Current: 2}, "", nil},
		{"a later revision of a missing trigger", 2, catalog.Head{}, qlerror.NotFound,
			[]string{`trigger "nightly" (g1) does not exist`, "expected revision 0 to create it"}},
		{"a trigger of another project", 3, catalog.Head{Exists: true, ProjectID: "p2", TaskID: "t9", Current: 2}, qlerror.FailedPrecondition,
			[]string{"belongs to project p2, not p1", "a trigger never moves between projects"}},
		{"a move to another task", 3, catalog.Head{Exists: true, ProjectID: "p1", TaskID: "t9", Current: 2}, qlerror.FailedPrecondition,
			[]string{"bound to task t9 and can never move to task t1", "create a new trigger instead"}},
		{"a stale expected revision", 2, catalog.Head{Exists: true, ProjectID: "p1", TaskID: "t1", Current: 2}, qlerror.Conflict,
			[]string{"at revision 2, not the expected 1", "re-read it and publish again"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := trigger.Revision{TriggerID: "g1", ProjectID: "p1", TaskID: "t1", Revision: tc.revision, Spec: trigger.Spec{Name: "nightly"}}
			checkErr(t, catalog.CheckTriggerHead(r, tc.head), tc.code, tc.want...)
		})
	}
}

func TestPublishDistinct(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ids   []string
		index int // of the repeat; -1: none
	}{
		{"an empty batch", nil, -1},
		{"distinct objects", []string{"a", "b", "c"}, -1},
		{"a repeat is reported where it occurs", []string{"a", "b", "a", "b"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tasks := make([]catalog.TaskPublishParams, len(tc.ids))
			triggers := make([]catalog.TriggerPublishParams, len(tc.ids))
			for i, id := range tc.ids {
				tasks[i].Revision.TaskID = id
				triggers[i].Revision.TriggerID = id
			}
			for kind, err := range map[string]error{"task": catalog.CheckTasksDistinct(tasks), "trigger": catalog.CheckTriggersDistinct(triggers)} {
				if tc.index < 0 {
					checkErr(t, err, "")
					continue
				}
				checkErr(t, err, qlerror.Invalid, kind+" a is published twice", "items 0 and 2", "publish each "+kind+" once per transaction")
				var item *catalog.ItemError
				if !errors.As(err, &item) || item.Index != tc.index {
					t.Errorf("%s: err = %#v, want an item error at index %d", kind, err, tc.index)
				}
			}
		})
	}
}
