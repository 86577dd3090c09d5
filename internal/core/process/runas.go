package process

import (
	"errors"
	"os"
	"os/user"
	"strconv"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// CheckRunAs reports, before anything runs, whether this server can start
// commands as r: the account exists and the server may switch to it. The
// server checks its default account with it at start.
func CheckRunAs(r task.RunAs) error {
	if err := r.Validate("--run-as"); err != nil {
		return err
	}
	_, err := resolveAccount(r)
	return err
}

// account is who a command runs as. cred is nil when it runs as this
// server: nothing to switch, and no privilege needed.
type account struct {
	cred *syscall.Credential
	// env names the account to the command (HOME, USER, LOGNAME) when it
	// is not the server's own.
	env []string
}

// resolveAccount resolves r (names or numeric ids, as /etc/passwd and
// /etc/group or NSS know them here). A zero r, or one naming this
// server's own identity, is the server's account.
func resolveAccount(r task.RunAs) (account, error) {
	if r.IsZero() {
		return account{}, nil
	}
	cred, u, err := credential(r)
	if err != nil || cred == nil {
		return account{}, err
	}
	return account{cred: cred, env: []string{"HOME=" + u.HomeDir, "USER=" + u.Username, "LOGNAME=" + u.Username}}, nil
}

func credential(r task.RunAs) (*syscall.Credential, *user.User, error) {
	u, err := lookupUser(r.User)
	if err != nil {
		return nil, nil, err
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, nil, qlerror.New(qlerror.FailedPrecondition, "runAs user %q: uid %q is not numeric; only POSIX accounts are supported", r.User, u.Uid)
	}
	gidText := u.Gid
	var groups []string
	if r.Group != "" {
		g, err := lookupGroup(r.Group)
		if err != nil {
			return nil, nil, err
		}
		gidText, groups = g.Gid, []string{g.Gid}
	} else if groups, err = u.GroupIds(); err != nil {
		// Without the supplementary groups the command still runs with
		// the user's primary group.
		groups = []string{u.Gid}
	}
	gid, err := strconv.ParseUint(gidText, 10, 32)
	if err != nil {
		return nil, nil, qlerror.New(qlerror.FailedPrecondition, "runAs %s: gid %q is not numeric; only POSIX groups are supported", r, gidText)
	}
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	for _, g := range groups {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil {
			cred.Groups = append(cred.Groups, uint32(n))
		}
	}
	if int(cred.Uid) == os.Geteuid() && int(cred.Gid) == os.Getegid() {
		return nil, u, nil
	}
	if err := canSwitchUser(); err != nil {
		return nil, nil, qlerror.Wrap(qlerror.FailedPrecondition, err,
			"running commands as %s needs a server started as root (or with CAP_SETUID and CAP_SETGID); this server runs as uid %d. Start it as root with --run-as, or remove runAs and run the server itself as the dedicated service account",
			r, os.Geteuid())
	}
	return cred, u, nil
}

func lookupUser(name string) (*user.User, error) {
	var u *user.User
	var err error
	if _, numErr := strconv.ParseUint(name, 10, 32); numErr == nil {
		u, err = user.LookupId(name)
	} else {
		u, err = user.Lookup(name)
	}
	var unknownName user.UnknownUserError
	var unknownID user.UnknownUserIdError
	if errors.As(err, &unknownName) || errors.As(err, &unknownID) {
		return nil, qlerror.New(qlerror.NotFound, "runAs user %q does not exist on this machine; create the account or change runAs", name)
	}
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "look up runAs user %q", name)
	}
	return u, nil
}

func lookupGroup(name string) (*user.Group, error) {
	var g *user.Group
	var err error
	if _, numErr := strconv.ParseUint(name, 10, 32); numErr == nil {
		g, err = user.LookupGroupId(name)
	} else {
		g, err = user.LookupGroup(name)
	}
	var unknownName user.UnknownGroupError
	var unknownID user.UnknownGroupIdError
	if errors.As(err, &unknownName) || errors.As(err, &unknownID) {
		return nil, qlerror.New(qlerror.NotFound, "runAs group %q does not exist on this machine; create the group or change runAs", name)
	}
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "look up runAs group %q", name)
	}
	return g, nil
}
