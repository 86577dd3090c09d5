package console

// SharedCommands exposes sharedCommands to the external test that holds
// it against the command tree.
var SharedCommands = sharedCommands
