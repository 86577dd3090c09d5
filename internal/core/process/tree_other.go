//go:build !linux

package process

// becomeSubreaper has no portable equivalent: descendants that leave the
// process group are not followed.
func becomeSubreaper() {}

// seed has nothing to remember: only the group is followed.
func (t *tree) seed() {}

// live reports the process group while any of it runs.
func (t *tree) live() []int {
	if groupRunning(t.main) {
		return []int{-t.main}
	}
	return nil
}
