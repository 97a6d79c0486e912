// A reason the service cannot start that its operator can act on: main prints its message as one
// line and exits 1, instead of a stack.
export class StartupError extends Error {}
