// Preloaded into the soak's service (node --expose-gc --import): SIGWINCH runs a full
// garbage collection, so the bench reads the heap the service retains, not its garbage.
// SIGWINCH because its default action is to do nothing, and close-with-grace (the
// server's shutdown) does not listen to it (it does to SIGUSR2).
process.on('SIGWINCH', () => globalThis.gc?.())
