//go:build linux

package process

import (
	"context"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// adoptedSweepEvery is how often the reaper looks for dead children with
// no SIGCHLD to wake it: the kernel's children lists are exact only while
// no child comes or goes as they are read (proc(5)), so a sweep may skip
// a zombie whose SIGCHLD it was woken by. One sweep reads a line of /proc
// per child of this process.
const adoptedSweepEvery = time.Minute

// ReapAdopted collects, until ctx ends, the dead children of this process
// that nothing else waits for: the descendants of its commands that it
// adopted (a child subreaper) and that died there, whether they left
// their attempt by a new session or only a new process group
// (`set -m; cmd &`, a daemon that forks without setsid), found by the
// attempt's end or not, dead before it or long after. Without it each
// would stay a zombie for this server's life. It sweeps at each SIGCHLD
// (which the kernel sends the adopter when one dies) and every
// adoptedSweepEvery, and says nothing: a zombie ran nothing any more, and
// the attempt's end already named what it left running (LeftRunningLine).
func ReapAdopted(ctx context.Context) {
	died := make(chan os.Signal, 1)
	signal.Notify(died, syscall.SIGCHLD)
	defer signal.Stop(died)
	every := time.NewTicker(adoptedSweepEvery)
	defer every.Stop()
	for {
		sweepAdopted()
		select {
		case <-ctx.Done():
			return
		case <-died:
		case <-every.C:
		}
	}
}

// sweepAdopted waits, by pid and without blocking, for every dead child
// but two kinds, whose exit status another wait is to take: a command's
// main process, which its exec.Cmd waits for (the waited record), and any
// child in this process's own group, where every process Go code here
// starts without a group of its own stays (an exec.Cmd's default). A
// command's descendant leaves its command's group only for a group or
// session of its own, never this one. It never waits for any child (-1),
// which would take those statuses too.
func sweepAdopted() {
	waited.spawning.Lock()
	defer waited.spawning.Unlock()
	group := strconv.Itoa(unix.Getpgrp())
	for _, pid := range children() {
		fields, err := procStat(pid)
		if err != nil || fields[0] != "Z" || fields[2] == group || isWaited(pid) {
			continue
		}
		reap(pid)
	}
}

// children lists this process's children, from the per-thread children
// lists, or else from the whole process table.
func children() []int {
	if kids, ok := ownChildren(); ok {
		return kids
	}
	self := os.Getpid()
	var kids []int
	for _, p := range processTable() {
		if p.ppid == self {
			kids = append(kids, p.pid)
		}
	}
	return kids
}
