package cli

// returnsQueued is what `triggers run` and `runs rerun` say of waiting:
// neither waits for the Run it queues, and the answer (-o json's waits)
// says why no worker will take it, which a script otherwise cannot know
// until it follows the Run. run names the Run ("Run", "new Run").
func returnsQueued(opts Options, run string) string {
	return `The command returns once the ` + run + ` is queued: it never waits for it to start or end
(--follow does).` + opts.clusterOnly(` When no worker can take it now (none connected, every one draining, none
with the task's labels), the note says why and -o json adds waits, as the server answered it over
--api-url: its reason (no_worker, workers_draining or no_matching_worker), labels, workers,
workerLabels and message, as `+"`"+opts.Binary+` runs show`+"`"+`'s waiting; waits is absent when a worker can take it.`)
}
