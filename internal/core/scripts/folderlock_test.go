package scripts

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

// holdEnv makes the test binary a process that holds the folder's lock
// (the folder it names) until its standard input gives a line, then
// writes theirs over a.js, as a change of another process does, and
// exits, which drops the lock.
const holdEnv = "QL_SCRIPTS_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		os.Exit(hold(dir))
	}
	leakcheck.Main(m)
}

func hold(dir string) int {
	d, err := os.Open(dir)
	if err == nil {
		err = syscall.Flock(int(d.Fd()), syscall.LOCK_EX)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("held")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return 1
	}
	if err := os.WriteFile(filepath.Join(dir, "a.js"), []byte("theirs\n"), 0o644); err != nil {
		return 1
	}
	return 0
}

// A save's check of what the editor loaded and its write hold the
// folder's lock, which every process changing the folder takes: while
// another process holds it (mid-change), a save waits for it — refused
// script_folder_busy, nothing written, once it waited its limit — and a
// save that got the lock after that process's change finds the file
// changed and is refused script_changed, rather than slip its write
// between the other's check and write.
func TestASaveIsAtomicAgainstAChangeOfTheFolderByAnotherProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.js"), []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded := Digest([]byte("v1\n"))
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), holdEnv+"="+dir)
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("the other process: %q %v", line, err)
	}

	_, err = (&Folder{Dir: dir, wait: 50 * time.Millisecond}).Save("a.js", []byte("mine\n"), loaded)
	if qlerror.ReasonOf(err) != RefusalBusy || qlerror.CodeOf(err) != qlerror.Unavailable {
		t.Errorf("a save while another process holds the folder: %v; want %s", err, RefusalBusy)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.js")); string(b) != "v1\n" {
		t.Fatalf("the refused save wrote %q", b)
	}

	saved := make(chan error, 1)
	go func() {
		_, err := (&Folder{Dir: dir}).Save("a.js", []byte("mine\n"), loaded)
		saved <- err
	}()
	if _, err := fmt.Fprintln(stdin, "write"); err != nil {
		t.Fatal(err)
	}
	if err := child.Wait(); err != nil {
		t.Fatalf("the other process: %v", err)
	}
	if err := <-saved; qlerror.ReasonOf(err) != RefusalChanged {
		t.Errorf("a save waiting for the other process's change: %v; want %s", err, RefusalChanged)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.js")); string(b) != "theirs\n" {
		t.Errorf("a.js is %q; want the other process's change", b)
	}
}

// Saves of one loaded file through separate handles of the folder (as
// two servers given the same --scripts-dir hold) are one at a time: one
// is written, every other is refused script_changed, and the file is the
// one written.
func TestSavesOfOneLoadedFileThroughSeparateHandlesWriteOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.js"), []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded := Digest([]byte("v1\n"))
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = (&Folder{Dir: dir}).Save("a.js", fmt.Appendf(nil, "save %d\n", i), loaded)
		})
	}
	close(start)
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won >= 0:
			t.Errorf("saves %d and %d were both written from the same loaded file", won, i)
		case err == nil:
			won = i
		case qlerror.ReasonOf(err) != RefusalChanged:
			t.Errorf("save %d: %v; want written or %s", i, err, RefusalChanged)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.js")); won < 0 || string(b) != fmt.Sprintf("save %d\n", won) {
		t.Errorf("a.js is %q; want the one save written (%d)", b, won)
	}
}
