// What a row is and what it gets: a folder of its own in the scratch project, `npx vitest bench` there under the
// row's marker, the scan for what it left, and the facts its checks read (bytes, reports).
import { createHash, randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { startChild, type Child, type ChildOptions, type Ran } from '../child-run.ts'
import { processesLeft, type RowProcess } from '../processes.ts'
import { rowProject, writeFiles, type Scratch } from '../scratch-project.ts'

/** The llama-server build the real-server rows launch. */
export interface LlamaBuild {
  serverPath: string
  modelPath: string
}

/** What every row shares. */
export interface MatrixContext {
  scratch: Scratch
  /** Undefined when there is no build: those rows fail, saying so. */
  llama: LlamaBuild | undefined
  /** PIDs of the hogs, left out of every process scan. */
  hogs: ReadonlySet<number>
  /** The repository's fake nvidia-smi (test/fixtures/bin/nvidia-smi), run as a program. */
  fakeNvidiaSmi: string
}

/** A row's verdict. */
export interface RowOutcome {
  /** What was seen, in one line: exit codes, the key sentence, processes left, bytes. */
  observed: string
  held: boolean
}

/** One row of the matrix. */
export interface Row {
  /** Short name, used by `--only`. */
  id: string
  /** The family of faults it belongs to (the comment block of run.ts groups by it). */
  family: string
  /** What it does. */
  does: string
  /** The outcome that counts as held. */
  expects: string
  /** Measures time or judges a verdict under load: runs alone, with nothing else of the matrix beside it. */
  alone?: boolean
  /** Whole-row limit, milliseconds (default 120 s): past it the row's processes are killed and it FAILED. */
  limitMs?: number
  run(row: RowRun): Promise<RowOutcome>
}

/** The `npx vitest bench` options of a row. */
export type BenchRunOptions = Partial<Omit<ChildOptions, 'cwd' | 'marker' | 'exclude'>>

/** One row's run: its folder, marker and helpers. */
export class RowRun {
  readonly ctx: MatrixContext
  readonly id: string
  readonly marker: string
  readonly dir: string
  #logs = 0

  constructor(ctx: MatrixContext, id: string, files: Record<string, string>) {
    this.ctx = ctx
    this.id = id
    this.marker = `FAULT_MATRIX_ROW=${id}.${randomUUID().slice(0, 8)}`
    this.dir = rowProject(ctx.scratch, id, files)
  }

  /** Writes more files into the row's folder. */
  write(files: Record<string, string>): void {
    writeFiles(this.dir, files)
  }

  /** The path of `relative` in the row's folder. */
  path(relative: string): string {
    return join(this.dir, relative)
  }

  /** Starts `npx vitest bench --run <args>` in the row's folder (default limit 90 s). */
  start(args: string[], options: BenchRunOptions = {}): Child {
    return this.spawn('npx', ['vitest', 'bench', '--run', ...args], options)
  }

  /** Starts any command in the row's folder under the row's marker. */
  spawn(command: string, args: string[], options: BenchRunOptions = {}): Child {
    return startChild(command, args, {
      timeoutMs: 90_000,
      ...options,
      cwd: this.dir,
      marker: this.marker,
      exclude: this.ctx.hogs,
    })
  }

  /** Runs `npx vitest bench --run <args>` to its end; its output is kept in the row's `logs/` folder. */
  async bench(args: string[], options: BenchRunOptions = {}): Promise<Ran> {
    const ran = await this.start(args, options).done
    this.log(`vitest bench ${args.join(' ')}`, ran)
    return ran
  }

  /** Keeps one command's output as `logs/<n>.txt` in the row's folder (for --keep). */
  log(command: string, ran: Ran): void {
    this.#logs++
    writeFiles(this.dir, {
      [`logs/${this.#logs}.txt`]: `$ ${command}\nrc ${ran.rc} signal ${ran.signal}\n${ran.output}`,
    })
  }

  /** The row's processes still alive after `withinMs`. */
  left(withinMs = 2000, exclude: ReadonlySet<number> = new Set()): Promise<RowProcess[]> {
    return processesLeft(this.marker, this.dir, withinMs, new Set([...this.ctx.hogs, ...exclude]))
  }

  /** sha256 of a file of the row (hex, first 12), or `absent`. */
  sha(relative: string): string {
    const file = this.path(relative)
    if (!existsSync(file) || !statSync(file).isFile()) return 'absent'
    return createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12)
  }

  /** Every results.json under the row's folder (node_modules left out), with its text. */
  reports(): Array<{ path: string; text: string }> {
    const found: Array<{ path: string; text: string }> = []
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name === 'node_modules' || entry.name === '.vite-cache') continue
        const path = join(dir, entry.name)
        if (entry.isDirectory()) walk(path)
        else if (entry.name === 'results.json') found.push({ path, text: readFileSync(path, 'utf8') })
      }
    }
    walk(this.dir)
    return found
  }
}
