package cron

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/qinglong/qinglong/internal/core/validate"
)

// maxZoneSuggestions bounds how many zone names a refusal suggests.
const maxZoneSuggestions = 3

// nearestZones are the zone names closest to name by edit distance, when
// close enough to be a slip (a letter or two: Europe/Londn), the closest
// first and at most maxZoneSuggestions of them; none when none is. A
// letter-case mistake is caseOf's, found whatever the host holds; these
// come from the host's zone database, the one names are listed in (the
// embedded copy lists none), so a host without one suggests nothing.
func nearestZones(name string) []string {
	lower := strings.ToLower(name)
	limit := max(1, len([]rune(lower))/6)
	best := limit + 1
	var near []string
	for _, z := range zoneNames() {
		d := validate.EditDistance(lower, strings.ToLower(z))
		switch {
		case d < best:
			best, near = d, []string{z}
		case d == best:
			near = append(near, z)
		}
	}
	if len(near) > maxZoneSuggestions {
		near = near[:maxZoneSuggestions]
	}
	return near
}

// zoneDirs are where the host keeps its zone database, as time.LoadLocation
// looks for it.
var zoneDirs = []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ", "/etc/zoneinfo"}

// zoneNames lists the host's zone names once, sorted: every file of the
// first zone directory that has any, under a name that starts with a
// capital (the database's tables and its posix/ and right/ copies are
// left out, as they are not names a trigger is given).
var zoneNames = sync.OnceValue(func() []string {
	dirs := zoneDirs
	if d := os.Getenv("ZONEINFO"); d != "" {
		dirs = append([]string{d}, dirs...)
	}
	for _, dir := range dirs {
		var names []string
		_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || path == dir {
				return nil
			}
			rel, _ := filepath.Rel(dir, path)
			if first := []rune(e.Name())[0]; !unicode.IsUpper(first) || rel == "posix" || rel == "right" || strings.Contains(e.Name(), ".") {
				if e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !e.IsDir() {
				names = append(names, filepath.ToSlash(rel))
			}
			return nil
		})
		if len(names) > 0 {
			slices.Sort(names)
			return names
		}
	}
	return nil
})
