//go:build linux

package process

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var (
	subreaperOnce sync.Once
	// subreaper is whether this process adopts the orphaned descendants
	// of its commands instead of init.
	subreaper atomic.Bool
)

// becomeSubreaper makes this process a child subreaper (once): a
// descendant whose parent exits is re-parented here rather than to init,
// so an attempt's escaped processes stay findable. Without it (an old
// kernel) they are looked for among init's children.
func becomeSubreaper() {
	subreaperOnce.Do(func() {
		subreaper.Store(unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil)
	})
}

// seed remembers the main process by its start time, so a later scan
// recognises it however it changed its group.
func (t *tree) seed() {
	if fields, err := procStat(t.main); err == nil {
		if start, err := strconv.ParseUint(fields[19], 10, 64); err == nil {
			t.known[t.main] = start
		}
	}
}

// proc is one line of the process table.
type proc struct {
	pid, ppid, pgrp, session int
	zombie                   bool
	start                    uint64
}

// live lists the attempt's running members. Members that died while
// adopted by this process are reaped here — nothing else waits for them —
// except the main process, which its exec.Cmd reaps. So is any dead
// adopted process from another session, of whatever attempt: once dead
// its environment is gone and it cannot be attributed, yet it must not
// stay a zombie for the server's lifetime. The session tells it from this
// server's own exec children, which never leave the server's session and
// must be reaped by their exec.Cmd.
func (t *tree) live() []int {
	if t.quickGone() {
		return nil
	}
	procs := processTable()
	self := os.Getpid()
	session, _ := unix.Getsid(0)
	adopter := 1
	if subreaper.Load() {
		adopter = self
	}
	children := make(map[int][]int, len(procs))
	byPID := make(map[int]proc, len(procs))
	var queue []int
	in := map[int]bool{}
	for _, p := range procs {
		byPID[p.pid] = p
		children[p.ppid] = append(children[p.ppid], p.pid)
		if p.zombie && p.ppid == self && p.session != session {
			reap(p.pid)
		}
	}
	for _, p := range procs {
		if p.pid == self {
			continue
		}
		root := p.pgrp == t.main
		if start, ok := t.known[p.pid]; ok && start == p.start {
			root = true
		}
		if !root && p.ppid == adopter && !p.zombie && t.adoptedMarked(p.pid) {
			root = true
		}
		if root {
			in[p.pid] = true
			queue = append(queue, p.pid)
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if !in[c] && c != self {
				in[c] = true
				queue = append(queue, c)
			}
		}
	}
	var out []int
	for pid := range in {
		p := byPID[pid]
		if !p.zombie {
			t.known[pid] = p.start
			out = append(out, pid)
			continue
		}
		delete(t.known, pid)
		if p.ppid == self && pid != t.main {
			reap(pid)
		}
	}
	return out
}

// quickGone reports, without reading the whole process table, that
// nothing of the attempt runs — the usual case when a command ends: its
// group is empty, nothing it was seen to start still runs, and none of
// the processes this server adopted carries its marker. Any doubt (no
// subreaper, no /proc children lists) answers false, for the full scan.
func (t *tree) quickGone() bool {
	if !subreaper.Load() || !errors.Is(syscall.Kill(-t.main, 0), syscall.ESRCH) {
		return false
	}
	for pid, start := range t.known {
		fields, err := procStat(pid)
		if err == nil && fields[0] != "Z" && fields[0] != "X" && fields[19] == strconv.FormatUint(start, 10) {
			return false
		}
	}
	kids, ok := ownChildren()
	if !ok {
		return false
	}
	session, _ := unix.Getsid(0)
	for _, pid := range kids {
		fields, err := procStat(pid)
		if err != nil {
			continue
		}
		if fields[0] == "Z" || fields[0] == "X" {
			if fields[3] != strconv.Itoa(session) {
				reap(pid)
			}
			continue
		}
		if t.adoptedMarked(pid) {
			return false
		}
	}
	return true
}

// ownChildren lists this process's children from the per-thread
// /proc children lists (a child belongs to the thread that forked it).
func ownChildren() ([]int, bool) {
	threads, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, false
	}
	var out []int
	for _, th := range threads {
		data, err := os.ReadFile("/proc/self/task/" + th.Name() + "/children")
		if errors.Is(err, fs.ErrNotExist) && th.Name() != strconv.Itoa(os.Getpid()) {
			continue // the thread exited meanwhile
		}
		if err != nil {
			return nil, false
		}
		for f := range strings.FieldsSeq(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out, true
}

// reap collects a dead child without blocking.
func reap(pid int) {
	var ws unix.WaitStatus
	_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
}

// marked reports whether pid's initial environment carries this attempt's
// QL_ATTEMPT_ID, which every process the command starts inherits unless it
// clears its environment.
func (t *tree) marked(pid int) bool {
	env, err := readEnviron(pid)
	return err == nil && t.carriesMarker(env)
}

// adoptedMarked is marked for a process this server adopted, which is
// often a daemon just started with setsid and still exec'ing: between
// dropping its old image and setting up the new one a process shows an
// empty environment, so an empty one is read again for a moment before it
// counts as unmarked.
func (t *tree) adoptedMarked(pid int) bool {
	deadline := time.Now().Add(execWindow)
	for {
		env, err := readEnviron(pid)
		if err != nil {
			return false
		}
		if len(env) > 0 || time.Now().After(deadline) {
			return t.carriesMarker(env)
		}
		time.Sleep(time.Millisecond)
	}
}

// execWindow bounds how long a process may show an empty environment
// while it execs, a slow machine's scheduling delays included.
const execWindow = 100 * time.Millisecond

func readEnviron(pid int) ([]byte, error) {
	return os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
}

func (t *tree) carriesMarker(env []byte) bool {
	want := []byte("QL_ATTEMPT_ID=" + t.attemptID)
	for entry := range bytes.SplitSeq(env, []byte{0}) {
		if bytes.Equal(entry, want) {
			return true
		}
	}
	return false
}

// processTable reads every process's parent, group, state and start time.
// Processes that vanish while it reads are skipped.
func processTable() []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]proc, 0, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fields, err := procStat(pid)
		if err != nil {
			continue
		}
		ppid, err1 := strconv.Atoi(fields[1])
		pgrp, err2 := strconv.Atoi(fields[2])
		session, err3 := strconv.Atoi(fields[3])
		start, err4 := strconv.ParseUint(fields[19], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			continue
		}
		out = append(out, proc{pid: pid, ppid: ppid, pgrp: pgrp, session: session, start: start, zombie: fields[0] == "Z" || fields[0] == "X"})
	}
	return out
}
