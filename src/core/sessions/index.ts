export { runSession } from './run-session.ts'
export type { SessionOutcome, SessionTurnSender } from './run-session.ts'
