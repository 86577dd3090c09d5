package view

// The headers of an attempt's output as GET /api/v1/runs/{id}/log answers
// it: the body is the output, the bytes as the command wrote them, and
// these say where the answer stands and whether more will come, so a
// client can follow a run (ql runs logs --api-url does).
const (
	// HeaderAttempt is the number of the attempt answered (the latest
	// when ?attempt was left out), HeaderLatestAttempt the run's latest.
	HeaderAttempt       = "Ql-Attempt"
	HeaderLatestAttempt = "Ql-Latest-Attempt"
	// HeaderLogStart is the offset of the first byte answered: ?offset,
	// or with ?tail=N where the log's last N lines begin.
	HeaderLogStart = "Ql-Log-Start"
	// HeaderLogOffset is the offset after the bytes answered: the next
	// request's ?offset.
	HeaderLogOffset = "Ql-Log-Offset"
	// HeaderLogComplete is "true" when the answer reaches the end of what
	// the log held when it was read, "false" when the answer's size limit
	// cut it: ask again from HeaderLogOffset at once for the rest.
	HeaderLogComplete = "Ql-Log-Complete"
	// HeaderLogLength is the bytes the log holds, answered with a 416
	// when the offset asked is past them.
	HeaderLogLength = "Ql-Log-Length"
	// HeaderLogTruncated is "true" when the log was cut at its size cap.
	HeaderLogTruncated = "Ql-Log-Truncated"
	// HeaderAttemptEnded is "true" when the attempt had ended before its
	// log was read (it is over, a later attempt replaced it, or the run
	// ended): with HeaderLogComplete "true", the client has all its output.
	HeaderAttemptEnded = "Ql-Attempt-Ended"
	// HeaderRunState is the run's state, HeaderRunEnded "true" once it
	// has ended (lost included), both read before the log.
	HeaderRunState = "Ql-Run-State"
	HeaderRunEnded = "Ql-Run-Ended"
)
