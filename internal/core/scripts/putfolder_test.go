package scripts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A file put into a folder the scripts folder does not hold is refused
// naming that folder and how to make it, not as a missing script, and
// nothing is written.
func TestAPutIntoAFolderThatIsNotThereSaysToMakeTheFolder(t *testing.T) {
	dir := t.TempDir()
	f := &Folder{Dir: dir}
	_, err := f.Put("jd/x.py", strings.NewReader("print(1)\n"), true, MaxUpload)
	if qlerror.ReasonOf(err) != RefusalMissing || !strings.Contains(err.Error(), "folder jd is not in the scripts folder") ||
		!strings.Contains(err.Error(), "make the folder first") || strings.Contains(err.Error(), ".ql-save-") {
		t.Fatalf("a put into a folder that is not there: %v", err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("the scripts folder holds %v (%v) after the refused put", entries, err)
	}
	if err := os.Mkdir(filepath.Join(dir, "jd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Put("jd/x.py", strings.NewReader("print(1)\n"), true, MaxUpload); err != nil {
		t.Fatalf("a put into the folder once made: %v", err)
	}
}
