package cli

import (
	"regexp"
	"strings"

	"github.com/spf13/cobra"
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

// valueKinds says what a flag of each pflag type reads.
var valueKinds = map[string]string{
	"int": "a whole number", "int64": "a whole number", "int32": "a whole number",
	"uint": "a whole number", "uint64": "a whole number", "uint32": "a whole number",
	"bool": "true or false", "duration": "a duration such as 30s or 5m",
}
