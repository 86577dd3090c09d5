package scripts

import (
	"io/fs"
	"os"
	"slices"
	"strings"
)

// PageEntries is how many entries a page of a folder's listing holds: a
// folder of tens of thousands (a node_modules/.pnpm) is read a page at a
// time, each entry's details looked up for that page's entries only.
const PageEntries = 500

// Page is a page of a folder's listing.
type Page struct {
	Entries []Entry
	// Total is how many entries the folder holds.
	Total int
	// Next is the cursor of the page after this one ("" for the last):
	// the last entry's name, with a "/" after a folder's.
	Next string
}

// listed is an entry as the folder's names give it, before its details
// are looked up: enough to order it.
type listed struct {
	name string
	de   fs.DirEntry
	// dir orders the entry with the folders: a folder, or a link to one
	// inside the folder, which followed holds info.
	dir      bool
	followed fs.FileInfo
	outside  bool
}

// cursor is the entry's place in the order as Page.Next names it.
func (l listed) cursor() string {
	if l.dir {
		return l.name + "/"
	}
	return l.name
}

// compareListed is the listing's order: folders first, then files, each
// by name.
func compareListed(a, b listed) int {
	if a.dir != b.dir {
		if a.dir {
			return -1
		}
		return 1
	}
	return strings.Compare(a.name, b.name)
}

// ListPage lists the folder at p in List's order, up to n entries (every
// one when n <= 0) after the cursor after (a Page.Next; "" from the
// first). Only the names are read for the whole folder, and a link's
// target to order it; the size and time of an entry are looked up for the
// entries of the page alone.
func (f *Folder) ListPage(p, after string, n int) (Page, error) {
	return with(f, p, func(r *os.Root, p string) (Page, error) {
		d, err := r.Open(name(p))
		if err != nil {
			return Page{}, refusal(p, err)
		}
		defer d.Close() //nolint:errcheck // read only
		if st, err := d.Stat(); err == nil && !st.IsDir() {
			return Page{}, notFolder(p)
		}
		des, err := d.ReadDir(-1)
		if err != nil {
			return Page{}, refusal(p, err)
		}
		all := make([]listed, 0, len(des))
		for _, de := range des {
			l := listed{name: de.Name(), de: de, dir: de.IsDir()}
			if de.Type()&fs.ModeSymlink != 0 {
				// Followed inside the folder only: a link leading out
				// of it is listed, never read.
				info, err := r.Stat(Join(p, de.Name()))
				l.followed, l.outside, l.dir = info, err != nil, err == nil && info.IsDir()
			}
			all = append(all, l)
		}
		slices.SortFunc(all, compareListed)
		from := 0
		if after != "" {
			at := listed{name: strings.TrimSuffix(after, "/"), dir: strings.HasSuffix(after, "/")}
			from, _ = slices.BinarySearchFunc(all, at, compareListed)
			if from < len(all) && compareListed(all[from], at) == 0 {
				from++
			}
		}
		shown := all[from:]
		if n > 0 && len(shown) > n {
			shown = shown[:n]
		}
		page := Page{Total: len(all), Entries: make([]Entry, 0, len(shown))}
		for _, l := range shown {
			if e, ok := l.entry(p); ok {
				if e.Link {
					e.Target, _ = r.Readlink(e.Path)
				}
				page.Entries = append(page.Entries, e)
			}
		}
		if len(shown) > 0 && from+len(shown) < len(all) {
			page.Next = shown[len(shown)-1].cursor()
		}
		return page, nil
	})
}

// entry is l's row in the folder at p; false for an entry gone since its
// name was read.
func (l listed) entry(p string) (Entry, bool) {
	e := Entry{Name: l.name, Path: Join(p, l.name)}
	info, err := l.de.Info()
	if err != nil {
		return e, false
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		e.Link, e.Outside = true, l.outside
		if l.outside {
			return e, true
		}
		info = l.followed
	}
	e.Dir, e.Size, e.ModMs = info.IsDir(), info.Size(), info.ModTime().UnixMilli()
	return e, true
}
