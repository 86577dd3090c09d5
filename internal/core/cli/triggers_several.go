package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// severalTriggersHelp is what the help of a command taking several
// triggers says of them: as the console's batch acts on the triggers
// selected, each is done on its own, and one refused stops none of the
// others.
func severalTriggersHelp(verb string) string {
	return `Given several NAMEs, each is ` + verb + `d on its own, in the order given, as the console's batch does:
one that does not exist or is refused is said on stderr with its name, and the others are still
` + verb + `d; the command then exits as the first refused one would (1 for a name no trigger has).
With -o json it prints one document, {"triggers": [...]}, the answer of each trigger ` + verb + `d in
the order given (one NAME prints its answer alone).`
}

// eachTrigger runs one for every trigger name given, in order: one
// refused is said on stderr with its name and stops none of the others.
// It returns, when any was refused, an error counting them with the
// first refusal's code, so the command exits as that one alone would.
func eachTrigger(cmd *cobra.Command, binary, verb string, names []string, one func(name string) error) error {
	var first error
	refused := 0
	for _, name := range names {
		if err := one(name); err != nil {
			if cmd.Context().Err() != nil {
				// Interrupted: the rest are not tried.
				return err
			}
			refused++
			if first == nil {
				first = err
			}
			fmt.Fprintf(textWriter{cmd.ErrOrStderr()}, "%s: trigger %s: not %sd: %s\n", binary, name, verb, userText(asBinary(cmd.Root(), binary, err.Error())))
		}
	}
	if first == nil {
		return nil
	}
	return qlerror.New(qlerror.CodeOf(first), "%d of the %d triggers given %s not %sd (each said above); the others were",
		refused, len(names), map[bool]string{true: "was", false: "were"}[refused == 1], verb)
}
