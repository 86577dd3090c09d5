package catalog

import "context"

// Titles are display titles of a project's tasks and triggers, keyed by
// name. A title belongs to the object, not to its revisions: it is in no
// content digest, and saving one publishes no revision, so a title-only
// change never resets a trigger's schedule, never writes to the occurrence
// ledger and never re-pins a trigger to its task. Read, an object without
// a title is left out; saved, "" clears one.
type Titles struct {
	Tasks    map[string]string
	Triggers map[string]string
}

// Empty reports whether t holds no title.
func (t Titles) Empty() bool { return len(t.Tasks) == 0 && len(t.Triggers) == 0 }

// TitleReader reads the titles of a project's tasks and triggers.
type TitleReader interface {
	// TitlesOf returns the titles of the project's tasks and triggers
	// that have one.
	TitlesOf(ctx context.Context, projectID string) (Titles, error)
}

// TitleWriter is a publishing transaction that saves titles.
type TitleWriter interface {
	// TitlesSave sets the title of each named task and trigger of the
	// project ("" clears it); NotFound when one does not exist.
	TitlesSave(ctx context.Context, projectID string, t Titles) error
}
