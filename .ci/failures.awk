# Reads the output of `go test -v` and prints only what the failed tests
# wrote, test by test, followed by the FAIL and panic lines. Parallel tests
# interleave their output under "=== RUN/CONT/NAME" headers, so each line is
# filed under the test named by the last header; a test's lines are printed
# when a "--- FAIL" line names it. CI prints this after a failed run's full
# log, so the end of CI's output says what failed. A panic (a timeout
# included) is followed by the tests that were running, so the ten lines
# after it are kept too.
after_panic > 0 { tail = tail $0 "\n"; after_panic--; next }
/^=== (RUN|CONT|NAME|PAUSE) / { current = $3; next }
/^ *--- FAIL: / { failed[++nfailed] = $3; next }
/^ *--- (PASS|SKIP): / { next }
/^(panic:|fatal error:)/ { tail = tail $0 "\n"; after_panic = 10; next }
/^FAIL/ { tail = tail $0 "\n"; next }
{ lines[current] = lines[current] $0 "\n" }
END {
	for (i = 1; i <= nfailed; i++) {
		name = failed[i]
		printf "--- FAIL: %s\n%s", name, lines[name]
	}
	printf "%s", tail
}
