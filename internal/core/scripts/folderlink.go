package scripts

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalLink is a write of a symbolic link that leads outside the
// folder, or to nothing in it: the link is left as it is.
const RefusalLink qlerror.Reason = "script_link_not_followed"

// maxHops bounds the links a path is followed through, as the kernel's
// own limit does: more is a loop.
const maxHops = 40

// target is the file a write of p changes: p itself, or, when p is a
// symbolic link, the file inside the folder it leads to, so that a save
// of a link writes its file and leaves it a link. A link leading out of
// the folder or to nothing in it is refused (RefusalLink), naming it; a
// p that is not there is the file system's error.
func target(r *os.Root, p string) (string, error) {
	st, err := r.Lstat(p)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return p, err
	}
	to, err := r.Readlink(p)
	if err != nil {
		return "", refusal(p, err)
	}
	real, why := follow(r, p)
	if why != "" {
		return "", qlerror.New(qlerror.FailedPrecondition, "script %s is a symbolic link to %s, which %s; nothing was written and the link is as it was: "+
			"point the link to a file inside the scripts folder, or delete the link and create the file in its place", p, to, why).
			Because(RefusalLink, "path", p, "target", to, "why", why)
	}
	return real, nil
}

// follow is p with every link in it followed, as the kernel follows
// them, to a path of the folder that holds none; why says what stops
// it: a link leading outside the folder, to nothing, or in a loop.
func follow(r *os.Root, p string) (real, why string) {
	var done []string
	todo := strings.Split(p, "/")
	for hops := 0; len(todo) > 0; {
		part := todo[0]
		todo = todo[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", "leads outside the scripts folder"
			}
			done = done[:len(done)-1]
			continue
		}
		cur := strings.Join(append(done, part), "/")
		st, err := r.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", "leads to nothing in the scripts folder"
		case err != nil:
			return "", "cannot be followed (" + err.Error() + ")"
		case st.Mode()&fs.ModeSymlink == 0:
			done = append(done, part)
			continue
		}
		if hops++; hops > maxHops {
			return "", "leads through more than 40 links (a loop?)"
		}
		to, err := r.Readlink(cur)
		if err != nil {
			return "", "cannot be followed (" + err.Error() + ")"
		}
		if path.IsAbs(to) {
			// As the folder's reads take it (os.Root): an absolute
			// link leads outside, wherever it points.
			return "", "leads outside the scripts folder (an absolute link)"
		}
		todo = append(strings.Split(to, "/"), todo...)
	}
	return strings.Join(done, "/"), ""
}
