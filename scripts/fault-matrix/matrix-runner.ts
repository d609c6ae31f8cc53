// Runs rows: those marked `alone` one at a time with nothing beside them, the others `parallel` at a time; each
// row bounded by its limit (past it, its processes are killed and it FAILED). Prints one line per row as it ends.
import { killRowProcesses } from './processes.ts'
import { RowRun, type MatrixContext, type Row, type RowOutcome } from './rows/row.ts'

/** A row's result, as the table prints it. */
export interface RowResult {
  row: Row
  outcome: RowOutcome
  seconds: number
}

async function runOne(ctx: MatrixContext, row: Row, report: (result: RowResult) => void): Promise<RowResult> {
  const started = performance.now()
  let run: RowRun | undefined
  let outcome: RowOutcome
  const limitMs = row.limitMs ?? 120_000
  let timer: NodeJS.Timeout | undefined
  try {
    run = new RowRun(ctx, row.id, {})
    const limit = new Promise<RowOutcome>((resolve) => {
      timer = setTimeout(
        () => resolve({ observed: `ROW TIMED OUT after ${limitMs / 1000} s (its processes killed)`, held: false }),
        limitMs,
      )
    })
    outcome = await Promise.race([row.run(run), limit])
  } catch (error) {
    outcome = { observed: `the row's script threw: ${(error as Error).message.split('\n')[0]}`, held: false }
  } finally {
    clearTimeout(timer)
  }
  if (run) killRowProcesses(run.marker, run.dir, ctx.hogs)
  const result = { row, outcome, seconds: (performance.now() - started) / 1000 }
  report(result)
  return result
}

/** Runs `rows` (alone ones first, one at a time; then the rest, `parallel` at once) and returns them in order. */
export async function runRows(
  ctx: MatrixContext,
  rows: Row[],
  parallel: number,
  report: (result: RowResult) => void,
): Promise<RowResult[]> {
  const results = new Map<Row, RowResult>()
  for (const row of rows.filter((r) => r.alone)) results.set(row, await runOne(ctx, row, report))
  const queue = rows.filter((r) => !r.alone)
  const worker = async (): Promise<void> => {
    for (let row = queue.shift(); row; row = queue.shift()) results.set(row, await runOne(ctx, row, report))
  }
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker))
  return rows.map((row) => results.get(row)!)
}
