export { runSession } from './run-session.ts'
export type { SessionTurnSender } from './run-session.ts'
