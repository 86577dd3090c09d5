package singlecli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/task"
)

// argvFile is a definitions file whose one task runs /bin/echo with args
// arguments of n bytes each.
func argvFile(args, n int) string {
	list := make([]string, args)
	for i := range list {
		list[i] = `"` + strings.Repeat("a", n) + `"`
	}
	return "project: big\ntasks:\n  - name: huge\n    command: [\"/bin/echo\", " + strings.Join(list, ", ") + "]\n"
}

// hugeSize is what starting argvFile(20, 30000)'s command takes, as
// task.Command.ExecSize counts it: more than a task may take, each
// argument within its own limit, and the file within the API's 1 MiB.
var hugeSize = len("/bin/echo") + 9 + 20*(30000+9)

// A task whose arguments and environment together take more than a task
// may of ARG_MAX is refused by `ql apply` (exit 2, at the task's line,
// with its size and the limit) and by the apply API (400, the same
// message placed at the same line), and nothing is applied: accepted, it
// would fail every Run with "argument list too long". Not parallel: it
// sets $QL_TOKEN.
func TestATaskTooLongToStartIsRefusedByApplyOnTheCLIAndTheAPI(t *testing.T) {
	if hugeSize <= task.MaxExecSize {
		t.Fatalf("the file's command takes %d bytes, within the limit %d", hugeSize, task.MaxExecSize)
	}
	want := fmt.Sprintf(`task "huge": task.command: starting it takes %d bytes of arguments and environment (each with its NUL and pointer, as Linux counts them), the limit is %d`, hugeSize, task.MaxExecSize)
	dir := installedDir(t)
	file := writeFile(t, dir, "huge.yaml", argvFile(20, 30000))
	code, out, errOut := ql(t, "apply", "-f", file, "--data-dir", dir)
	if code != 2 || !strings.Contains(errOut, file+":3:5: "+want) || !strings.Contains(errOut, "nothing was applied") {
		t.Fatalf("ql apply: %d %q %q; want exit 2 saying %q at line 3", code, out, errOut, want)
	}

	admin := newToken(t, dir, "admin", "admin")
	base := serveAPI(t, dir, "standalone")
	st, body := call(t, "POST", base+"/api/v1/apply?file=huge.yaml", admin, argvFile(20, 30000))
	e, _ := body["error"].(map[string]any)
	errs, _ := e["errors"].([]any)
	if st != 400 || e["code"] != "invalid" || len(errs) != 1 {
		t.Fatalf("apply API: %d %v; want 400 invalid with one error", st, body)
	}
	if at := errs[0].(map[string]any); at["line"] != 3.0 || !strings.Contains(at["message"].(string), want) {
		t.Fatalf("apply API's error %v; want line 3 saying %q", at, want)
	}
	t.Setenv("QL_TOKEN", admin)
	if code, out, errOut := ql(t, "apply", "-f", file, "--api-url", base); code != 2 || !strings.Contains(errOut, want) {
		t.Fatalf("ql apply --api-url: %d %q %q; want exit 2 saying %q", code, out, errOut, want)
	}
	if code, out, _ := ql(t, "export", "big", "--data-dir", dir); code == 0 {
		t.Fatalf("export after the refused applies: %q; want no project big", out)
	}
}
