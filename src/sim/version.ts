import { toolVersion } from '../core/telemetry/tool-version.ts'

/** This package's version (see {@link toolVersion}); `0.0.0` when it cannot be read. */
export function packageVersion(): string {
  const version = toolVersion()
  return version === 'unknown' ? '0.0.0' : version
}
