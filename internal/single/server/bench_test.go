package server

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Edge budgets: what a small device can afford.
const (
	edgeMaxBinaryMiB = 15
	edgeMaxIdleMiB   = 24
	idleTriggers     = 1_000
	idleWait         = 60 * time.Second
	initialisedSQL   = `SELECT count(*) FROM trigger_schedules WHERE next_fire_at_ms IS NOT NULL`
)

func moduleRoot(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		b.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// buildEdge builds ql-edge for goos/goarch (GOARM given as arm="7") by the
// release build, build.sh (static, stripped, without HTTP/2), so what is
// measured is what ships, and returns its path.
func buildEdge(b *testing.B, goos, goarch, arm string) string {
	dir := b.TempDir()
	root := moduleRoot(b)
	cmd := exec.Command("sh", filepath.Join(root, "build.sh"), "-o", dir, "ql-edge")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "GOARM="+arm)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("./build.sh ql-edge for %s/%s: %v\n%s", goos, goarch, err, msg)
	}
	return filepath.Join(dir, "ql-edge")
}

// BenchmarkEdgeBinarySize reports the stripped edge binary's size for the
// edge targets (cross-compiled without cgo, which also proves they build).
// Budget: ≤ 15 MiB.
func BenchmarkEdgeBinarySize(b *testing.B) {
	for _, target := range []struct{ name, goarch, arm string }{
		{"linux-amd64", "amd64", ""}, {"linux-arm64", "arm64", ""}, {"linux-armv7", "arm", "7"},
	} {
		b.Run(target.name, func(b *testing.B) {
			info, err := os.Stat(buildEdge(b, "linux", target.goarch, target.arm))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(mib(info.Size()), "MiB")
			if mib(info.Size()) > edgeMaxBinaryMiB {
				b.Errorf("stripped ql-edge for %s is %.2f MiB, over the %d MiB budget", target.name, mib(info.Size()), edgeMaxBinaryMiB)
			}
		})
	}
}

// BenchmarkEdgeIdleRSS runs the real edge binary with --profile edge on a
// database of 1,000 triggers (none due within the measurement), twice: the
// first start, which initialises every trigger's cursor, and a restart,
// which finds them initialised (a device's ordinary reboot). Each waits
// until every schedule row is initialised, then 60 s more, and reports the
// process's resident set (budget: ≤ 24 MiB) and the two parts the kernel
// counts in it: RssAnon, the process's own memory, and RssFile, the pages
// of the binary mapped into it (the kernel maps them in windows around each
// page touched, so this part follows the binary's size more than the code
// that runs). Run it alone:
//
//	go test -run '^$' -bench EdgeIdleRSS -benchtime 1x ./internal/single/server
func BenchmarkEdgeIdleRSS(b *testing.B) {
	bin := buildEdge(b, "linux", goarchOfHost(), "")
	dataDir := b.TempDir()
	publishIdle(b, dataDir)
	for _, start := range []struct{ name, metric string }{{"first start", "first"}, {"restart", "restart"}} {
		rss := idleResident(b, bin, dataDir)
		b.Logf("%s: VmRSS %.2f MiB = RssAnon %.2f + RssFile %.2f", start.name, mib(rss["VmRSS"]), mib(rss["RssAnon"]), mib(rss["RssFile"]))
		b.ReportMetric(mib(rss["VmRSS"]), start.metric+"-RSS-MiB")
		b.ReportMetric(mib(rss["RssAnon"]), start.metric+"-RssAnon-MiB")
		b.ReportMetric(mib(rss["RssFile"]), start.metric+"-RssFile-MiB")
		if mib(rss["VmRSS"]) > edgeMaxIdleMiB {
			b.Errorf("idle edge RSS after the %s %.2f MiB is over the %d MiB budget", start.name, mib(rss["VmRSS"]), edgeMaxIdleMiB)
		}
	}
}

// idleResident starts the edge server on dataDir, waits until every
// trigger is initialised and then idleWait, and returns the server's
// resident memory by kind before stopping it.
func idleResident(b *testing.B, bin, dataDir string) map[string]int64 {
	cmd := exec.Command(bin, "serve", "--profile", "edge", "--data-dir", dataDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			b.Errorf("ql-edge exited with %v:\n%s", err, stderr.String())
		}
	}()
	db := observerTB(b, dataDir)
	waitFor(b, "the edge server to initialise every trigger", 2*time.Minute, func() bool {
		var n int
		err := db.QueryRow(initialisedSQL).Scan(&n)
		return err == nil && n == idleTriggers
	})
	// The measurement is the state after a minute of idling, so this one
	// waits on purpose.
	time.Sleep(idleWait)
	return residentBytes(b, cmd.Process.Pid)
}

func goarchOfHost() string {
	out, err := exec.Command("go", "env", "GOARCH").Output()
	if err != nil {
		return "amd64"
	}
	return strings.TrimSpace(string(out))
}

// publishIdle writes idleTriggers daily triggers at 03:00 UTC, pinned to
// one task.
func publishIdle(b *testing.B, dataDir string) {
	be, err := OpenBackend(b.Context(), LayoutOf(dataDir).DB, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	p := project.Project{ID: ids.New(), Name: "idle", Status: project.Active}
	if _, err := be.Store.ProjectSave(b.Context(), p); err != nil {
		b.Fatal(err)
	}
	tk, _, err := be.Catalog.PublishTask(b.Context(), p.ID, ids.New(), 0, ids.New(), task.Spec{Name: "job", Enabled: true,
		Command: task.Command{Mode: task.ModeArgv, Path: "/bin/true", TimeoutMs: 60_000}})
	if err != nil {
		b.Fatal(err)
	}
	for i := range idleTriggers {
		spec := trigger.Spec{Name: fmt.Sprintf("t%04d", i), Enabled: true, Cron: trigger.Cron{Expression: "0 3 * * *", Timezone: "UTC", MisfirePolicy: trigger.Skip}}
		if _, _, err := be.Catalog.PublishTrigger(b.Context(), p.ID, ids.New(), tk, 0, ids.New(), spec); err != nil {
			b.Fatal(err)
		}
	}
}

// residentBytes reads the process's VmRSS, RssAnon and RssFile (bytes).
func residentBytes(b *testing.B, pid int) map[string]int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatalf("read the server's status (Linux only): %v", err)
	}
	rss := map[string]int64{}
	for _, line := range strings.Split(string(status), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "RssAnon" && name != "RssFile") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		rss[name] = kb << 10
	}
	if len(rss) != 3 {
		b.Fatalf("the server's status lacks a VmRSS, RssAnon or RssFile line:\n%s", status)
	}
	return rss
}
