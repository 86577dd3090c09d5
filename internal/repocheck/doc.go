// Package repocheck holds tests over the repository itself rather than over
// any one package: that the documentation names tests which exist, and that
// nothing in the code or docs points at files outside the repository.
package repocheck
