//go:build linux

package process

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
)

// Capability bits (linux/capability.h) switching identity needs.
const (
	capSetgid = 6
	capSetuid = 7
)

// canSwitchUser reports whether this process holds CAP_SETUID and
// CAP_SETGID in its effective set — root normally does, but a container
// may drop them, and a non-root process may have been granted them.
func canSwitchUser() error {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return err
	}
	defer f.Close() //nolint:errcheck // read only
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "CapEff:")
		if !ok {
			continue
		}
		caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			return err
		}
		if caps&(1<<capSetuid) == 0 || caps&(1<<capSetgid) == 0 {
			return errors.New("the process lacks CAP_SETUID or CAP_SETGID")
		}
		return nil
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errors.New("/proc/self/status has no CapEff line")
}
