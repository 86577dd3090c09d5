package run

// attemptWords are the attempt states in English words. An attempt is
// stored claimed from the moment its Run is queued, before anything takes
// it, so its words say that it waits to be started: the bare "claimed"
// reads as taken.
var attemptWords = map[AttemptState]string{
	AttemptClaimed: "waiting to start", AttemptStarting: "starting", AttemptRunning: "running",
	AttemptSucceeded: "succeeded", AttemptFailed: "failed", AttemptTimedOut: "timed out",
	AttemptCancelled: "cancelled", AttemptLost: "lost",
}

// grantedWords are the words of a claimed attempt of a Run dispatching: a
// cluster has granted it to a worker that has not started it yet.
const grantedWords = "granted to a worker, not started yet"

// AttemptStateText is the state a of an attempt of a Run in state rs in
// English words, as the API's stateText and `ql runs show` give it; a
// state with no words (a newer server's) is itself. The stored state stays
// what it is for scripts.
func AttemptStateText(rs State, a AttemptState) string {
	if a == AttemptClaimed && rs == Dispatching {
		return grantedWords
	}
	if s, ok := attemptWords[a]; ok {
		return s
	}
	return string(a)
}
