//go:build linux

package localexec

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

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
		if !root && p.ppid == adopter && !p.zombie && t.marked(p.pid) {
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

// reap collects a dead child without blocking.
func reap(pid int) {
	var ws unix.WaitStatus
	_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
}

// marked reports whether pid's initial environment carries this attempt's
// QL_ATTEMPT_ID, which every process the command starts inherits unless it
// clears its environment.
func (t *tree) marked(pid int) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
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
