import { BaselineMismatchError, type BaselineMissingError } from '../contract/errors.ts'
import { MAX_SESSIONS, sessionsOf, type BaselineEntry, type SessionFigures } from './baseline-entry.ts'
import type { BaselineEnvironment } from './baseline-environment.ts'
import { BASELINE_SCHEMA_VERSION, formatBaselineFile, parseBaselineFile } from './baseline-file.ts'
import { diffConfigs, hashConfig, type BaselineConfig } from './config-hash.ts'
import { diffMachine, type Fingerprint } from './fingerprint.ts'
import {
  closestMachineEntry,
  describeMachine,
  entryForMachine,
  machineEntriesOf,
  withMachineEntry,
} from './machine-entries.ts'
import { NodeBaselineEnvironment } from './node-baseline-environment.ts'
import type { UpdateMode } from './update-mode.ts'
import { decideMissingBaseline } from './update-mode.ts'

/** Options of {@link BaselineStore.open}. */
export interface BaselineStoreOptions {
  /** See {@link UpdateMode}; use `resolveUpdateMode` to get Vitest's. */
  updateMode: UpdateMode
  /** True under CI (`CI=true`): missing baselines fail instead of being written with `new`. */
  ci: boolean
  /** File access. Default: {@link NodeBaselineEnvironment}. */
  environment?: BaselineEnvironment
  /**
   * A config with every default written out (the plan's `canonicalConfig`): stored entries are read
   * through it, so one recorded before defaults were written out, or with a default spelled out,
   * still matches the same load. Default: configs are compared as stored.
   */
  identity?: (config: BaselineConfig) => BaselineConfig
}

/** `entry` keyed by `identity(entry.config)`; an entry without a stored config (over 4 KB) keeps its hash. */
function withIdentity(
  entry: BaselineEntry,
  identity: ((config: BaselineConfig) => BaselineConfig) | undefined,
): BaselineEntry {
  if (identity === undefined || entry.config === undefined) return entry
  const config = identity(entry.config)
  return { ...entry, config, configHash: hashConfig(config) }
}

/** A stored entry and its machines' entries, each read through `identity`. */
function storedWithIdentity(
  stored: BaselineEntry,
  identity: ((config: BaselineConfig) => BaselineConfig) | undefined,
): BaselineEntry {
  return machineEntriesOf(stored)
    .map((entry) => withIdentity(entry, identity))
    .reduce<BaselineEntry | undefined>((file, entry) => withMachineEntry(file, entry), undefined) as BaselineEntry
}

/**
 * A stored entry looked up by name, and by machine when one is given: `other machine` when the bench was
 * recorded only on other machines (`entries`, one per machine).
 */
export type BaselineLookup =
  { state: 'missing' } | { state: 'found'; entry: BaselineEntry } | { state: 'other machine'; entries: BaselineEntry[] }

/** What {@link BaselineStore.match} decided for one bench. */
export type BaselineMatch =
  /** A baseline exists and was measured on the same fingerprint and config: compare against `entry`. */
  | { state: 'compare'; entry: BaselineEntry }
  /**
   * No baseline existed for this machine; the current entry was recorded (written at `save()`). `otherMachines`:
   * the machines the bench keeps other entries for (described), when it has any.
   */
  | { state: 'written'; entry: BaselineEntry; otherMachines?: string[] }
  /** `-u`: the current entry replaces `previous` (written at `save()`). */
  | { state: 'updated'; entry: BaselineEntry; previous: BaselineEntry }
  /** No baseline and this run may not write one: fail with `error.message`. */
  | { state: 'missing'; error: BaselineMissingError }
  /** The baseline belongs to other hardware, software or config: `error` says what changed and how to refresh. */
  | { state: 'mismatch'; entry: BaselineEntry; error: BaselineMismatchError }

/** What {@link BaselineStore.save} did. */
export interface BaselineSaveSummary {
  path: string
  /** Entries recorded for benches that had none. */
  added: string[]
  /** Entries rewritten under `-u`. */
  updated: string[]
  /** Obsolete entries removed (only under `-u` with `removeObsolete`). */
  removed: string[]
  /** Entries in the file for benches that neither ran nor were marked checked this session (kept unless `-u`). */
  obsolete: string[]
  /** True when the file was written (its text changed). */
  fileWritten: boolean
  /** True when the file was deleted because `-u` left it without entries. */
  fileRemoved: boolean
}

/**
 * Why the baseline cannot be compared with the current entry: another machine (see
 * `diffMachine`) or another workload/load (`configHash`). Undefined when they match.
 */
export function baselineMismatchOf(
  benchName: string,
  path: string,
  baseline: BaselineEntry,
  current: BaselineEntry,
): BaselineMismatchError | undefined {
  const environmentChanges = diffMachine(baseline.fingerprint, current.fingerprint)
  let configChanges: string[] = []
  if (baseline.configHash !== current.configHash) {
    configChanges =
      baseline.config !== undefined && current.config !== undefined ? diffConfigs(baseline.config, current.config) : []
    if (configChanges.length === 0) {
      configChanges = [`config hash ${baseline.configHash.slice(0, 12)} -> ${current.configHash.slice(0, 12)}`]
    }
  }
  if (environmentChanges.length === 0 && configChanges.length === 0) return undefined
  return new BaselineMismatchError(benchName, path, environmentChanges, configChanges)
}

/**
 * The baselines of one bench file, modelled on @vitest/snapshot's `SnapshotState`: open it, call
 * {@link match} per bench, and {@link save}. Each bench saves its own entry as it ends (a crash
 * later in the file loses nothing). Obsolete entries are removed in one place only: after the run,
 * by whoever knows every name the file registered (`reconcileObsoleteBaselines`), which marks those
 * checked and saves with `removeObsolete` under `-u`.
 *
 * Entries accumulate in memory and the file is written once, by `save()`, with a read-merge-write
 * under the file's lock (`BaselineEnvironment.exclusive`): it re-reads the file, applies this
 * session's additions, updates and (under `-u`) removals on top of what it finds, and writes the
 * result atomically (temporary file + rename). Several runs of one bench file at once (`-t a1 -u`
 * beside `-t a2 -u`) therefore keep each other's entries, obsolete entries are decided against the
 * file as it is when written, and no reader ever sees half a file. A run that changed nothing
 * writes nothing, whatever the file's formatting. A file
 * that does not parse is never replaced, not even under `-u`: `open()` and `save()` throw
 * `BaselineFileError` and the user fixes or deletes it.
 */
export class BaselineStore {
  readonly path: string
  readonly updateMode: UpdateMode
  readonly ci: boolean
  readonly #environment: BaselineEnvironment
  readonly #identity: ((config: BaselineConfig) => BaselineConfig) | undefined
  readonly #stored: Map<string, BaselineEntry>
  readonly #pending = new Map<string, BaselineEntry>()
  readonly #added = new Set<string>()
  readonly #checked = new Set<string>()

  private constructor(
    path: string,
    options: BaselineStoreOptions,
    environment: BaselineEnvironment,
    stored: Map<string, BaselineEntry>,
  ) {
    this.path = path
    this.updateMode = options.updateMode
    this.ci = options.ci
    this.#identity = options.identity
    this.#environment = environment
    this.#stored = stored
  }

  /**
   * Reads the baseline file at `path` (see `baselinePathFor`); a file that does not exist yet is
   * an empty store.
   *
   * @throws {BaselineFileError} when the file is not valid JSON or not a baseline file.
   */
  static async open(path: string, options: BaselineStoreOptions): Promise<BaselineStore> {
    const environment = options.environment ?? new NodeBaselineEnvironment()
    const text = await environment.readFile(path)
    const entries = text === null ? [] : Object.entries(parseBaselineFile(text, path).entries)
    const stored = new Map<string, BaselineEntry>(
      entries.map(([name, entry]) => [name, storedWithIdentity(entry, options.identity)]),
    )
    return new BaselineStore(path, options, environment, stored)
  }

  /** Names of the entries in the file when it was opened, sorted. */
  names(): string[] {
    return [...this.#stored.keys()].sort()
  }

  /**
   * The stored entry for `name` (as read from the file; pending writes are not visible here): the one
   * recorded on `machine` when given (`other machine` when the bench has entries for other machines only),
   * else the file's entry.
   */
  get(name: string, machine?: Fingerprint): BaselineLookup {
    const stored = this.#stored.get(name)
    if (stored === undefined) return { state: 'missing' }
    if (machine === undefined) return { state: 'found', entry: machineEntriesOf(stored)[0] as BaselineEntry }
    const entry = entryForMachine(stored, machine)
    return entry === undefined
      ? { state: 'other machine', entries: machineEntriesOf(stored) }
      : { state: 'found', entry }
  }

  /**
   * Looks up `name` on this entry's machine, marks it as run, and applies the update mode:
   * - missing: recorded (`written`) under `-u` or `new` outside CI, else `missing` with the error to throw;
   * - recorded on other machines only: this machine's entry recorded beside theirs (`written`, naming them)
   *   where a missing one would be, else `mismatch` against the closest machine (what changed, before the load);
   * - `-u`: this machine's entry recorded (`updated`), whatever it was; other machines' entries are kept;
   * - config differs: `mismatch` with the error to throw (nothing recorded);
   * - a provisional stored entry (recorded while the machine was disturbed) and a quiet current run,
   *   outside CI with update mode `new`: recorded (`updated`), so the first quiet run makes it trusted,
   *   unless `replaceProvisional: false` (the caller found the run regressed even against it): `compare`;
   * - else `compare` against the stored entry.
   */
  match(name: string, given: BaselineEntry, options: { replaceProvisional?: boolean } = {}): BaselineMatch {
    this.#checked.add(name)
    const current = withIdentity(given, this.#identity)
    const file = this.#stored.get(name)
    const missing = decideMissingBaseline(name, this.path, { updateMode: this.updateMode, ci: this.ci })
    if (file === undefined) {
      if (missing.action === 'fail') return { state: 'missing', error: missing.error }
      this.#record(name, current, true)
      return { state: 'written', entry: current }
    }
    // Each machine keeps its own entry: another GPU, driver, CPU or runtime is compared with its own.
    const stored = entryForMachine(file, current.fingerprint)
    if (stored === undefined && (this.updateMode === 'all' || missing.action !== 'fail')) {
      this.#record(name, current, false)
      const otherMachines = machineEntriesOf(file).map((entry) => describeMachine(entry.fingerprint))
      return { state: 'written', entry: current, otherMachines }
    }
    if (stored === undefined) {
      const closest = closestMachineEntry(machineEntriesOf(file), current.fingerprint)
      return {
        state: 'mismatch',
        entry: closest,
        error: baselineMismatchOf(name, this.path, closest, current) as BaselineMismatchError,
      }
    }
    if (this.updateMode === 'all') {
      this.#record(name, current, false)
      return { state: 'updated', entry: current, previous: stored }
    }
    const mismatch = baselineMismatchOf(name, this.path, stored, current)
    if (mismatch) return { state: 'mismatch', entry: stored, error: mismatch }
    if (
      this.updateMode === 'new' &&
      !this.ci &&
      stored.provisional !== undefined &&
      current.provisional === undefined &&
      options.replaceProvisional !== false
    ) {
      this.#record(name, current, false)
      return { state: 'updated', entry: current, previous: stored }
    }
    return { state: 'compare', entry: stored }
  }

  /** Records `entry` for `name` unconditionally (written at `save()`), e.g. for a CLI import. */
  set(name: string, entry: BaselineEntry): void {
    this.#checked.add(name)
    this.#record(name, entry, !this.#stored.has(name))
  }

  /**
   * Adds one session's figures to `stored` (this machine's entry of `name`, as `match` compared it): the entry keeps
   * its last {@link MAX_SESSIONS} sessions, oldest dropped; written at `save()`. Returns how many it keeps.
   */
  addSession(name: string, stored: BaselineEntry, session: SessionFigures): number {
    const sessions = [...sessionsOf(stored), session].slice(-MAX_SESSIONS)
    this.#record(name, { ...stored, sessions }, false)
    return sessions.length
  }

  /** Keeps `name` from counting as obsolete without running it (a skipped or filtered-out bench). */
  markChecked(name: string): void {
    this.#checked.add(name)
  }

  /** Stored entries that neither ran nor were marked checked this session, sorted. */
  obsolete(): string[] {
    return this.names().filter((name) => !this.#checked.has(name))
  }

  #record(name: string, entry: BaselineEntry, added: boolean): void {
    this.#pending.set(name, entry)
    if (added) this.#added.add(name)
  }

  /**
   * Writes this session's changes (see the class notes). Writes nothing when the text would not
   * change; deletes the file when `-u` removed its last entry. Entries that neither ran nor were
   * marked checked are removed only under `-u` with `removeObsolete` (a bench's own save must not
   * remove its neighbours, which may simply not have run yet).
   *
   * @throws {BaselineFileError} when the file on disk no longer parses.
   */
  async save(options: { removeObsolete?: boolean } = {}): Promise<BaselineSaveSummary> {
    const removeObsolete = this.updateMode === 'all' && options.removeObsolete === true
    if (this.#pending.size === 0 && !removeObsolete) {
      // Nothing to write: never rewrite a file whose meaning this run did not change.
      const text = await this.#environment.readFile(this.path)
      const onDisk = text === null ? [] : Object.keys(parseBaselineFile(text, this.path).entries)
      const obsolete = onDisk.filter((name) => !this.#checked.has(name)).sort()
      return { path: this.path, added: [], updated: [], removed: [], obsolete, fileWritten: false, fileRemoved: false }
    }
    return this.#environment.exclusive(this.path, () => this.#mergeAndWrite(removeObsolete))
  }

  /** The read-merge-write of {@link save}, run while holding the file's lock. */
  async #mergeAndWrite(removeObsolete: boolean): Promise<BaselineSaveSummary> {
    const text = await this.#environment.readFile(this.path)
    const onDisk = text === null ? {} : parseBaselineFile(text, this.path).entries
    const entries = new Map<string, BaselineEntry>(Object.entries(onDisk))
    const obsolete = [...entries.keys()].filter((name) => !this.#checked.has(name)).sort()
    const removed = removeObsolete ? obsolete : []
    for (const name of removed) entries.delete(name)
    for (const [name, entry] of this.#pending) entries.set(name, withMachineEntry(entries.get(name), entry))
    const summary: BaselineSaveSummary = {
      path: this.path,
      added: [...this.#added].sort(),
      updated: [...this.#pending.keys()].filter((name) => !this.#added.has(name)).sort(),
      removed,
      obsolete,
      fileWritten: false,
      fileRemoved: false,
    }
    if (entries.size === 0) {
      if (text !== null && removed.length > 0) {
        await this.#environment.removeFile(this.path)
        summary.fileRemoved = true
      }
      return summary
    }
    const next = formatBaselineFile({ schemaVersion: BASELINE_SCHEMA_VERSION, entries: Object.fromEntries(entries) })
    if (next !== text) {
      await this.#environment.writeFileAtomic(this.path, next)
      summary.fileWritten = true
    }
    for (const name of removed) this.#stored.delete(name)
    for (const name of this.#pending.keys()) {
      const written = entries.get(name)
      if (written !== undefined) this.#stored.set(name, storedWithIdentity(written, this.#identity))
    }
    this.#pending.clear()
    this.#added.clear()
    return summary
  }
}
