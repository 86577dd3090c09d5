package sqlitestore

import "regexp"

// IndexBuild is a pending migration step that builds an index over every
// Run, said before it starts: it reads the whole runs table inside the
// migration's one transaction, and nothing else shows that the start is
// busy rather than hung (two indexes over 890,000 Runs took 11 s on a
// fast disk).
type IndexBuild struct {
	Migration string
	Index     string
	Runs      int64
}

// sayIndexBuildFrom is the number of Runs from which an index build is
// said: below it the build takes under about a second.
const sayIndexBuildFrom = 100_000

// runsIndex finds the indexes a migration creates over runs.
var runsIndex = regexp.MustCompile(`(?m)^CREATE INDEX (\w+) ON runs \(`)

// runsIndexes are the names of the indexes over runs the migration's SQL
// creates, in order.
func runsIndexes(sql string) []string {
	var out []string
	for _, m := range runsIndex.FindAllStringSubmatch(sql, -1) {
		out = append(out, m[1])
	}
	return out
}
