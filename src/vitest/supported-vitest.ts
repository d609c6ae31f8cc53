/**
 * Imported first by the package's root entry, for its side effect: on a Vitest the package does not
 * support, loading the entry (the user's vitest.config) stops here with the version found and the
 * ones supported, before any module that imports \`vitest\` is evaluated (on Vitest 3 importing
 * \`vitest\` from a config throws an unrelated error first).
 */
import { configError, installedVitestVersion, vitestLine } from './vitest-support.ts'

const found = installedVitestVersion()

/** The Vitest line the package runs on; 5 where the version cannot be read (the peer range is then npm's to enforce). */
export const VITEST_LINE: 4 | 5 = found === undefined ? 5 : supportedLine(found)

function supportedLine(version: string): 4 | 5 {
  try {
    return vitestLine(version)
  } catch (error) {
    throw configError((error as Error).message)
  }
}
