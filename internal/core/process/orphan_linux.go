//go:build linux

package process

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Window in which the command's process must have started, relative to the
// attempt's recorded start (taken just before the spawn): a little before,
// for clock granularity (/proc start times are in 10 ms ticks, boot time in
// whole seconds), and up to a minute after, for a slow spawn.
const (
	startSlackMs  = 2_000
	spawnWindowMs = 60_000
)

// userHZ is the unit of /proc start times: USER_HZ, fixed at 100 by the
// Linux ABI whatever the kernel's internal tick rate.
const userHZ = 100

// EndOrphan ends the process group a crashed server's command left behind.
// The group id is the command's pid (it runs with Setpgid). The hazard is
// pid reuse: the number may now belong to an unrelated process. So:
//   - a live process with that pid is the command only if it still leads
//     group pid and started when the attempt did; anything else is left;
//   - no process with that pid: the kernel never reuses a pid while a
//     process group of that id exists, so any member of group pid is the
//     command's own descendant and is ended.
func EndOrphan(pgid int, startedAtMs int64) (OrphanOutcome, error) {
	startMs, pgrp, err := procStart(pgid)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return endGroup(pgid)
	case err != nil:
		return OrphanLeft, err
	case pgrp != pgid || startMs < startedAtMs-startSlackMs || startMs > startedAtMs+spawnWindowMs:
		return OrphanLeft, nil
	}
	return endGroup(pgid)
}

// groupRunning reports whether a process of group pgid runs. Zombies do
// not count: an orphan's new parent (PID 1 of a container, often) may never
// reap them, and they run nothing.
func groupRunning(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, pgrp, err := procState(pid)
		if err == nil && pgrp == pgid && state != "Z" && state != "X" {
			return true
		}
	}
	return false
}

// procStart reads a process's start time (Unix ms) and process group from
// /proc. An absent process is fs.ErrNotExist.
func procStart(pid int) (startMs int64, pgrp int, err error) {
	fields, err := procStat(pid)
	if err != nil {
		return 0, 0, err
	}
	if pgrp, err = strconv.Atoi(fields[2]); err != nil {
		return 0, 0, fmt.Errorf("/proc/%d/stat: pgrp: %w", pid, err)
	}
	ticks, err := strconv.ParseInt(fields[19], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("/proc/%d/stat: starttime: %w", pid, err)
	}
	bootSec, err := bootTime()
	if err != nil {
		return 0, 0, err
	}
	return bootSec*1000 + ticks*1000/userHZ, pgrp, nil
}

// procState reads a process's state letter and process group.
func procState(pid int) (state string, pgrp int, err error) {
	fields, err := procStat(pid)
	if err != nil {
		return "", 0, err
	}
	pgrp, err = strconv.Atoi(fields[2])
	return fields[0], pgrp, err
}

// procStat returns the fields of /proc/<pid>/stat from field 3 (state)
// on: pgrp is [2], starttime [19]. An absent process is fs.ErrNotExist.
func procStat(pid int) ([]string, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	// "pid (comm) state ppid pgrp … starttime …": comm may hold spaces and
	// parentheses, so fields are counted after the last ')'.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	fields := strings.Fields(string(stat[end+1:]))
	if len(fields) < 20 {
		return nil, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(fields))
	}
	return fields, nil
}

// bootTime is the boot instant in Unix seconds ("btime" of /proc/stat),
// which the kernel keeps in step with wall-clock adjustments.
func bootTime() (int64, error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, err
	}
	defer f.Close() //nolint:errcheck // read only
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "btime "); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("/proc/stat has no btime line")
}

// EndMarked ends every process whose initial environment carries
// attemptID's QL_ATTEMPT_ID marker: what a crashed owner's command left
// running when its process group is unknown (the owner died between the
// spawn and recording the pid) or that left the group. Attempt ids are
// unique, so the marker never names an unrelated process; one that cleared
// its environment is not found. A command may fork while it is ended, so
// each pass signals every marked process it finds: SIGTERM to those new
// during orphanTermGrace, then SIGKILL to all of them on every pass until
// none is left. It returns how many distinct processes were found.
func EndMarked(attemptID string) (int, error) {
	t := &tree{attemptID: attemptID}
	marked := func() []int {
		var out []int
		for _, p := range processTable() {
			if p.pid != os.Getpid() && !p.zombie && t.marked(p.pid) {
				out = append(out, p.pid)
			}
		}
		return out
	}
	seen := map[int]bool{}
	termUntil := time.Now().Add(orphanTermGrace)
	var killUntil time.Time
	for {
		pids := marked()
		if len(pids) == 0 {
			return len(seen), nil
		}
		now := time.Now()
		killing := !now.Before(termUntil)
		if killing && killUntil.IsZero() {
			killUntil = now.Add(orphanKillWait)
		}
		if killing && now.After(killUntil) {
			return len(seen), errors.New("processes of the attempt survived SIGKILL")
		}
		for _, pid := range pids {
			switch {
			case killing:
				_ = syscall.Kill(pid, syscall.SIGKILL)
			case !seen[pid]:
				_ = syscall.Kill(pid, syscall.SIGTERM)
			}
			seen[pid] = true
		}
		time.Sleep(orphanPoll)
	}
}
