// Every row of the matrix, in the order run.ts lists them.
import { baselineFileRows } from './baseline-file-rows.ts'
import { baselineWriteRows } from './baseline-write-rows.ts'
import { errorRows } from './error-rows.ts'
import { miscRows } from './misc-rows.ts'
import { optionRows } from './option-rows.ts'
import type { Row } from './row.ts'
import { serverRows } from './server-rows.ts'
import { signalRows } from './signal-rows.ts'

export const ROWS: Row[] = [
  ...errorRows,
  ...serverRows,
  ...signalRows,
  ...baselineFileRows,
  ...baselineWriteRows,
  ...optionRows,
  ...miscRows,
]
