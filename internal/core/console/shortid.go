package console

// shortID is how a table too narrow for a whole id shows one: its first
// eight characters (a UUIDv7's: its time, shared by ids made within a
// minute of one another) and its last four (random), the whole id in the
// element's title and link.
func shortID(id string) string {
	if len(id) <= 14 {
		return id
	}
	return id[:8] + "…" + id[len(id)-4:]
}
