package console

import "github.com/qinglong/qinglong/internal/core/cmdname"

// named is msg as this console's binary names its commands (cmdname.As):
// the catalogues, and the errors built below the console (a store's
// refusal names `ql triggers enable NAME`), are shared by every binary and
// name ql.
func (c *Console) named(msg string) string { return cmdname.As(c.cfg.Binary, msg) }

// errorText is err's message in language l (errorText), its commands
// named with this console's binary.
func (c *Console) errorText(l string, err error) string { return c.named(errorText(l, err)) }

// formError is err's message in language l as a form says it
// (formErrorText), its commands named with this console's binary.
func (c *Console) formError(l string, err error) string { return c.named(formErrorText(l, err)) }

// edge reports whether the edge binary serves this console: it serves no
// cluster, so no page names clusters or workers to its user.
func (c *Console) edge() bool { return c.cfg.Binary != "ql" }
