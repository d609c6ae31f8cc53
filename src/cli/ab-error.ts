/** A step of `ab` that cannot go on; the message says what to do. */
export class AbError extends Error {}
