package cli

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/validate"
)

// invalidFlagValue is pflag's refusal of a value its flag's type cannot
// read: `invalid argument "abc" for "-n, --count" flag: strconv.ParseInt:
// parsing "abc": invalid syntax`.
var invalidFlagValue = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-(\w), )?--([\w-]+)" flag: `)

// flagError words err, a refusal of c's flags, as a usage error. A value
// its flag's type cannot read is said in the user's terms, the flag as
// written and what it takes (its help line), instead of the parser's
// (strconv.ParseInt: parsing "abc": invalid syntax).
func flagError(c *cobra.Command, err error) error {
	if strings.HasPrefix(err.Error(), "unknown shorthand flag: 'v' in -") {
		return Usagef("%s", notVersionHere(c, err))
	}
	m := invalidFlagValue.FindStringSubmatch(err.Error())
	if m == nil {
		return &UsageError{Err: err}
	}
	fl := c.Flags().Lookup(m[3])
	if fl == nil {
		return &UsageError{Err: err}
	}
	kind, ok := valueKinds[fl.Value.Type()]
	if !ok {
		return &UsageError{Err: err}
	}
	// pflag names both spellings whichever was written.
	name := "--" + fl.Name
	if fl.Shorthand != "" {
		name = "-" + fl.Shorthand + "/--" + fl.Name
	}
	return Usagef("%s %q is not %s: it takes %s", name, m[1], kind, strings.TrimSuffix(fl.Usage, "."))
}

// notVersionHere words the refusal of -v after a command: -v is the
// root's --version only, and no command's shorthand, so that one letter
// never means two things by where it stands; a command that has --verbose
// (apply) names it, since that is what its -v was meant for.
func notVersionHere(c *cobra.Command, err error) string {
	root := c.Root().Name()
	if c.Flags().Lookup("verbose") != nil {
		return fmt.Sprintf("%s: -v is not short for --verbose here; give --verbose (`%s -v`, before any command, prints the version)", err, root)
	}
	return fmt.Sprintf("%s: -v is no flag of %s; `%s -v` (before any command) or `%s version` prints the version", err, c.CommandPath(), root, root)
}

// valueKinds says what a flag of each pflag type reads.
var valueKinds = map[string]string{
	"int": "a whole number", "int64": "a whole number", "int32": "a whole number",
	"uint": "a whole number", "uint64": "a whole number", "uint32": "a whole number",
	"bool": "true or false", "duration": "a duration (" + validate.DurationForms + ")",
}
