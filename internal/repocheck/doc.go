// Package repocheck holds tests over the repository itself rather than over
// any one package: that the documentation names tests which exist and lists
// every refusal reason the code has, that nothing in the code or docs points
// at files outside the repository, and that the boundaries between packages
// hold (what the edge binary links, that test support stays in tests, that
// goroutine leaks are checked).
package repocheck
