package executor

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// BenchmarkLocalRunDiskWrites runs Runs of `echo hi` through the real
// single-node path — an admission round, the dispatcher's start, the
// command's output into its log file, its result — one at a time on an
// every-minute trigger whose clock the benchmark moves, and reports what
// each Run writes:
//
//   - wal-B/run: WAL frames appended × (page size + 24-byte frame header),
//     counted exactly from the -wal file's frame headers, and per phase
//     (admit, start, running, finish) with its write transactions and the
//     pages each dirtied;
//   - ckpt-B/run: distinct pages the automatic checkpoints copied into the
//     main file × page size (each checkpoint copies every page the WAL
//     holds once, however often it was written);
//   - log-B/run: what the command's log file holds;
//   - wchar-B/run and write_bytes-B/run: /proc/self/io, every byte the
//     process passed to write(2) and what it sent to the block device (the
//     data directory must be on a disk, not a tmpfs, for the second).
//
// The variants are the database's page size (Config.PageBytes) and the
// WAL bound in pages: the edge server's before (4 KiB pages, as every
// database had, and 256 pages: 1 MiB) and after (1 KiB pages and 1,024
// pages: the same 1 MiB), in the same run, with 1 KiB pages and 256 pages
// between them to tell what each of the two changes saves. Run it alone:
//
//	go test -run '^$' -bench LocalRunDiskWrites -benchtime 200x ./internal/single/executor/
func BenchmarkLocalRunDiskWrites(b *testing.B) {
	for _, c := range []struct{ pageSize, walPages int }{{4096, 256}, {1024, 256}, {1024, 1024}} {
		b.Run(fmt.Sprintf("page%d-wal%d", c.pageSize, c.walPages), func(b *testing.B) { localRunDiskWrites(b, c.pageSize, c.walPages) })
	}
}

// meteredRuns is how many Runs after the measured ones are metered frame
// by frame: reading the WAL's frames and naming their pages costs more CPU
// than a Run, so the measured Runs go unmetered.
const meteredRuns = 100

func localRunDiskWrites(b *testing.B, pageSize, walPages int) {
	h := wearHarness(b, pageSize, walPages)
	c := shell("echo hi", time.Minute)
	m := &metered{Store: h.store, wal: walWatch{path: h.dbPath}, raw: h.raw}
	d, sig := h.dispatcherOn(b, m, dispatcherOpts{})
	round := h.everyMinute(b, c)
	admitRun(b, h, m, d, sig, round) // warm: the first Run creates the log directory, its pages
	io0, cpu0 := procIO(b), processCPU(b)
	runs := 0
	for b.Loop() {
		admitRun(b, h, m, d, sig, round)
		runs++
	}
	io1, cpu1 := procIO(b), processCPU(b)
	n := float64(runs)
	b.ReportMetric(float64(io1["wchar"]-io0["wchar"])/n, "wchar-B/run")
	b.ReportMetric(float64(io1["write_bytes"]-io0["write_bytes"])/n, "write_bytes-B/run")
	b.ReportMetric(float64((cpu1-cpu0).Microseconds())/n, "cpu-µs/run")

	m.start()
	for range meteredRuns {
		admitRun(b, h, m, d, sig, round)
	}
	n = meteredRuns
	b.ReportMetric(float64(m.frames*(pageSize+24))/n, "wal-B/run")
	b.ReportMetric(float64(m.ckptPages*pageSize)/n, "ckpt-B/run")
	b.ReportMetric(float64(m.logBytes)/n, "log-B/run")
	b.ReportMetric(float64(m.commits)/n, "commits/run")
	b.ReportMetric(float64(m.checkpoints)/n, "checkpoints/run")
	for _, name := range slices.Sorted(maps.Keys(m.perPhase)) {
		p := m.perPhase[name]
		b.Logf("%-8s %5.2f commits/run %6.2f pages/run %8.0f WAL B/run", name, float64(p.commits)/n, float64(p.frames)/n, float64(p.frames*(pageSize+24))/n)
		for _, tree := range slices.Sorted(maps.Keys(p.trees)) {
			b.Logf("           %6.2f pages/run  %s", float64(p.trees[tree])/n, tree)
		}
	}
	b.Logf("%d checkpoints over %d Runs copying %d distinct pages (%d frames)", m.checkpoints, meteredRuns, m.ckptPages, m.ckptFrames)
}

// wearHarness is the harness on a store opened with the edge profile's WAL
// bound, its file created with pageSize.
func wearHarness(b *testing.B, pageSize, walPages int) *wearEnv {
	dir := b.TempDir()
	path := filepath.Join(dir, "ql.db")
	raw, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { raw.Close() })
	h := &harness{dir: dir, raw: raw}
	h.nowMs.Store(time.Date(2030, 1, 2, 3, 4, 30, 0, time.UTC).UnixMilli())
	st, err := sqlitestore.Open(b.Context(), sqlitestore.Config{Path: path, NowMs: h.clock, WALPages: walPages, PageBytes: pageSize})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	if _, err := st.Migrate(b.Context()); err != nil {
		b.Fatal(err)
	}
	if err := st.Ready(b.Context()); err != nil {
		b.Fatal(err)
	}
	var got int
	if err := raw.QueryRow(`PRAGMA page_size`).Scan(&got); err != nil || got != pageSize {
		b.Fatalf("the database's page size is %d (%v), want %d", got, err, pageSize)
	}
	h.store = st
	h.project = project.Project{ID: ids.New(), Name: "demo", Status: project.Active}
	if _, err := st.ProjectSave(b.Context(), h.project); err != nil {
		b.Fatal(err)
	}
	return &wearEnv{harness: h, dbPath: path}
}

type wearEnv struct {
	*harness
	dbPath string
}

// everyMinute publishes a task running c on an every-minute trigger and
// returns the admission round.
func (h *wearEnv) everyMinute(b *testing.B, c task.Command) func(st schedule.Store) schedule.Summary {
	svc := catalog.Service{Store: h.store, Executor: task.LocalProcess, NowMs: h.clock}
	tk, _, err := svc.PublishTask(b.Context(), h.project.ID, ids.New(), 0, ids.New(), task.Spec{Name: "hi", Enabled: true, Command: c})
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := svc.PublishTrigger(b.Context(), h.project.ID, ids.New(), tk, 0, ids.New(), trigger.Spec{Name: "minutely", Enabled: true,
		Cron: trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce}}); err != nil {
		b.Fatal(err)
	}
	return func(st schedule.Store) schedule.Summary {
		sum, err := schedule.Round(b.Context(), st, schedule.RoundConfig{PageSize: schedule.MaxPageSize, GraceMs: 60_000, Parallel: 1, NewIDs: ids.Fill})
		if err != nil {
			b.Fatal(err)
		}
		return sum
	}
}

// admitRun moves the clock to the trigger's next minute, admits its Run
// and waits for its result.
func admitRun(b *testing.B, h *wearEnv, m *metered, d *Dispatcher, sig *signalling, round func(schedule.Store) schedule.Summary) {
	for {
		h.nowMs.Add(60_000)
		var sum schedule.Summary
		m.phase("admit", func() { sum = round(h.store) })
		if len(sum.Admitted) == 1 {
			break
		}
		if len(sum.Admitted) > 1 {
			b.Fatalf("admitted %d Runs, want one", len(sum.Admitted))
		}
	}
	d.Wake()
	a := sig.wait(b, 1)[0]
	if a.State != run.AttemptSucceeded {
		b.Fatalf("attempt ended %s: %s", a.State, a.ErrorMessage)
	}
	m.logBytes += a.LogBytes
}

// phaseWrites counts one phase's WAL writes, and its frames by the table
// or index their page belongs to.
type phaseWrites struct {
	commits, frames int
	trees           map[string]int
}

// metered is the executor's store with every write counted in WAL frames
// once started; calls come one at a time (one Run at once, one
// dispatcher).
type metered struct {
	Store
	wal      walWatch
	perPhase map[string]*phaseWrites
	// raw reads which table or index a page belongs to (dbstat).
	raw *sql.DB
	// on is set once the measured Runs are done (start).
	on bool
	// one keeps a phase's writes from overlapping another's: the
	// dispatcher's round after a result runs while the next admission
	// does.
	one sync.Mutex

	frames, commits                    int
	checkpoints, ckptPages, ckptFrames int
	logBytes                           int64
}

// start meters every write from now on.
func (m *metered) start() {
	m.one.Lock()
	defer m.one.Unlock()
	m.on, m.perPhase, m.logBytes = true, map[string]*phaseWrites{}, 0
}

// phase runs fn and adds the frames and commits it appended to name.
func (m *metered) phase(name string, fn func()) {
	m.one.Lock()
	defer m.one.Unlock()
	if !m.on {
		fn()
		return
	}
	before := m.wal.read()
	fn()
	after := m.wal.read()
	frames, commits, ckpt := m.wal.between(before, after)
	p := m.perPhase[name]
	if p == nil {
		p = &phaseWrites{trees: map[string]int{}}
		m.perPhase[name] = p
	}
	for _, pg := range after.pages[len(after.pages)-frames:] {
		p.trees[m.tree(pg)]++
	}
	p.frames += frames
	p.commits += commits
	m.frames += frames
	m.commits += commits
	if ckpt.frames > 0 {
		m.checkpoints++
		m.ckptFrames += ckpt.frames
		m.ckptPages += ckpt.pages
	}
}

// tree names the table or index page pg belongs to, as the database is
// now: the page a frame held is named after the transaction that wrote it.
func (m *metered) tree(pg uint32) string {
	if pg == 1 {
		return "(page 1: the file's header and schema root)"
	}
	var name string
	if err := m.raw.QueryRow(`SELECT name FROM dbstat WHERE pageno = ?`, pg).Scan(&name); err != nil {
		return "(free or unknown page)"
	}
	return name
}

func (m *metered) AttemptStart(ctx context.Context, attemptID, owner, logPath string) (plan task.Execution, id run.Identity, planErr, err error) {
	m.phase("start", func() { plan, id, planErr, err = m.Store.AttemptStart(ctx, attemptID, owner, logPath) })
	return plan, id, planErr, err
}

func (m *metered) AttemptRunning(ctx context.Context, attemptID string, pid int) (err error) {
	m.phase("running", func() { err = m.Store.AttemptRunning(ctx, attemptID, pid) })
	return err
}

func (m *metered) AttemptFinish(ctx context.Context, a run.Attempt) (finished run.State, err error) {
	m.phase("finish", func() { finished, err = m.Store.AttemptFinish(ctx, a) })
	return finished, err
}

func (m *metered) RetriesRequeue(ctx context.Context, limit int) (requeued int, next time.Duration, err error) {
	m.phase("requeue", func() { requeued, next, err = m.Store.RetriesRequeue(ctx, limit) })
	return requeued, next, err
}

// walWatch reads the WAL's state from the -shm file's index header (its
// first copy: mxFrame, the last valid frame, at byte 16; nBackfill, the
// frames a checkpoint copied into the main file, at byte 96; native byte
// order) and frame headers from the -wal file (page number and, on a
// commit frame, the database size, big-endian).
type walWatch struct{ path string }

type walState struct {
	mxFrame, nBackfill, salt uint32
	pageSize                 int
	// pages is the page number of each valid frame, in order.
	pages []uint32
	// commits marks each valid frame that ends a transaction.
	commits []bool
}

func (w walWatch) read() walState {
	shm, err := os.ReadFile(w.path + "-shm")
	if err != nil || len(shm) < 104 {
		return walState{}
	}
	s := walState{mxFrame: binary.NativeEndian.Uint32(shm[16:]), nBackfill: binary.NativeEndian.Uint32(shm[96:]),
		salt:     binary.NativeEndian.Uint32(shm[32:]),
		pageSize: int(binary.NativeEndian.Uint16(shm[14:]))}
	if s.pageSize == 1 {
		s.pageSize = 65536
	}
	f, err := os.Open(w.path + "-wal")
	if err != nil {
		return s
	}
	defer f.Close()
	hdr := make([]byte, 8)
	for i := range int64(s.mxFrame) {
		if _, err := f.ReadAt(hdr, 32+i*int64(24+s.pageSize)); err != nil {
			break
		}
		s.pages = append(s.pages, binary.BigEndian.Uint32(hdr))
		s.commits = append(s.commits, binary.BigEndian.Uint32(hdr[4:]) != 0)
	}
	return s
}

// checkpointed is what a checkpoint copied: frames, and the distinct pages
// they hold (what it wrote into the main file).
type checkpointed struct{ frames, pages int }

// between counts the frames and commits appended from before to after, and
// what a checkpoint that ran meanwhile copied. The log restarts from frame
// 1 with a new salt at the first write after a checkpoint that copied it
// all; a checkpoint ends a commit that took the log past its bound and
// copies every frame (nBackfill reaches mxFrame).
func (walWatch) between(before, after walState) (frames, commits int, ckpt checkpointed) {
	from := int(before.mxFrame)
	restarted := after.salt != before.salt
	if restarted {
		from = 0
	}
	for _, c := range after.commits[min(from, len(after.commits)):] {
		frames++
		if c {
			commits++
		}
	}
	if after.nBackfill > 0 && (restarted || after.nBackfill > before.nBackfill) {
		ckpt.frames = int(after.nBackfill)
		ckpt.pages = distinct(after.pages[:min(int(after.nBackfill), len(after.pages))])
	}
	return frames, commits, ckpt
}

func distinct(pages []uint32) int {
	seen := map[uint32]bool{}
	for _, p := range pages {
		seen[p] = true
	}
	return len(seen)
}

// processCPU is the CPU time this process has used, user and system (its
// commands, children it waits for, are not counted).
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procIO reads this process's /proc/self/io counters.
func procIO(b *testing.B) map[string]int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		b.Fatalf("read /proc/self/io (Linux only): %v", err)
	}
	out := map[string]int64{}
	for _, line := range strings.Split(string(data), "\n") {
		name, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		out[name] = n
	}
	return out
}
