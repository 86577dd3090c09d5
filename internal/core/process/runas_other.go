//go:build !linux

package process

import (
	"errors"
	"os"
)

// canSwitchUser: without Linux capabilities, only root may switch.
func canSwitchUser() error {
	if os.Geteuid() != 0 {
		return errors.New("the process is not root")
	}
	return nil
}
