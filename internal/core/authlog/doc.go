// Package authlog writes the authentication log lines of the API, the
// console and the worker ingress: who signed in or out, and which
// credential, password or setup code failed from which address and why.
// A line names the surface (api, console, setup, worker), the client's
// address, the user, token or worker name when one is known, and the
// reason; never the secret itself.
//
// Failure lines are limited, so a flood of guesses cannot fill the disk:
// at most one line a minute for each surface, reason and client (an IPv4
// address, or an IPv6 /64, as the throttles count them), the next line
// carrying how many were left out since the last; at most LinesPerMinute
// failure lines a minute in all; and at most MaxClients clients
// remembered. Sign-ins and sign-outs are not limited: each needs a valid
// credential.
package authlog
