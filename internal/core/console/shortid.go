package console

// idShown is how a table too narrow for a whole id shows one: its first
// eight characters (a UUIDv7's: its time, shared by ids made within a
// minute of one another) and its last four (random) in sight, with an
// ellipsis between them the stylesheet draws (a generated character, never
// copied), and the middle kept in the page but out of sight, so that
// copying the id copies all of it. The element's title and link hold the
// whole id too.
type idShown struct{ Head, Mid, Tail string }

// shortID splits id as a table shows it; an id of 14 characters or fewer
// is shown whole, in Head.
func shortID(id string) idShown {
	if len(id) <= 14 {
		return idShown{Head: id}
	}
	return idShown{Head: id[:8], Mid: id[8 : len(id)-4], Tail: id[len(id)-4:]}
}
