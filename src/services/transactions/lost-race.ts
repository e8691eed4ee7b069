/** Raised inside the database transaction to roll it back when a concurrent request won a unique key. */
export class LostRace extends Error {}
