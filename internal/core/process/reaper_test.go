package process

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// While the reaper runs, every command's exit status is still its own: it
// never collects a child an exec.Cmd waits for, though it sweeps at every
// child's death. Many short commands run at once, each leaving a dead
// descendant the reaper collects (so it sweeps all the time, often while
// a command's main process has exited and its Wait has not yet taken its
// status), and each exits with a code of its own. Not parallel: the load
// of its commands would stretch the bounded waits of other tests.
func TestEveryCommandsExitStatusIsReportedWhileTheReaperRuns(t *testing.T) {
	requireLinux(t)
	ctx, stop := context.WithCancel(t.Context())
	reaped := make(chan struct{})
	go func() {
		defer close(reaped)
		ReapAdopted(ctx)
	}()
	defer func() {
		stop()
		<-reaped
	}()
	const commands, atOnce = 400, 16
	slots := make(chan struct{}, atOnce)
	var wg sync.WaitGroup
	for i := range commands {
		code := 1 + i%250
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			res, out, _ := runShell(t, ctx, fmt.Sprintf("/bin/true & exit %d", code), time.Minute)
			if res.State != run.AttemptFailed || res.Code != ErrorCodeExitNonZero || res.ExitCode == nil || *res.ExitCode != int64(code) {
				t.Errorf("command %d: result %+v (exit code %v), output %q; want it failed with exit code %d", i, res, exitCode(res), out, code)
			}
		})
	}
	wg.Wait()
}

func exitCode(res Result) any {
	if res.ExitCode == nil {
		return nil
	}
	return *res.ExitCode
}
