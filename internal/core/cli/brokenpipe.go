package cli

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

var notifyPipe sync.Once

// surviveBrokenPipe keeps a long-running command alive when whatever
// reads its standard output or error goes away (`ql serve 2>&1 | head`, a
// log shipper that died): Go's runtime kills a program that writes to a
// broken pipe on fd 1 or 2 with SIGPIPE, and a server killed so stops
// without its drain, leaving its commands running unsupervised. Once
// SIGPIPE is notified, the write fails with EPIPE instead. Notified, never
// ignored: an ignored disposition is inherited through exec by every
// command the server or worker spawns, and a task's `yes | head -1` would
// then run on, its writer never killed; a caught one is reset to the
// default in the child.
func surviveBrokenPipe() {
	notifyPipe.Do(func() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) })
}

// pipeLog is a long-running command's log stream: once a write finds the
// pipe broken, no reader can come back, so the lines after it are dropped
// without another write, and the command runs on.
type pipeLog struct {
	w      io.Writer
	broken atomic.Bool
}

func (p *pipeLog) Write(b []byte) (int, error) {
	if p.broken.Load() {
		return len(b), nil
	}
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		p.broken.Store(true)
		return len(b), nil
	}
	return n, err
}
