package subscription

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/task"
)

// A subscription an earlier release stored with a format character in
// its branch (the converter took one then) keeps the folder its labels
// name, so the pages list it and a second subscription pulling into it is
// refused, while a ql repo line of that branch is no longer converted:
// the converter refuses such a line, not the reading of stored labels.
func TestASubscriptionStoredWithAFormatCharacterKeepsItsFolder(t *testing.T) {
	const branch = "ma\u200bin"
	d := catalog.Definitions{Tasks: []task.Revision{{TaskID: "t1", Spec: task.Spec{Name: "repo-o-r-ma-in",
		Labels: map[string]string{LabelURL: "https://example.com/o/r.git", LabelBranch: branch}}}}}
	subs := Of(d)
	if len(subs) != 1 || subs[0].Folder != "o_r_"+branch {
		t.Fatalf("the stored subscription: %+v; want its folder o_r_%s", subs, branch)
	}
	if other, ok := folderTaken(subs, "", "o_r_"+branch); !ok || other.Name != "repo-o-r-ma-in" {
		t.Errorf("a second subscription of its folder was not refused: %+v", other)
	}
	res, err := crontab.Convert(strings.NewReader("0 0 * * * ql repo https://example.com/o/r.git '' '' '' '"+branch+"'\n"), crontab.Options{Zone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 0 || len(res.Problems) != 1 || res.Problems[0].Code != crontab.CodeRepoCharacter {
		t.Errorf("the converter: %+v %+v; want the line not converted as %s", res.Entries, res.Problems, crontab.CodeRepoCharacter)
	}
}
