package process

import (
	"os"
	"strconv"
	"sync"
	"syscall"
)

// maxSealedWithoutList bounds the descriptors sealed one by one where the
// process cannot list its own (no /dev/fd, e.g. /proc not mounted): past
// the usual limits, and few enough to take a few milliseconds, once.
const maxSealedWithoutList = 1 << 16

var sealBlind sync.Once

// sealInherited marks every descriptor of this process above standard
// error close-on-exec before a command starts. Go opens its own
// descriptors close-on-exec, but one the process was started with (a
// shell's `9>file`, a supervisor's socket or pipe) stays open across exec:
// every command would inherit it, under another account too (runAs), and
// could read or write what it points at. A command gets its standard
// input, output and error, nothing else of the process that started it.
// Listing the descriptors costs a directory read per spawn; where they
// cannot be listed, every possible one is sealed, once (any opened since
// is Go's own, close-on-exec already).
func sealInherited() {
	entries, err := os.ReadDir("/dev/fd")
	if err != nil {
		sealBlind.Do(func() {
			for fd := 3; fd < maxSealedWithoutList; fd++ {
				syscall.CloseOnExec(fd)
			}
		})
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
