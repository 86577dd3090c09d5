package process

// The log codes of a secret set or deleted, by any way a server offers
// (its API, its console): the line names the secret and who changed it,
// never the value.
const (
	CodeSecretSet     = "secrets.set"
	CodeSecretDeleted = "secrets.deleted"
)
