package scripts

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Folder is the scripts folder at Dir. Every operation opens Dir as an
// os.Root, so a path naming `..` or a symbolic link leading outside it is
// refused by the file system itself, whatever Clean let through.
//
// A change (a save, a write, a rename, a delete) holds the folder's lock
// (lock) from its check to its write, against every other change of the
// folder, of this process or another.
type Folder struct {
	Dir string
	// wait is how long a change waits for another's lock; lockWait when
	// zero.
	wait time.Duration
}

// Entry is one entry of a folder's listing.
type Entry struct {
	Name, Path string
	Dir        bool
	Size       int64
	ModMs      int64
	// Link: a symbolic link, to Target (as the link says it); Outside:
	// one leading outside the folder (or nowhere), which no page follows.
	Link, Outside bool
	Target        string
}

// File is a file as read: its content when Text and at most the limit
// Read was given, else none (Large or binary).
type File struct {
	Path    string
	Size    int64
	ModMs   int64
	Mode    fs.FileMode
	Content []byte
	Text    bool
	// Large: over the limit, so neither shown nor edited here.
	Large  bool
	Digest string
}

// Ensure creates the folder (and its parents) when missing, DirMode
// whatever the umask; a folder there already keeps the mode it has.
func (f *Folder) Ensure() error {
	if _, err := os.Stat(f.Dir); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(f.Dir, DirMode); err != nil {
		return err
	}
	return os.Chmod(f.Dir, DirMode)
}

func (f *Folder) open() (*os.Root, error) {
	r, err := os.OpenRoot(f.Dir)
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "the scripts folder %s cannot be opened; check that it exists and that the server's account may read it", f.Dir)
	}
	return r, nil
}

// with runs do on the folder's root, p cleaned.
func with[T any](f *Folder, p string, do func(r *os.Root, p string) (T, error)) (T, error) {
	var zero T
	p, err := Clean(p)
	if err != nil {
		return zero, err
	}
	r, err := f.open()
	if err != nil {
		return zero, err
	}
	defer r.Close() //nolint:errcheck // only read through
	return do(r, p)
}

// name is p as an os.Root names it: "." for the folder itself.
func name(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// List lists the folder at p whole: folders first, then files, each by
// name.
func (f *Folder) List(p string) ([]Entry, error) {
	page, err := f.ListPage(p, "", 0)
	return page.Entries, err
}

// Read reads the file at p, its content when it is text of at most max
// bytes.
func (f *Folder) Read(p string, max int64) (File, error) {
	return with(f, p, func(r *os.Root, p string) (File, error) {
		return read(r, p, max)
	})
}

func read(r *os.Root, p string, max int64) (File, error) {
	if p == "" {
		return File{}, isFolder(p)
	}
	fh, err := r.Open(p)
	if err != nil {
		return File{}, refusal(p, err)
	}
	defer fh.Close() //nolint:errcheck // read only
	st, err := fh.Stat()
	if err != nil {
		return File{}, refusal(p, err)
	}
	if st.IsDir() {
		return File{}, isFolder(p)
	}
	out := File{Path: p, Size: st.Size(), ModMs: st.ModTime().UnixMilli(), Mode: st.Mode().Perm()}
	if st.Size() > max {
		out.Large = true
		return out, nil
	}
	b, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil {
		return File{}, refusal(p, err)
	}
	if int64(len(b)) > max {
		out.Large = true
		return out, nil
	}
	out.Size, out.Digest, out.Text = int64(len(b)), Digest(b), IsText(b)
	if out.Text {
		out.Content = b
	}
	return out, nil
}

// Open opens the file at p for a download, and says its size.
func (f *Folder) Open(p string) (io.ReadCloser, int64, error) {
	type opened struct {
		rc   io.ReadCloser
		size int64
	}
	o, err := with(f, p, func(r *os.Root, p string) (opened, error) {
		if p == "" {
			return opened{}, isFolder(p)
		}
		fh, err := r.Open(p)
		if err != nil {
			return opened{}, refusal(p, err)
		}
		st, err := fh.Stat()
		if err == nil && st.IsDir() {
			err = isFolder(p)
		}
		if err != nil {
			_ = fh.Close()
			return opened{}, err
		}
		return opened{fh, st.Size()}, nil
	})
	return o.rc, o.size, err
}

// Saved is what a write left: the file's path, size and digest.
type Saved struct {
	Path   string
	Size   int64
	Digest string
	// Created: no file was there before.
	Created bool
	// Through is the file a symbolic link at Path led to, which was
	// written instead of the link; "" when Path is no link.
	Through string
}

// Save writes content to the file at p when the file's digest is still
// loaded, the one the editor read it with; a file changed since is
// refused (RefusalChanged) with its current content, and nothing is
// written. The new content replaces the file whole (a command starting
// meanwhile reads the old or the new, never half of one), keeping its
// mode. A symbolic link is saved through: the file it leads to is
// written, the link left a link (target).
func (f *Folder) Save(p string, content []byte, loaded string) (Saved, error) {
	return changing(f, p, func(r *os.Root, p string) (Saved, error) {
		if err := fits(p, int64(len(content)), MaxEdit); err != nil {
			return Saved{}, err
		}
		to, err := target(r, p)
		if err != nil {
			return Saved{}, refusal(p, err)
		}
		cur, err := read(r, to, MaxEdit)
		if err != nil {
			return Saved{}, err
		}
		if cur.Digest != loaded {
			cur.Path = p
			return Saved{}, &ChangedError{Current: cur, err: qlerror.New(qlerror.Conflict, "script %s changed since the editor loaded it; nothing was saved: "+
				"compare its current content with yours, then save again from the current one", p).Because(RefusalChanged, "path", p)}
		}
		return through(p, to)(write(r, to, content, cur.Mode, false))
	})
}

// through makes a write of to the save of p: named p, and, when p is a
// link, saying the file it led to.
func through(p, to string) func(Saved, error) (Saved, error) {
	return func(s Saved, err error) (Saved, error) {
		if err != nil {
			return s, err
		}
		s.Path = p
		if to != p {
			s.Through = to
		}
		return s, nil
	}
}

// ChangedError is the refusal of a save of a file changed since it was
// loaded, with the file as it is now.
type ChangedError struct {
	Current File
	err     *qlerror.Error
}

func (e *ChangedError) Error() string { return e.err.Error() }
func (e *ChangedError) Unwrap() error { return e.err }

// Put writes content to the file at p, a new one unless replace; max
// bounds it. A symbolic link replaced is written through, as Save does.
func (f *Folder) Put(p string, content io.Reader, replace bool, max int) (Saved, error) {
	b, err := io.ReadAll(io.LimitReader(content, int64(max)+1))
	if err != nil {
		return Saved{}, err
	}
	return changing(f, p, func(r *os.Root, p string) (Saved, error) {
		if p == "" {
			return Saved{}, isFolder(p)
		}
		if err := fits(p, int64(len(b)), int64(max)); err != nil {
			return Saved{}, err
		}
		to := p
		if replace {
			if to, err = target(r, p); errors.Is(err, fs.ErrNotExist) {
				to = p
			} else if err != nil {
				return Saved{}, refusal(p, err)
			}
		}
		mode, existed := FileMode, false
		switch st, err := r.Stat(to); {
		case err == nil && st.IsDir():
			return Saved{}, isFolder(p)
		case err == nil && !replace:
			return Saved{}, refusal(p, fs.ErrExist)
		case err == nil:
			mode, existed = st.Mode().Perm(), true
		case !errors.Is(err, fs.ErrNotExist):
			return Saved{}, refusal(p, err)
		}
		saved, err := through(p, to)(write(r, to, b, mode, !replace))
		saved.Created = err == nil && !existed
		return saved, err
	})
}

// write replaces the file at p by content through a new file beside it
// renamed over it; exclusive refuses a file there already.
func write(r *os.Root, p string, content []byte, mode fs.FileMode, exclusive bool) (Saved, error) {
	tmp := Join(Parent(p), ".ql-save-"+ids.New())
	out, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrNotExist) {
		return Saved{}, noFolder(p)
	}
	if err != nil {
		return Saved{}, refusal(Parent(p), err)
	}
	// The mode whatever the umask: the commands' accounts read it.
	err = out.Chmod(mode)
	if err == nil {
		_, err = io.Copy(out, bytes.NewReader(content))
	}
	if serr := out.Sync(); err == nil {
		err = serr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && exclusive {
		// Looked at again once the text is written: a name taken
		// meanwhile (by a process that does not take the folder's lock,
		// an editor on the host) is refused rather than replaced.
		if _, lerr := r.Lstat(p); lerr == nil {
			err = fs.ErrExist
		}
	}
	if err == nil {
		err = r.Rename(tmp, p)
	}
	if err != nil {
		_ = r.Remove(tmp)
		return Saved{}, refusal(p, err)
	}
	return Saved{Path: p, Size: int64(len(content)), Digest: Digest(content)}, nil
}

// fits refuses content over max bytes.
func fits(p string, n, max int64) error {
	if n > max {
		return TooLarge(p, n, max)
	}
	return nil
}

// TooLarge refuses the file at p of size bytes, over max.
func TooLarge(p string, size, max int64) error {
	return qlerror.New(qlerror.Invalid, "script %s has %d bytes, over the limit of %d here; keep it smaller, or copy it into the scripts folder on the host", p, size, max).
		Because(RefusalTooLarge, "path", p, "size", size, "max", max)
}

// NotText refuses the editor the file at p, which is not text.
func NotText(p string) error {
	return qlerror.New(qlerror.Invalid, "script %s is not text (not UTF-8, or it holds NUL bytes), so it cannot be edited here; download it, or replace it by an upload", p).
		Because(RefusalNotText, "path", p)
}

// NoFiles refuses an upload that carries no file.
func NoFiles() error {
	return qlerror.New(qlerror.Invalid, "the upload carried no file; choose one or more files, then upload").Because(RefusalNoFiles)
}

// Absent refuses p when something is there already.
func (f *Folder) Absent(p string) error {
	_, err := with(f, p, func(r *os.Root, p string) (struct{}, error) {
		switch _, err := r.Lstat(p); {
		case err == nil:
			return struct{}{}, refusal(p, fs.ErrExist)
		case errors.Is(err, fs.ErrNotExist):
			return struct{}{}, nil
		default:
			return struct{}{}, refusal(p, err)
		}
	})
	return err
}

// Mkdir creates the folder at p (its parent must exist).
func (f *Folder) Mkdir(p string) error {
	_, err := with(f, p, func(r *os.Root, p string) (struct{}, error) {
		if p == "" {
			return struct{}{}, refusal(p, fs.ErrExist)
		}
		if err := r.Mkdir(p, DirMode); err != nil {
			return struct{}{}, refusal(p, err)
		}
		return struct{}{}, refusal(p, r.Chmod(p, DirMode))
	})
	return err
}

// Rename moves the file or folder at from to to, which must not exist.
func (f *Folder) Rename(from, to string) error {
	to, err := Clean(to)
	if err != nil {
		return err
	}
	_, err = changing(f, from, func(r *os.Root, from string) (struct{}, error) {
		if from == "" || to == "" {
			return struct{}{}, root()
		}
		if _, err := r.Lstat(from); err != nil {
			return struct{}{}, refusal(from, err)
		}
		if _, err := r.Lstat(to); err == nil {
			return struct{}{}, refusal(to, fs.ErrExist)
		}
		if strings.HasPrefix(to+"/", from+"/") {
			return struct{}{}, qlerror.New(qlerror.Invalid, "%s cannot move into itself (%s); choose a place outside it", from, to).
				Because(RefusalPathInvalid, "path", to, "why", "is inside "+from)
		}
		if err := r.Rename(from, to); err != nil {
			return struct{}{}, refusal(Parent(to), err)
		}
		return struct{}{}, nil
	})
	return err
}

// Removed is what a delete took: a file's size and digest, or how many
// entries a folder held.
type Removed struct {
	Dir     bool
	Size    int64
	Digest  string
	Entries int
}

// Remove deletes the file or link at p, or the folder at p: an empty one,
// or with all it holds when whole.
func (f *Folder) Remove(p string, whole bool) (Removed, error) {
	return changing(f, p, func(r *os.Root, p string) (Removed, error) {
		if p == "" {
			return Removed{}, root()
		}
		st, err := r.Lstat(p)
		if err != nil {
			return Removed{}, refusal(p, err)
		}
		if !st.IsDir() {
			var out Removed
			if st.Mode().IsRegular() {
				if cur, err := read(r, p, MaxUpload); err == nil {
					out.Size, out.Digest = cur.Size, cur.Digest
				}
			}
			return out, refusal(p, r.Remove(p))
		}
		n, err := count(r, p)
		if err != nil {
			return Removed{}, refusal(p, err)
		}
		if n > 0 && !whole {
			return Removed{}, qlerror.New(qlerror.FailedPrecondition, "folder %s holds %s; nothing was deleted: confirm the deletion of the folder with all it holds (the console's delete page, or scripts rm --recursive), or empty it first", p, plural.Count(n, "entry", "entries")).
				Because(RefusalFolderNotEmpty, "path", p, "entries", n)
		}
		return Removed{Dir: true, Entries: n}, refusal(p, r.RemoveAll(p))
	})
}

// Count is how many entries the folder at p holds, all the way down.
func (f *Folder) Count(p string) (int, error) {
	return with(f, p, func(r *os.Root, p string) (int, error) {
		n, err := count(r, p)
		return n, refusal(p, err)
	})
}

// count walks the folder at p without following links.
func count(r *os.Root, p string) (int, error) {
	n := 0
	err := fs.WalkDir(r.FS(), name(p), func(_ string, _ fs.DirEntry, err error) error {
		n++
		return err
	})
	return n - 1, err
}

// Stat is the entry at p, a link's own (what a rename moves and a delete
// removes), never followed.
func (f *Folder) Stat(p string) (Entry, error) {
	return with(f, p, func(r *os.Root, p string) (Entry, error) {
		st, err := r.Lstat(name(p))
		if err != nil {
			return Entry{}, refusal(p, err)
		}
		e := Entry{Name: st.Name(), Path: p, Dir: st.IsDir(), Size: st.Size(), ModMs: st.ModTime().UnixMilli(), Link: st.Mode()&fs.ModeSymlink != 0}
		if e.Link {
			e.Target, _ = r.Readlink(name(p))
		}
		return e, nil
	})
}

func isFolder(p string) error {
	shown := p
	if shown == "" {
		shown = "."
	}
	return qlerror.New(qlerror.Invalid, "%s is a folder, not a file; open it from the listing", shown).Because(RefusalIsFolder, "path", shown)
}

func notFolder(p string) error {
	return qlerror.New(qlerror.Invalid, "%s is a file, not a folder; open it as a file", p).Because(RefusalNotFolder, "path", p)
}

func root() error {
	return qlerror.New(qlerror.Invalid, "the scripts folder itself cannot be renamed or deleted here; name a file or folder inside it").Because(RefusalRoot)
}

// Within runs do with the folder at p as a file system confined to the
// scripts folder (a link leading outside it is not followed there) and
// with its absolute path on this host, which is where commands started
// in it find its files.
func (f *Folder) Within(p string, do func(fsys fs.FS, dir string) error) error {
	_, err := with(f, p, func(r *os.Root, p string) (struct{}, error) {
		st, err := r.Stat(name(p))
		if err != nil {
			return struct{}{}, refusal(p, err)
		}
		if !st.IsDir() {
			return struct{}{}, notFolder(p)
		}
		sub, err := fs.Sub(r.FS(), name(p))
		if err != nil {
			return struct{}{}, refusal(p, err)
		}
		return struct{}{}, do(sub, filepath.Join(f.Dir, filepath.FromSlash(p)))
	})
	return err
}

// noFolder refuses a write of p whose folder is not in the scripts folder:
// a file is written only into a folder that is there.
func noFolder(p string) error {
	dir := Parent(p)
	return qlerror.New(qlerror.NotFound, "folder %s is not in the scripts folder, so %s cannot be written there: make the folder first "+
		"(New folder on the Scripts page, or mkdir in the scripts folder), then write the file", dir, p).Because(RefusalMissing, "path", dir)
}
